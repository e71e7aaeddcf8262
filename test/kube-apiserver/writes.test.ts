import { CoordinationV1Api, CoreV1Api, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { eventually, failure, namespace, pod, RecordedWatch } from './helpers.js';

describe('writes through the fake API server follow Kubernetes metadata and concurrency rules', () => {
  let server: FakeKubeApiServer;
  let kc: KubeConfig;
  let core: CoreV1Api;

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    kc = server.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
  });
  afterEach(async () => {
    await server.close();
  });

  it('create sets uid, creationTimestamp, resourceVersion, generation and managedFields; every write bumps the one counter', async () => {
    const before = server.resourceVersion;
    const created = await core.createNamespacedPod({ namespace: 'team-a', body: pod('team-a', 'web') });
    const meta = created.metadata!;
    expect(meta.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.creationTimestamp).toBeInstanceOf(Date);
    expect(meta.resourceVersion).toBe(String(before + 1));
    expect(meta.generation).toBe(1);
    expect(meta.managedFields?.[0]).toMatchObject({ operation: 'Update', fieldsType: 'FieldsV1', apiVersion: 'v1' });
    // The API server resets the status of a created pod, and defaults what admission fills in.
    expect(created.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(created.spec?.serviceAccountName).toBe('default');

    const ns = await core.createNamespace({ body: namespace('team-a') });
    expect(ns.metadata?.resourceVersion).toBe(String(before + 2));
    expect(ns.metadata?.generation).toBeUndefined();
    expect(ns.metadata?.labels).toEqual({ 'kubernetes.io/metadata.name': 'team-a' });
  });

  it('create of an existing name is 409 AlreadyExists; a missing name is 422 Invalid; generateName makes one', async () => {
    await core.createNamespacedPod({ namespace: 'team-a', body: pod('team-a', 'web') });
    const dup = await failure(core.createNamespacedPod({ namespace: 'team-a', body: pod('team-a', 'web') }));
    expect(dup).toMatchObject({ code: 409, reason: 'AlreadyExists', message: 'pods "web" already exists' });

    const nameless = await failure(core.createNamespacedPod({ namespace: 'team-a', body: { metadata: {}, spec: { containers: [] } } }));
    expect(nameless).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(nameless.message).toContain('metadata.name: Required value');

    const generated = await core.createNamespacedPod({ namespace: 'team-a', body: { metadata: { generateName: 'job-' }, spec: { containers: [] } } });
    expect(generated.metadata?.name).toMatch(/^job-[a-z0-9]{5}$/);

    const badName = await failure(core.createNamespacedPod({ namespace: 'team-a', body: pod('team-a', 'Not_Valid') }));
    expect(badName.code).toBe(422);
  });

  it('update with a stale resourceVersion is 409 Conflict; without one it is unconditional', async () => {
    const created = await core.createNamespacedPod({ namespace: 'team-a', body: pod('team-a', 'web') });
    const first = await core.replaceNamespacedPod({
      namespace: 'team-a',
      name: 'web',
      body: { ...created, metadata: { ...created.metadata, labels: { v: '1' } } },
    });
    expect(Number(first.metadata?.resourceVersion)).toBeGreaterThan(Number(created.metadata?.resourceVersion));

    const stale = await failure(
      core.replaceNamespacedPod({ namespace: 'team-a', name: 'web', body: { ...created, metadata: { ...created.metadata, labels: { v: 'stale' } } } }),
    );
    expect(stale).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(stale.message).toContain('the object has been modified');

    const { resourceVersion: _rv, ...withoutRV } = first.metadata!;
    const forced = await core.replaceNamespacedPod({ namespace: 'team-a', name: 'web', body: { ...first, metadata: { ...withoutRV, labels: { v: '2' } } } });
    expect(forced.metadata?.labels).toEqual({ v: '2' });
    // System fields are the server's: uid and creationTimestamp survive a PUT that leaves them out.
    expect(forced.metadata?.uid).toBe(created.metadata?.uid);
  });

  it('bumps generation on spec changes only, and skips a write that changes nothing', async () => {
    const created = await core.createNamespacedPod({ namespace: 'team-a', body: pod('team-a', 'web') });
    const labelled = await core.replaceNamespacedPod({ namespace: 'team-a', name: 'web', body: { ...created, metadata: { ...created.metadata, labels: { a: 'b' } } } });
    expect(labelled.metadata?.generation).toBe(1);
    const respec = await core.replaceNamespacedPod({
      namespace: 'team-a',
      name: 'web',
      body: { ...labelled, spec: { ...labelled.spec!, activeDeadlineSeconds: 30 } },
    });
    expect(respec.metadata?.generation).toBe(2);
    const statusOnly = await core.replaceNamespacedPodStatus({ namespace: 'team-a', name: 'web', body: { ...respec, status: { phase: 'Running' } } });
    expect(statusOnly.metadata?.generation).toBe(2);
    expect(statusOnly.status?.phase).toBe('Running');

    const rv = server.resourceVersion;
    const same = await core.replaceNamespacedPod({ namespace: 'team-a', name: 'web', body: statusOnly });
    expect(same.metadata?.resourceVersion).toBe(statusOnly.metadata?.resourceVersion);
    expect(server.resourceVersion).toBe(rv);
  });

  it('the main resource ignores status; /status ignores everything else', async () => {
    const created = await core.createNamespacedPod({ namespace: 'team-a', body: pod('team-a', 'web') });
    const viaMain = await core.replaceNamespacedPod({
      namespace: 'team-a',
      name: 'web',
      body: { ...created, metadata: { ...created.metadata, labels: { changed: 'yes' } }, status: { phase: 'Failed' } },
    });
    expect(viaMain.status?.phase).toBe('Pending');
    expect(viaMain.metadata?.labels).toEqual({ changed: 'yes' });

    const viaStatus = await core.replaceNamespacedPodStatus({
      namespace: 'team-a',
      name: 'web',
      body: { ...viaMain, metadata: { ...viaMain.metadata, labels: { changed: 'again' } }, spec: { ...viaMain.spec!, nodeName: 'n' }, status: { phase: 'Running' } },
    });
    expect(viaStatus.status?.phase).toBe('Running');
    expect(viaStatus.metadata?.labels).toEqual({ changed: 'yes' });
    expect(viaStatus.spec?.nodeName).toBeUndefined();
    expect(viaStatus.metadata?.managedFields?.some((f) => f.subresource === 'status')).toBe(true);
  });

  it('delete answers the object, emits DELETED, and 404s the second time', async () => {
    await core.createNamespacedPod({ namespace: 'team-a', body: pod('team-a', 'web') });
    const w = await RecordedWatch.open(kc, '/api/v1/namespaces/team-a/pods', { resourceVersion: String(server.resourceVersion) });
    const deleted = await core.deleteNamespacedPod({ namespace: 'team-a', name: 'web' });
    expect((deleted as { metadata?: { name?: string } }).metadata?.name).toBe('web');
    await eventually(() => w.events.length === 1, 'the DELETED event');
    expect(w.summary()).toEqual(['DELETED web']);
    expect(w.events[0]!.object.metadata?.resourceVersion).toBe(String(server.resourceVersion));
    w.stop();
    const again = await failure(core.deleteNamespacedPod({ namespace: 'team-a', name: 'web' }));
    expect(again).toMatchObject({ code: 404, reason: 'NotFound', message: 'pods "web" not found' });
  });

  it('a delete precondition on a stale resourceVersion is 409 Conflict', async () => {
    const created = await core.createNamespacedPod({ namespace: 'team-a', body: pod('team-a', 'web') });
    server.patch('v1', 'Pod', 'web', { metadata: { labels: { v: '2' } } }, 'team-a');
    const f = await failure(
      core.deleteNamespacedPod({ namespace: 'team-a', name: 'web', body: { preconditions: { resourceVersion: created.metadata!.resourceVersion! } } }),
    );
    expect(f).toMatchObject({ code: 409, reason: 'Conflict' });
  });

  it('an object with finalizers is only marked for deletion until the last finalizer goes', async () => {
    await core.createNamespacedPod({ namespace: 'team-a', body: { ...pod('team-a', 'web'), metadata: { name: 'web', finalizers: ['example.org/hold'] } } });
    await core.deleteNamespacedPod({ namespace: 'team-a', name: 'web' });
    const held = await core.readNamespacedPod({ namespace: 'team-a', name: 'web' });
    expect(held.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    await core.replaceNamespacedPod({ namespace: 'team-a', name: 'web', body: { ...held, metadata: { ...held.metadata, finalizers: [] } } });
    expect(server.get('v1', 'Pod', 'web', 'team-a')).toBeUndefined();
  });

  it('deleting a namespace deletes what is in it', async () => {
    server.create(namespace('team-a'));
    server.create(pod('team-a', 'web'));
    server.create(pod('team-b', 'other'));
    await core.deleteNamespace({ name: 'team-a' });
    expect(server.list('v1', 'Pod').map((p) => p.metadata?.name)).toEqual(['other']);
    expect(server.get('v1', 'Namespace', 'team-a')).toBeUndefined();
  });

  it('with namespaceLifecycle, the system namespaces exist and a missing namespace is 404', async () => {
    await server.close();
    server = await FakeKubeApiServer.start({ namespaceLifecycle: true });
    core = server.kubeConfig().makeApiClient(CoreV1Api);
    const names = (await core.listNamespace()).items.map((n) => n.metadata?.name);
    expect(names).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    const f = await failure(core.createNamespacedPod({ namespace: 'nowhere', body: pod('nowhere', 'web') }));
    expect(f).toMatchObject({ code: 404, message: 'namespaces "nowhere" not found' });
  });
});

describe('Leases through the fake API server give leader election its optimistic concurrency', () => {
  let server: FakeKubeApiServer;
  let leases: CoordinationV1Api;

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    leases = server.kubeConfig().makeApiClient(CoordinationV1Api);
  });
  afterEach(async () => {
    await server.close();
  });

  const lease = (holder: string): V1Lease => ({
    metadata: { name: 'leader', namespace: 'spire' },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, acquireTime: new Date(), renewTime: new Date() },
  });

  it('one candidate creates the Lease, the other gets 409 AlreadyExists', async () => {
    await leases.createNamespacedLease({ namespace: 'spire', body: lease('a') });
    const f = await failure(leases.createNamespacedLease({ namespace: 'spire', body: lease('b') }));
    expect(f.code).toBe(409);
    expect(f.reason).toBe('AlreadyExists');
    expect(f.message).toBe('leases.coordination.k8s.io "leader" already exists');
  });

  it('of two renewals from the same read, the second is 409 Conflict', async () => {
    await leases.createNamespacedLease({ namespace: 'spire', body: lease('a') });
    const read = await leases.readNamespacedLease({ namespace: 'spire', name: 'leader' });
    const renewed = await leases.replaceNamespacedLease({
      namespace: 'spire',
      name: 'leader',
      body: { ...read, spec: { ...read.spec, renewTime: new Date(Date.now() + 1000) } },
    });
    expect(Number(renewed.metadata?.resourceVersion)).toBeGreaterThan(Number(read.metadata?.resourceVersion));
    const takeover = await failure(
      leases.replaceNamespacedLease({ namespace: 'spire', name: 'leader', body: { ...read, spec: { ...read.spec, holderIdentity: 'b' } } }),
    );
    expect(takeover).toMatchObject({ code: 409, reason: 'Conflict' });
    expect((await leases.readNamespacedLease({ namespace: 'spire', name: 'leader' })).spec?.holderIdentity).toBe('a');
    // Leases have no generation, as on a real cluster.
    expect(renewed.metadata?.generation).toBeUndefined();
  });
});
