import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { passOptions } from '../../src/cli/context.js';
import { startLive } from '../../src/manager/live.js';
import { ControllerMetrics } from '../../src/manager/metrics.js';
import { parseExposition, value } from '../manager/prom-text.js';
import { csid, eventually, node, ns, pod, startWorld, type World, worldWithPods } from './world.js';

const SA_TEMPLATE = 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}';

describe('the live controller keeps SPIRE equal to the cluster, change by change', () => {
  let w: World;
  const paths = () => w.spire.server.entries.all().map((e) => e.spiffeId.path).sort();
  const uidOf = (namespace: string, name: string) => (w.kube.get('v1', 'Pod', name, namespace) as { metadata: { uid: string } }).metadata.uid;

  beforeEach(async () => {
    w = await startWorld();
    w.kube.create(ns('team-a', { team: 'a' }));
    w.kube.create(ns('team-b', { team: 'b' }));
    w.kube.create(node('node-1', { zone: 'z1' }));
    w.kube.create(csid('by-sa', { spiffeIDTemplate: SA_TEMPLATE, namespaceSelector: { matchLabels: { team: 'a' } } }));
    // After the first pass, whose probe writes and deletes an entry of its own.
    await (await w.start()).idle();
  });
  afterEach(async () => {
    await w.close();
  });

  it('creates the entry of a new pod, and deletes it with the pod', async () => {
    w.kube.create(pod('team-a', 'web'));
    await eventually(() => paths().includes('/ns/team-a/sa/web-sa'), 'the entry exists');
    // By path: made this early, the pod's entry may be written while the first full pass's probe entry still exists.
    const e = w.spire.server.entries.all().find((x) => x.spiffeId.path === '/ns/team-a/sa/web-sa');
    expect(e?.selectors).toEqual([{ type: 'k8s', value: `pod-uid:${uidOf('team-a', 'web')}` }]);
    expect(e?.id).toMatch(/^scm-demo\.[0-9a-f-]{36}$/);

    // The cache holds what templates read, not the API server's field-ownership records.
    const cached = w.controllers[0]!.live.cache.get<{ metadata: Record<string, unknown> }>('pods', 'web', 'team-a');
    expect(cached?.metadata.name).toBe('web');
    expect(cached?.metadata.managedFields).toBeUndefined();

    w.kube.delete('v1', 'Pod', 'web', 'team-a');
    await eventually(() => w.spire.server.entries.size === 0, 'the entry is gone');
  });

  it('keeps the entry of a terminating pod (deleted with its grace period) until the pod is gone', async () => {
    w.kube.create(pod('team-a', 'web'));
    await eventually(() => paths().includes('/ns/team-a/sa/web-sa'), 'the entry exists');
    const id = w.spire.server.entries.all().find((x) => x.spiffeId.path === '/ns/team-a/sa/web-sa')?.id;
    // Marked terminating, as kube-apiserver marks a pod on a node: it shuts down with its identity.
    const marked = w.kube.deleteGracefully('v1', 'Pod', 'web', 'team-a') as { metadata: { deletionTimestamp?: string; resourceVersion: string } } | undefined;
    expect(marked?.metadata.deletionTimestamp).toBeDefined();
    const live = w.controllers[0]!.live;
    const cachedVersion = () => live.cache.get<{ metadata: { resourceVersion: string } }>('pods', 'web', 'team-a')?.metadata.resourceVersion;
    await eventually(() => cachedVersion() === marked?.metadata.resourceVersion, 'the watch brings the marked pod');
    await live.idle();
    const passes = live.passes();
    live.resync();
    await eventually(() => live.passes() > passes, 'a full pass ran');
    expect(w.spire.server.entries.all().map((e) => e.id)).toEqual([id]);
    // The kubelet's confirmation.
    w.kube.delete('v1', 'Pod', 'web', 'team-a');
    await eventually(() => w.spire.server.entries.size === 0, 'the entry is gone with the pod');
  });

  it('caches only the phase of a pod status, whether the pod came by list or by watch', async () => {
    const status = { phase: 'Running', podIP: '10.0.0.7', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'i', imageID: 'i@sha256:0' }] };
    w.kube.create({ ...pod('team-a', 'web'), status });
    await eventually(() => w.spire.server.entries.size === 1, 'the entry exists');
    const cached = () => w.controllers[0]!.live.cache.get<{ status: { phase?: string } }>('pods', 'web', 'team-a');
    expect(cached()?.status).toEqual({ phase: 'Running' });

    // A second controller lists the pod at start; the first saw it by watch.
    const second = await w.start({ identity: 'second' });
    expect(second.cache.get<{ status: unknown }>('pods', 'web', 'team-a')?.status).toEqual({ phase: 'Running' });

    // The phase still drives selection: a finished pod loses its entry.
    w.kube.update({ ...(w.kube.get('v1', 'Pod', 'web', 'team-a') as object), status: { ...status, phase: 'Succeeded' } });
    await eventually(() => cached()?.status.phase === 'Succeeded', 'the watch brings the new phase');
    expect(cached()?.status).toEqual({ phase: 'Succeeded' });
    await eventually(() => w.spire.server.entries.size === 0, 'a finished pod has no entry');
  });

  it('keeps SPIRE state in memory: a pod event does not list every entry, an uncertain write does', async () => {
    w.kube.create(pod('team-a', 'p1'));
    await eventually(() => w.spire.server.entries.size === 1, 'the first entry');
    const live = w.controllers[0]!.live;
    await live.idle();
    const lists = () => w.spire.server.calls.filter((c) => c.method === 'ListEntries').length;
    const before = lists();
    w.kube.create(pod('team-a', 'p2'));
    await eventually(() => w.spire.server.entries.size === 2, 'the second entry');
    await live.idle();
    expect(lists()).toBe(before);

    // A write whose outcome is unknown makes the next pass list again.
    w.spire.server.faults.failNext(1, 14, { method: 'BatchCreateEntry' });
    w.kube.create(pod('team-a', 'p3'));
    await eventually(() => w.spire.server.entries.size === 3, 'the third entry, after a retry');
    expect(lists()).toBeGreaterThan(before);
  });

  it('re-renders only the pod an event is about', async () => {
    for (const name of ['p1', 'p2', 'p3']) w.kube.create(pod('team-a', name));
    await eventually(() => w.spire.server.entries.size === 3, 'three entries');
    const live = w.controllers[0]!.live;
    await live.idle();
    const misses = live.renderCounts().misses;
    w.kube.create(pod('team-a', 'p4'));
    await eventually(() => w.spire.server.entries.size === 4, 'the fourth entry');
    await live.idle();
    expect(live.renderCounts().misses - misses).toBe(1);
  });

  it("changes exactly a ClusterSPIFFEID's entries when its template changes", async () => {
    w.kube.create(csid('by-name', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}', namespaceSelector: { matchLabels: { team: 'b' } } }));
    w.kube.create(pod('team-a', 'web'));
    w.kube.create(pod('team-b', 'api'));
    await eventually(() => w.spire.server.entries.size === 2, 'both entries exist');
    const before = w.spire.server.entries.all().find((e) => e.spiffeId.path === '/ns/team-a/sa/web-sa')!;

    const obj = w.kube.get('spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID', 'by-name') as { spec: Record<string, unknown> };
    w.kube.update({ ...obj, spec: { ...obj.spec, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/workload/{{ .PodMeta.Name }}' } });
    await eventually(() => paths().includes('/workload/api'), 'the new ID exists');
    await eventually(() => !paths().includes('/pod/api'), 'the old ID is gone');
    const after = w.spire.server.entries.all().find((e) => e.spiffeId.path === '/ns/team-a/sa/web-sa')!;
    expect(after).toEqual(before);
  });

  it('moves pods in and out of selection when a namespace label changes', async () => {
    w.kube.create(pod('team-b', 'api'));
    w.kube.create(pod('team-a', 'web'));
    await eventually(() => paths().includes('/ns/team-a/sa/web-sa'), 'team-a is selected');
    expect(paths()).toEqual(['/ns/team-a/sa/web-sa']);

    w.kube.update({ ...(w.kube.get('v1', 'Namespace', 'team-b') as object), metadata: { name: 'team-b', labels: { team: 'a' } } });
    await eventually(() => paths().includes('/ns/team-b/sa/api-sa'), 'team-b moved in');
    w.kube.update({ ...(w.kube.get('v1', 'Namespace', 'team-a') as object), metadata: { name: 'team-a', labels: { team: 'x' } } });
    await eventually(() => !paths().includes('/ns/team-a/sa/web-sa'), 'team-a moved out');
    expect(paths()).toEqual(['/ns/team-b/sa/api-sa']);
  });

  it('re-renders the entries whose parent ID depends on a relabelled node', async () => {
    await w.close();
    w = await startWorld({ parentIDTemplate: 'spiffe://{{ .TrustDomain }}/agent/{{ index .NodeMeta.Labels "zone" }}/{{ .NodeMeta.Name }}' });
    w.kube.create(ns('team-a', { team: 'a' }));
    w.kube.create(node('node-1', { zone: 'z1' }));
    w.kube.create(csid('by-sa', { spiffeIDTemplate: SA_TEMPLATE }));
    await w.start();
    w.kube.create(pod('team-a', 'web'));
    await eventually(() => w.spire.server.entries.all()[0]?.parentId.path === '/agent/z1/node-1', 'the first parent ID');
    const n = w.kube.get('v1', 'Node', 'node-1') as { metadata: Record<string, unknown> };
    w.kube.update({ ...n, metadata: { ...n.metadata, labels: { zone: 'z2' } } });
    await eventually(() => w.spire.server.entries.all().map((e) => e.parentId.path).join() === '/agent/z2/node-1', 'the new parent ID');
  });

  it('records one Warning event for a render failure, not one per pass', async () => {
    w.kube.create(csid('broken', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.missing }}', namespaceSelector: { matchLabels: { team: 'a' } } }));
    w.kube.create(pod('team-a', 'web'));
    const events = () => w.kube.list('v1', 'Event', 'default') as { reason: string; message: string; involvedObject: { kind: string; name: string } }[];
    await eventually(() => events().length === 1, 'an event is recorded');
    expect(events()[0]).toMatchObject({
      reason: 'RenderFailed',
      involvedObject: { kind: 'ClusterSPIFFEID', name: 'broken' },
      message: expect.stringContaining('pod team-a/web: failed to render SPIFFE ID: invalid SPIFFE ID "spiffe://example.org/<no value>"'),
    });
    const live = w.controllers[0]!.live;
    live.trigger();
    await live.idle();
    expect(events()).toHaveLength(1);
    w.kube.create(pod('team-a', 'db'));
    await eventually(() => events().some((e) => e.message.includes('team-a/db')), "the new pod's failure is recorded");
    // The pod pass for db reports nothing (the cause is known); the full pass after it reports the
    // object's failures as one message for both pods; passes after it add nothing.
    const settled = async () => {
      live.trigger();
      await live.idle();
      return events().some((e) => e.message.startsWith('2 pods: ') && e.message.endsWith('(e.g. team-a/db, team-a/web)'));
    };
    await eventually(settled, 'a full pass reports both pods in one message');
    const recorded = events().length;
    live.trigger();
    await live.idle();
    expect(events()).toHaveLength(recorded);
    expect(events().map((e) => e.message.split(':')[0]).sort()).toEqual(['2 pods', 'pod team-a/web']);
  });

  it('writes status stats that match, and an unchanged pass writes no status', async () => {
    w.kube.create(pod('team-a', 'web'));
    w.kube.create(pod('team-a', 'db'));
    await eventually(() => {
      const o = w.kube.get('spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID', 'by-sa') as { status?: { stats?: { entriesToSet?: number } } };
      return o.status?.stats?.entriesToSet === 2;
    }, 'the stats are written');
    const obj = w.kube.get('spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID', 'by-sa') as { status: unknown };
    expect(obj.status).toEqual({
      stats: { namespacesSelected: 1, namespacesIgnored: 0, podsSelected: 2, podEntryRenderFailures: 0, entriesMasked: 0, entriesToSet: 2, entryFailures: 0, entriesWithoutFederation: 0 },
    });
    const live = w.controllers[0]!.live;
    await live.idle();
    await live.statusWritesIdle();
    const statusWrites = () => w.kube.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/status')).length;
    const writes = statusWrites();
    // A change that touches nothing the engine reads (pod status) triggers nothing; a label change on
    // an unselected namespace triggers a pass that changes nothing and writes no status.
    w.kube.update({ ...(w.kube.get('v1', 'Namespace', 'team-b') as object), metadata: { name: 'team-b', labels: { team: 'b', extra: 'x' } } });
    const passes = live.passes();
    await eventually(() => live.passes() > passes, 'a pass ran');
    await live.idle();
    await live.statusWritesIdle();
    expect(statusWrites()).toBe(writes);
  });

  it('adds the DNS names of the services targeting a pod (autoPopulateDNSNames), and keeps them through a pod event', async () => {
    w.kube.create(csid('with-services', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/svc/{{ .PodMeta.Name }}', namespaceSelector: { matchLabels: { team: 'b' } }, autoPopulateDNSNames: true }));
    w.kube.create(pod('team-b', 'api'));
    await eventually(() => paths().includes('/svc/api'), 'the entry exists');
    const live = w.controllers[0]!.live;
    const relabel = async (version: string) => {
      const api = w.kube.get('v1', 'Pod', 'api', 'team-b') as { metadata: object };
      w.kube.update({ ...api, metadata: { ...api.metadata, labels: { app: 'api', version } } });
      await eventually(() => live.cache.get<{ metadata: { labels: Record<string, string> } }>('pods', 'api', 'team-b')?.metadata.labels.version === version, 'the pod event arrived');
      await live.idle();
    };
    // A pod pass before the EndpointSlice exists: the service index it builds must not outlive the slice's arrival.
    await relabel('1');
    w.kube.create({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'api-abc12', namespace: 'team-b', labels: { 'kubernetes.io/service-name': 'api' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.9'], targetRef: { kind: 'Pod', name: 'api', namespace: 'team-b', uid: uidOf('team-b', 'api') } }],
    });
    const dnsNames = () => w.spire.server.entries.all().find((e) => e.spiffeId.path === '/svc/api')?.dnsNames;
    const expected = ['api', 'api.team-b', 'api.team-b.svc', 'api.team-b.svc.cluster.local'];
    await eventually(() => JSON.stringify(dnsNames()) === JSON.stringify(expected), 'the service names are added');
    // A pod event is planned by a pod pass: it must see the services too, or it would drop the names.
    await relabel('2');
    expect(dnsNames()).toEqual(expected);
  });

  it('an idle resync lists the entries and renders nothing, but the next change is still reconciled', async () => {
    w.kube.create(pod('team-a', 'web'));
    await eventually(() => w.spire.server.entries.size === 1, 'the entry exists');
    const live = w.controllers[0]!.live;
    // Settle: the full pass after the pod events plans nothing, and is remembered.
    live.trigger();
    await live.idle();
    const lists = () => w.spire.server.calls.filter((c) => c.method === 'ListEntries').length;
    const renders = () => live.renderCounts().hits + live.renderCounts().misses;
    const [listed, rendered] = [lists(), renders()];
    // What gcInterval does: a full pass from a fresh list.
    live.resync();
    await live.idle();
    expect(lists()).toBeGreaterThan(listed);
    expect(renders()).toBe(rendered);

    // An entry deleted behind our back is seen by the list and restored.
    const [entry] = w.spire.server.entries.all();
    await w.spire.raw.entry.BatchDeleteEntry({ ids: [entry!.id] });
    live.resync();
    await eventually(() => w.spire.server.entries.size === 1 && w.spire.server.entries.all()[0]!.id !== entry!.id, 'the entry is back');

    // A cluster change after a remembered pass is reconciled as ever.
    w.kube.create(pod('team-a', 'api'));
    await eventually(() => paths().includes('/ns/team-a/sa/api-sa'), 'the new pod has its entry');
  });
});

describe('the live controller recovers from API server and SPIRE trouble without missing a change', () => {
  let w: World;
  const paths = () => w.spire.server.entries.all().map((e) => e.spiffeId.path).sort();
  beforeEach(async () => {
    w = await startWorld();
    w.kube.create(ns('default'));
    w.kube.create(node('node-1'));
    w.kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
    await w.start({ silenceMs: 1_500 });
    w.kube.create(pod('default', 'first'));
    await eventually(() => paths().includes('/pod/first'), 'the first entry');
  });
  afterEach(async () => {
    await w.close();
  });

  it('the watch stream is dropped', async () => {
    w.kube.faults.dropWatches();
    w.kube.create(pod('default', 'after-drop'));
    await eventually(() => paths().includes('/pod/after-drop'), 'the change after the drop');
  });

  it('the connection is reset mid-stream (client-node stops its informer for good on this)', async () => {
    w.kube.faults.dropWatches({ reset: true });
    w.kube.create(pod('default', 'after-reset'));
    await eventually(() => paths().includes('/pod/after-reset'), 'the change after the reset', 30_000);
  });

  it('the watch stream stalls', async () => {
    w.kube.faults.stallWatches(60_000);
    w.kube.create(pod('default', 'during-stall'));
    await eventually(() => paths().includes('/pod/during-stall'), 'the change made during the stall', 30_000);
  });

  it('resourceVersions expire (410 Gone)', async () => {
    w.kube.faults.expireResourceVersions();
    w.kube.create(pod('default', 'after-410'));
    await eventually(() => paths().includes('/pod/after-410'), 'the change after 410');
  });

  it('lists fail with 500 for a while', async () => {
    w.kube.faults.failNext(3, 500, { method: 'GET' });
    w.kube.faults.dropWatches();
    w.kube.create(pod('default', 'after-500'));
    await eventually(() => paths().includes('/pod/after-500'), 'the change after the errors', 30_000);
  });

  it('SPIRE restarts in the middle of a pass, and the next pass converges', async () => {
    w.spire.server.faults.stall();
    const from = w.spire.server.calls.length;
    w.kube.create(pod('default', 'during-restart'));
    // A write held by the stall: the pod's create, or the first full pass's probe if that pass is still under way.
    await eventually(() => w.spire.server.calls.slice(from).some((c) => c.method === 'BatchCreateEntry'), 'a pass is waiting on SPIRE');
    await w.spire.server.stop();
    await new Promise((r) => setTimeout(r, 200));
    await w.spire.server.resume();
    await eventually(() => paths().includes('/pod/during-restart'), 'the entry after the restart', 30_000);
  });
});

describe('spire_reconciler_entries_total counts every entry written, whichever pass wrote it', () => {
  it('counts the entries written at start and for pod events', async () => {
    const w = await worldWithPods(3);
    try {
      const metrics = new ControllerMetrics();
      const created = async () => value(parseExposition((await metrics.expose()).body), 'spire_reconciler_entries_total', { op: 'created' });
      const live = await w.start({ metrics });
      await eventually(() => w.spire.server.entries.size === 3, 'the entries of the listed pods');
      await live.idle();
      expect(await created()).toBe(3);
      // A pod event is written by a pod pass, not a full pass: it counts all the same.
      w.kube.create(pod('default', 'p-3'));
      await eventually(() => w.spire.server.entries.size === 4, 'the new pod has its entry');
      await live.idle();
      expect(await created()).toBe(4);
    } finally {
      await w.close();
    }
  });
});

describe('every gcInterval, a full pass lists SPIRE again', () => {
  it('lists at each tick, not at every other one', async () => {
    const w = await startWorld({ gcIntervalMs: 400 });
    try {
      w.kube.create(ns('default'));
      w.kube.create(node('node-1'));
      w.kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
      w.kube.create(pod('default', 'p-0'));
      const live = await w.start();
      await eventually(() => w.spire.server.entries.size === 1, 'the entry exists');
      await live.idle();
      const fullLists = () => w.spire.server.calls.filter((c) => c.method === 'ListEntries' && c.pageToken === '').length;
      const [passes, lists] = [live.passes(), fullLists()];
      // Nothing changes: every pass from here is a gcInterval tick.
      await eventually(() => live.passes() >= passes + 6, 'six more passes');
      await live.idle();
      // One pass may be the full pass that follows pod events; every other one must have listed.
      // (Before: the previous list, finished just after the previous tick, was not yet gcInterval
      // old, so only every other tick listed.)
      expect(fullLists() - lists).toBeGreaterThanOrEqual(live.passes() - passes - 1);
    } finally {
      await w.close();
    }
  });
});

describe('at start, pods get their entries while the rest of the pods are still being listed', () => {
  it('writes the entries of the pods listed so far before the pod list completes, and deletes nothing until it has', async () => {
    // Two pages at the list's page size of 500.
    const w = await worldWithPods(600);
    try {
      // An entry of ours for a pod that is gone: only a pass that has seen every pod may delete it.
      const stale = await w.spire.raw.entry.BatchCreateEntry({
        entries: [{ id: 'scm-demo.stale', parent_id: { trust_domain: 'example.org', path: '/node' }, spiffe_id: { trust_domain: 'example.org', path: '/pod/gone' }, selectors: [{ type: 'k8s', value: 'pod-uid:gone' }] }],
      });
      expect(stale.results[0]?.status?.code).toBe(0);
      // The pages after the first fail for a while, so the pod list takes seconds to complete.
      w.kube.faults.failNext(2, 500, { pathIncludes: '/pods', queryIncludes: 'continue=' });

      const live = await w.start();
      const podPaths = () => w.spire.server.entries.all().filter((e) => e.spiffeId.path.startsWith('/pod/p-')).length;
      await eventually(() => podPaths() >= 500, "the first page's entries");
      expect(live.cache.unsynced()).toEqual(['pods']);
      expect(podPaths()).toBe(500);
      expect(w.spire.server.entries.all().map((e) => e.id)).toContain('scm-demo.stale');

      await eventually(() => podPaths() === 600 && !w.spire.server.entries.all().some((e) => e.id === 'scm-demo.stale'), 'every entry, and the stale one gone');
    } finally {
      await w.close();
    }
  });
});

describe('the live controller stops cleanly while SPIRE has never answered', () => {
  it('returns and shuts down when stopped during the wait for the SPIRE socket', async () => {
    const w = await startWorld();
    const stop = new AbortController();
    const config = { ...w.config, spireServerSocketPath: `${w.spire.socketPath}.nobody-listens` };
    try {
      const starting = startLive({ config, pass: passOptions(config), kc: w.kube.kubeConfig(), log: pino({ level: 'silent' }), signal: stop.signal });
      await eventually(() => w.kube.requests.some((r) => r.path === '/api/v1/pods'), 'the pod informer lists');
      stop.abort();
      // Before, the wait for SPIRE had no end: startLive never returned, and SIGTERM needed a SIGKILL.
      const live = await starting;
      await live.done;
      // It was pointed at the socket nobody listens on: the SPIRE server of the world heard nothing.
      expect(w.spire.server.calls).toEqual([]);
    } finally {
      stop.abort();
      await w.close();
    }
  });
});

describe('with reconcile.clusterSPIFFEIDs off, pod traffic costs nothing', () => {
  it('runs no pass for pod, namespace or node events, and still syncs ClusterStaticEntries', async () => {
    const w = await startWorld({ reconcile: { clusterSPIFFEIDs: false, clusterStaticEntries: true, clusterFederatedTrustDomains: true } });
    try {
      w.kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
      w.kube.create({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', metadata: { name: 'gw' }, spec: { spiffeID: 'spiffe://example.org/gw', parentID: 'spiffe://example.org/spire/server', selectors: ['unix:uid:1000'] } });
      const live = await w.start();
      await eventually(() => w.spire.server.entries.all().some((e) => e.spiffeId.path === '/gw'), 'the static entry exists');
      await live.idle();
      const passes = live.passes();
      w.kube.create(ns('default'));
      w.kube.create(node('node-1'));
      for (let i = 0; i < 5; i++) w.kube.create(pod('default', `p${i}`));
      await eventually(() => live.cache.items('pods').length === 5, 'the pods are cached');
      await live.idle();
      expect(live.passes()).toBe(passes);
      expect(w.spire.server.entries.all().map((e) => e.spiffeId.path)).toEqual(['/gw']);
    } finally {
      await w.close();
    }
  });
});
