import { CoordinationV1Api, CoreV1Api, type KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { failure, pod } from './helpers.js';

describe('injected failures reach client-node as the API server would send them', () => {
  let server: FakeKubeApiServer;
  let kc: KubeConfig;
  let core: CoreV1Api;

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    kc = server.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    server.create(pod('team-a', 'web'));
  });
  afterEach(async () => {
    await server.close();
  });

  it('failNext answers exactly n matching requests, then the server answers normally', async () => {
    server.faults.failNext(2, 503, { pathIncludes: '/pods' });
    const first = await failure(core.listNamespacedPod({ namespace: 'team-a' }));
    expect(first).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
    // Requests that do not match are not counted.
    await core.listNamespace();
    const second = await failure(core.readNamespacedPod({ namespace: 'team-a', name: 'web' }));
    expect(second.code).toBe(503);
    const third = await core.readNamespacedPod({ namespace: 'team-a', name: 'web' });
    expect(third.metadata?.name).toBe('web');
  });

  it('429 comes with Retry-After: 1 and a TooManyRequests Status', async () => {
    server.faults.failNext(1, 429);
    const f = await failure(core.listNamespacedPod({ namespace: 'team-a' }));
    expect(f).toMatchObject({ code: 429, reason: 'TooManyRequests' });
    expect(f.headers['retry-after']).toBe('1');
  });

  it('matches by method, so a failing write leaves reads alone, and nothing is written', async () => {
    server.faults.failNext(1, 500, { method: 'PATCH' });
    await core.readNamespacedPod({ namespace: 'team-a', name: 'web' });
    const rv = server.resourceVersion;
    const f = await failure(
      core.patchNamespacedPod(
        { namespace: 'team-a', name: 'web', body: { metadata: { labels: { a: 'b' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    expect(f).toMatchObject({ code: 500, reason: 'InternalError' });
    expect(server.resourceVersion).toBe(rv);
  });

  it('a failed Lease renewal looks like any other 5xx to the elector', async () => {
    const leases = kc.makeApiClient(CoordinationV1Api);
    await leases.createNamespacedLease({ namespace: 'spire', body: { metadata: { name: 'l' }, spec: { holderIdentity: 'a' } } });
    server.faults.failNext(1, 500, { method: 'PUT', pathIncludes: '/leases/l' });
    const read = await leases.readNamespacedLease({ namespace: 'spire', name: 'l' });
    const f = await failure(leases.replaceNamespacedLease({ namespace: 'spire', name: 'l', body: read }));
    expect(f.code).toBe(500);
  });
});

describe('the fake API server logs every request it answers', () => {
  it('with method, path, query, content type, time and status', async () => {
    const server = await FakeKubeApiServer.start();
    try {
      const core = server.kubeConfig().makeApiClient(CoreV1Api);
      const t0 = Date.now();
      await core.listNamespacedPod({ namespace: 'team-a', labelSelector: 'app=web', limit: 10 });
      await failure(core.readNamespacedPod({ namespace: 'team-a', name: 'missing' }));
      await core.patchNamespacedPodStatus(
        { namespace: 'team-a', name: 'web', body: {} },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ).catch(() => undefined);
      const [list, read, patch] = server.requests;
      expect(list).toMatchObject({ method: 'GET', path: '/api/v1/namespaces/team-a/pods', status: 200 });
      expect(new URLSearchParams(list!.query).get('labelSelector')).toBe('app=web');
      expect(new URLSearchParams(list!.query).get('limit')).toBe('10');
      expect(list!.at).toBeGreaterThanOrEqual(t0);
      expect(read).toMatchObject({ method: 'GET', path: '/api/v1/namespaces/team-a/pods/missing', status: 404 });
      expect(patch).toMatchObject({
        method: 'PATCH',
        path: '/api/v1/namespaces/team-a/pods/web/status',
        contentType: 'application/merge-patch+json',
        status: 404,
      });
    } finally {
      await server.close();
    }
  });
});
