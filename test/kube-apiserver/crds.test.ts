import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiextensionsV1Api,
  ApisApi,
  CoreApi,
  CustomObjectsApi,
  DiscoveryV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  VersionApi,
} from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { clusterSPIFFEID, failure, GROUP, VERSION } from './helpers.js';

interface Cr {
  apiVersion: string;
  kind: string;
  metadata: { name: string; generation?: number; resourceVersion?: string };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

describe('custom resources from the CRD files are served like on a cluster with the CRDs installed', () => {
  let server: FakeKubeApiServer;
  let kc: KubeConfig;
  let co: CustomObjectsApi;
  const plural = (p: string) => ({ group: GROUP, version: VERSION, plural: p });

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    kc = server.kubeConfig();
    co = kc.makeApiClient(CustomObjectsApi);
  });
  afterEach(async () => {
    await server.close();
  });

  it('creates, gets and lists all three kinds, cluster-scoped', async () => {
    await co.createClusterCustomObject({ ...plural('clusterspiffeids'), body: clusterSPIFFEID('a') });
    await co.createClusterCustomObject({
      ...plural('clusterstaticentries'),
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'ClusterStaticEntry', metadata: { name: 's' }, spec: { spiffeID: 'spiffe://example.org/s', parentID: 'spiffe://example.org/p', selectors: ['unix:uid:0'] } },
    });
    await co.createClusterCustomObject({
      ...plural('clusterfederatedtrustdomains'),
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'ClusterFederatedTrustDomain',
        metadata: { name: 'f' },
        spec: { trustDomain: 'other.org', bundleEndpointURL: 'https://other.org/bundle', bundleEndpointProfile: { type: 'https_web' } },
      },
    });
    const got = (await co.getClusterCustomObject({ ...plural('clusterspiffeids'), name: 'a' })) as Cr;
    expect(got).toMatchObject({ apiVersion: `${GROUP}/${VERSION}`, kind: 'ClusterSPIFFEID', metadata: { name: 'a', generation: 1 } });
    expect(got.metadata).not.toHaveProperty('namespace');
    for (const [p, name] of [['clusterspiffeids', 'a'], ['clusterstaticentries', 's'], ['clusterfederatedtrustdomains', 'f']] as const) {
      const list = (await co.listClusterCustomObject(plural(p))) as { items: Cr[]; metadata: { resourceVersion: string } };
      expect(list.items.map((i) => i.metadata.name)).toEqual([name]);
      expect(list.metadata.resourceVersion).toBe(String(server.resourceVersion));
    }
  });

  it('rejects objects that break the openAPIV3Schema with 422 Invalid, naming the field', async () => {
    const missing = await failure(co.createClusterCustomObject({ ...plural('clusterspiffeids'), body: { ...clusterSPIFFEID('a'), spec: {} } }));
    expect(missing).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(missing.message).toBe('ClusterSPIFFEID.spire.spiffe.io "a" is invalid: spec.spiffeIDTemplate: Required value');

    const wrongType = await failure(co.createClusterCustomObject({ ...plural('clusterspiffeids'), body: clusterSPIFFEID('b', { admin: 'yes' }) }));
    expect(wrongType.code).toBe(422);
    expect(wrongType.message).toContain('spec.admin');

    const badEnum = await failure(
      co.createClusterCustomObject({
        ...plural('clusterfederatedtrustdomains'),
        body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'ClusterFederatedTrustDomain', metadata: { name: 'f' }, spec: { trustDomain: 'o.org', bundleEndpointURL: 'https://o.org', bundleEndpointProfile: { type: 'https_nope' } } },
      }),
    );
    expect(badEnum.code).toBe(422);
    expect(badEnum.message).toContain('Unsupported value: "https_nope"');
    expect(server.list(`${GROUP}/${VERSION}`, 'ClusterSPIFFEID')).toEqual([]);
  });

  it('silently prunes fields the schema does not declare, in spec and in status', async () => {
    const created = (await co.createClusterCustomObject({
      ...plural('clusterspiffeids'),
      body: { ...clusterSPIFFEID('a', { notAField: 1 }), topLevel: true },
    })) as Cr;
    expect(created.spec).not.toHaveProperty('notAField');
    expect(created).not.toHaveProperty('topLevel');
    const patched = (await co.patchClusterCustomObjectStatus(
      { ...plural('clusterspiffeids'), name: 'a', body: { status: { stats: { entriesToSet: 1, madeUp: 2 }, alsoMadeUp: true } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Cr;
    expect(patched.status).toEqual({ stats: { entriesToSet: 1 } });
  });

  it('resolves kinds through discovery for KubernetesObjectApi (read, list, create, delete)', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    await objects.create(clusterSPIFFEID('by-generic'));
    const read = await objects.read({ apiVersion: `${GROUP}/${VERSION}`, kind: 'ClusterSPIFFEID', metadata: { name: 'by-generic' } });
    expect(read.metadata?.name).toBe('by-generic');
    const list = await objects.list(`${GROUP}/${VERSION}`, 'ClusterSPIFFEID');
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['by-generic']);
    // Built-in kinds too: namespaced ones go to the context's namespace.
    await objects.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } } as never);
    expect(server.get('v1', 'ConfigMap', 'cm', 'default')).toBeDefined();
    await objects.delete({ apiVersion: `${GROUP}/${VERSION}`, kind: 'ClusterSPIFFEID', metadata: { name: 'by-generic' } });
    expect(server.list(`${GROUP}/${VERSION}`, 'ClusterSPIFFEID')).toEqual([]);
    expect(server.requests.some((r) => r.path === `/apis/${GROUP}/${VERSION}`)).toBe(true);
  });

  it('serves discovery documents: groups, resources with scope, verbs and the status subresource, and /version', async () => {
    const groups = await kc.makeApiClient(ApisApi).getAPIVersions();
    expect(groups.groups.map((g) => g.name)).toEqual(
      expect.arrayContaining([GROUP, 'coordination.k8s.io', 'discovery.k8s.io', 'apiextensions.k8s.io']),
    );
    expect(groups.groups.find((g) => g.name === GROUP)?.preferredVersion?.version).toBe(VERSION);

    const core = await kc.makeApiClient(CoreApi).getAPIVersions();
    expect(core.versions).toEqual(['v1']);

    const res = (await (await fetch(`${server.url}/apis/${GROUP}/${VERSION}`)).json()) as {
      kind: string;
      resources: { name: string; kind: string; namespaced: boolean; verbs: string[] }[];
    };
    expect(res.kind).toBe('APIResourceList');
    expect(res.resources.map((r) => r.name)).toEqual([
      'clusterspiffeids',
      'clusterspiffeids/status',
      'clusterstaticentries',
      'clusterstaticentries/status',
      'clusterfederatedtrustdomains',
      'clusterfederatedtrustdomains/status',
    ]);
    expect(res.resources[0]).toMatchObject({ kind: 'ClusterSPIFFEID', namespaced: false });
    expect(res.resources[0]!.verbs).toEqual(expect.arrayContaining(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']));
    expect(res.resources[1]!.verbs).toEqual(['get', 'patch', 'update']);

    const slices = await kc.makeApiClient(DiscoveryV1Api).getAPIResources();
    expect(slices.resources.find((r) => r.name === 'endpointslices')?.namespaced).toBe(true);

    const version = await kc.makeApiClient(VersionApi).getCode();
    expect(version.major).toBe('1');

    const unknown = await fetch(`${server.url}/apis/example.org/v1`);
    expect(unknown.status).toBe(404);
  });

  it('serves the CRDs themselves under apiextensions.k8s.io', async () => {
    const crds = await kc.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
    expect(crds.items.map((c) => c.metadata?.name).sort()).toEqual([
      'clusterfederatedtrustdomains.spire.spiffe.io',
      'clusterspiffeids.spire.spiffe.io',
      'clusterstaticentries.spire.spiffe.io',
    ]);
  });

  it('serves only the CRD files it is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-kube-crds-'));
    try {
      const file = join(dir, 'widgets.yaml');
      writeFileSync(
        file,
        [
          'apiVersion: apiextensions.k8s.io/v1',
          'kind: CustomResourceDefinition',
          'metadata: {name: widgets.example.org}',
          'spec:',
          '  group: example.org',
          '  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}',
          '  scope: Namespaced',
          '  versions:',
          '  - name: v1',
          '    served: true',
          '    storage: true',
          '    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}',
        ].join('\n'),
      );
      const other = await FakeKubeApiServer.start({ crds: [file] });
      try {
        const client = other.kubeConfig().makeApiClient(CustomObjectsApi);
        await client.createNamespacedCustomObject({
          group: 'example.org',
          version: 'v1',
          plural: 'widgets',
          namespace: 'team-a',
          body: { apiVersion: 'example.org/v1', kind: 'Widget', metadata: { name: 'w' }, anything: { goes: 1 } },
        });
        const got = (await client.getNamespacedCustomObject({ group: 'example.org', version: 'v1', plural: 'widgets', namespace: 'team-a', name: 'w' })) as Record<string, unknown>;
        expect(got.anything).toEqual({ goes: 1 });
        // No status subresource here: no /status path.
        expect((await fetch(`${other.url}/apis/example.org/v1/namespaces/team-a/widgets/w/status`)).status).toBe(404);
        expect((await fetch(`${other.url}/apis/${GROUP}/${VERSION}/clusterspiffeids`)).status).toBe(404);
      } finally {
        await other.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the fake API server hands out a kubeconfig client-node loads unmodified', () => {
  it('as a KubeConfig object and as a file for child processes', async () => {
    const server = await FakeKubeApiServer.start();
    const dir = mkdtempSync(join(tmpdir(), 'fake-kube-config-'));
    try {
      const path = join(dir, 'kubeconfig');
      server.writeKubeconfig(path);
      const kc = new KubeConfig();
      kc.loadFromFile(path);
      expect(kc.getCurrentCluster()).toMatchObject({ server: server.url, skipTLSVerify: true });
      expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('default');
      const list = (await kc.makeApiClient(CustomObjectsApi).listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'clusterspiffeids' })) as {
        items: unknown[];
      };
      expect(list.items).toEqual([]);
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await server.close();
    }
  });
});
