import { CoreV1Api, type KubeConfig, KubernetesObjectApi, type V1Pod } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { failure, namespace, pod } from './helpers.js';

describe('lists through the fake API server select, page and version like a real one', () => {
  let server: FakeKubeApiServer;
  let kc: KubeConfig;
  let core: CoreV1Api;
  const names = (items: V1Pod[]) => items.map((p) => p.metadata?.name);

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    kc = server.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    server.create(pod('team-a', 'web-1', { app: 'web', tier: 'front', env: 'prod' }, { nodeName: 'node-1' }));
    server.create(pod('team-a', 'web-2', { app: 'web', tier: 'front', env: 'dev' }, { nodeName: 'node-2' }));
    server.create(pod('team-a', 'db', { app: 'db' }, { nodeName: 'node-1' }));
    server.create(pod('team-b', 'cache', { app: 'cache', env: 'prod' }, { nodeName: 'node-2' }));
  });
  afterEach(async () => {
    await server.close();
  });

  it.each([
    ['app=web', ['web-1', 'web-2']],
    ['app==web', ['web-1', 'web-2']],
    ['app!=web', ['cache', 'db']],
    ['env in (prod, staging)', ['cache', 'web-1']],
    ['env notin (prod)', ['db', 'web-2']],
    ['env', ['cache', 'web-1', 'web-2']],
    ['!env', ['db']],
    ['app=web,env=dev', ['web-2']],
    ['tier=front, env!=dev', ['web-1']],
    ['', ['cache', 'db', 'web-1', 'web-2']],
  ])('labelSelector %j selects %j', async (selector, expected) => {
    const list = await core.listPodForAllNamespaces({ labelSelector: selector });
    expect(names(list.items).sort()).toEqual(expected);
  });

  it.each([
    ['spec.nodeName=node-1', ['db', 'web-1']],
    ['spec.nodeName!=node-1', ['cache', 'web-2']],
    ['metadata.name=db', ['db']],
    ['metadata.namespace=team-b', ['cache']],
    ['status.phase=Running', ['web-1']],
    ['spec.nodeName=node-2,metadata.namespace==team-a', ['web-2']],
  ])('fieldSelector %j selects %j', async (selector, expected) => {
    server.patchStatus('v1', 'Pod', 'web-1', { phase: 'Running' }, 'team-a');
    const list = await core.listPodForAllNamespaces({ fieldSelector: selector });
    expect(names(list.items).sort()).toEqual(expected);
  });

  it('rejects a malformed label selector and an unsupported field label with 400 BadRequest', async () => {
    const bad = await failure(core.listNamespacedPod({ namespace: 'team-a', labelSelector: 'app in web' }));
    expect(bad).toMatchObject({ code: 400, reason: 'BadRequest' });
    const field = await failure(core.listNamespacedPod({ namespace: 'team-a', fieldSelector: 'spec.containers=x' }));
    expect(field).toMatchObject({ code: 400, reason: 'BadRequest' });
    // Custom resources support only metadata.name and metadata.namespace.
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const crd = await failure(objects.list('spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID', undefined, undefined, undefined, undefined, 'spec.className=x'));
    expect(crd.code).toBe(400);
  });

  it('lists one namespace or all, in namespace/name order, with the list resourceVersion', async () => {
    const a = await core.listNamespacedPod({ namespace: 'team-a' });
    expect(names(a.items)).toEqual(['db', 'web-1', 'web-2']);
    expect(a.metadata?.resourceVersion).toBe(String(server.resourceVersion));
    const all = await core.listPodForAllNamespaces();
    expect(all.items.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`)).toEqual([
      'team-a/db',
      'team-a/web-1',
      'team-a/web-2',
      'team-b/cache',
    ]);
  });

  it('leaves kind and apiVersion off built-in list items, as the API server does, but not off custom resources', async () => {
    server.create({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'x' }, spec: { spiffeIDTemplate: 't' } });
    const res = await fetch(`${server.url}/api/v1/namespaces/team-a/pods`);
    const body = (await res.json()) as { kind: string; apiVersion: string; items: Record<string, unknown>[] };
    expect(body.kind).toBe('PodList');
    expect(body.apiVersion).toBe('v1');
    expect(body.items[0]).not.toHaveProperty('kind');
    expect(body.items[0]).not.toHaveProperty('apiVersion');
    const crs = (await (await fetch(`${server.url}/apis/spire.spiffe.io/v1alpha1/clusterspiffeids`)).json()) as {
      kind: string;
      items: Record<string, unknown>[];
    };
    expect(crs.kind).toBe('ClusterSPIFFEIDList');
    expect(crs.items[0]).toMatchObject({ kind: 'ClusterSPIFFEID', apiVersion: 'spire.spiffe.io/v1alpha1' });
  });

  it('pages with limit and continue over one consistent snapshot', async () => {
    const first = await core.listPodForAllNamespaces({ limit: 3 });
    expect(names(first.items)).toEqual(['db', 'web-1', 'web-2']);
    expect(first.metadata?.remainingItemCount).toBe(1);
    expect(first.metadata?._continue).toBeTruthy();

    // Changes after the first page do not show in the next pages.
    server.create(pod('team-b', 'added-later'));
    server.delete('v1', 'Pod', 'cache', 'team-b');
    const second = await core.listPodForAllNamespaces({ limit: 3, _continue: first.metadata!._continue! });
    expect(names(second.items)).toEqual(['cache']);
    expect(second.metadata?._continue).toBeUndefined();
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);

    // A fresh list sees the current state.
    expect(names((await core.listPodForAllNamespaces()).items).sort()).toEqual(['added-later', 'db', 'web-1', 'web-2']);
  });

  it('answers a continue token and an Exact resourceVersion whose history was compacted with 410 Expired', async () => {
    const first = await core.listPodForAllNamespaces({ limit: 2 });
    const exactRV = first.metadata!.resourceVersion!;
    server.create(pod('team-a', 'newer'));
    // Still within history: the exact list is the state at that version.
    const exact = await core.listPodForAllNamespaces({ resourceVersion: exactRV, resourceVersionMatch: 'Exact' });
    expect(names(exact.items)).not.toContain('newer');
    expect(exact.metadata?.resourceVersion).toBe(exactRV);

    server.faults.expireResourceVersions();
    const cont = await failure(core.listPodForAllNamespaces({ limit: 2, _continue: first.metadata!._continue! }));
    expect(cont).toMatchObject({ code: 410, reason: 'Expired' });
    const gone = await failure(core.listPodForAllNamespaces({ resourceVersion: exactRV, resourceVersionMatch: 'Exact' }));
    expect(gone).toMatchObject({ code: 410, reason: 'Expired' });
    // NotOlderThan is served from the latest state, whatever the history.
    const notOlder = await core.listPodForAllNamespaces({ resourceVersion: exactRV, resourceVersionMatch: 'NotOlderThan' });
    expect(names(notOlder.items)).toContain('newer');
  });

  it('deletes a collection by label selector', async () => {
    server.create(namespace('team-a'));
    // Pods on a node are only marked terminating, as by a DELETE of each (see real-parity.test.ts)...
    await core.deleteCollectionNamespacedPod({ namespace: 'team-a', labelSelector: 'app=web' });
    const marked = server.list('v1', 'Pod', 'team-a').filter((p) => p.metadata?.deletionTimestamp);
    expect(marked.map((p) => [p.metadata?.name, p.metadata?.deletionGracePeriodSeconds])).toEqual([['web-1', 30], ['web-2', 30]]);
    // ...and a zero grace period removes them.
    const deleted = await core.deleteCollectionNamespacedPod({ namespace: 'team-a', labelSelector: 'app=web', gracePeriodSeconds: 0 });
    expect(deleted).toBeDefined();
    expect(server.list('v1', 'Pod', 'team-a').map((p) => p.metadata?.name)).toEqual(['db']);
  });
});
