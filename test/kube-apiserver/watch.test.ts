import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { eventually, failure, pod, RecordedWatch, type WatchQuery } from './helpers.js';

const PODS = '/api/v1/namespaces/team-a/pods';

describe("client-node's Watch gets the API server's watch protocol from the fake", () => {
  let server: FakeKubeApiServer;
  let kc: KubeConfig;
  const open: RecordedWatch[] = [];
  const watch = async (path: string, query: WatchQuery = {}) => {
    const w = await RecordedWatch.open(kc, path, query);
    open.push(w);
    return w;
  };

  beforeEach(async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    kc = server.kubeConfig();
  });
  afterEach(async () => {
    for (const w of open.splice(0)) w.stop();
    await server.close();
  });

  it('without a resourceVersion, gets the current objects as ADDED, then live events', async () => {
    server.create(pod('team-a', 'a'));
    server.create(pod('team-a', 'b'));
    const w = await watch(PODS);
    await eventually(() => w.events.length === 2, 'the initial state');
    server.create(pod('team-a', 'c'));
    await eventually(() => w.events.length === 3, 'the live event');
    expect(w.summary()).toEqual(['ADDED a', 'ADDED b', 'ADDED c']);
    // Watch events carry kind and apiVersion, and the object's resourceVersion.
    expect(w.events[2]!.object.kind).toBe('Pod');
    expect(w.events[2]!.object.apiVersion).toBe('v1');
    expect(w.events[2]!.object.metadata?.resourceVersion).toBe(String(server.resourceVersion));
  });

  it('from a resourceVersion, replays only the later events, in order', async () => {
    server.create(pod('team-a', 'a'));
    const b = server.create(pod('team-a', 'b'));
    server.patch('v1', 'Pod', 'a', { metadata: { labels: { v: '2' } } }, 'team-a');
    server.delete('v1', 'Pod', 'b', 'team-a');
    server.create(pod('team-b', 'not-in-team-a'));
    const w = await watch(PODS, { resourceVersion: b.metadata!.resourceVersion });
    await eventually(() => w.events.length === 2, 'the replay');
    server.create(pod('team-a', 'c'));
    await eventually(() => w.events.length === 3, 'the live event');
    expect(w.summary()).toEqual(['MODIFIED a', 'DELETED b', 'ADDED c']);
    const rvs = w.events.map((e) => Number(e.object.metadata?.resourceVersion));
    expect([...rvs].sort((x, y) => x - y)).toEqual(rvs);
    expect(rvs[0]).toBeGreaterThan(Number(b.metadata!.resourceVersion));
  });

  it('from a compacted resourceVersion, gets an ERROR event with a 410 Expired Status, and the stream ends', async () => {
    const a = server.create(pod('team-a', 'a'));
    server.create(pod('team-a', 'b'));
    server.faults.expireResourceVersions();
    const w = await watch(PODS, { resourceVersion: a.metadata!.resourceVersion });
    await eventually(() => w.ended, 'the end of the stream');
    expect(w.events).toHaveLength(1);
    expect(w.events[0]!.type).toBe('ERROR');
    expect(w.events[0]!.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(w.endError).toBeNull();
  });

  it('drops history beyond eventHistory: an old resourceVersion then expires', async () => {
    await server.close();
    server = await FakeKubeApiServer.start({ eventHistory: 3, bookmarkIntervalMs: 0 });
    kc = server.kubeConfig();
    const first = server.create(pod('team-a', 'p0'));
    for (let i = 1; i <= 4; i++) server.create(pod('team-a', `p${i}`));
    const tooOld = await watch(PODS, { resourceVersion: first.metadata!.resourceVersion });
    const recent = await watch(PODS, { resourceVersion: String(server.resourceVersion - 3) });
    await eventually(() => tooOld.ended && recent.events.length === 3, 'both answers');
    expect(tooOld.events[0]!.object.code).toBe(410);
    expect(recent.summary()).toEqual(['ADDED p2', 'ADDED p3', 'ADDED p4']);
  });

  it('reports objects entering and leaving a label selector as ADDED and DELETED', async () => {
    const w = await watch(PODS, { labelSelector: 'app=web' });
    server.create(pod('team-a', 'x', { app: 'web' }));
    server.create(pod('team-a', 'other', { app: 'db' }));
    server.patch('v1', 'Pod', 'x', { metadata: { labels: { app: 'db' } } }, 'team-a');
    server.patch('v1', 'Pod', 'x', { metadata: { labels: { app: 'web' } } }, 'team-a');
    server.patch('v1', 'Pod', 'x', { metadata: { labels: { app: 'web', v: '2' } } }, 'team-a');
    server.delete('v1', 'Pod', 'other', 'team-a');
    await eventually(() => w.events.length === 4, 'four events');
    expect(w.summary()).toEqual(['ADDED x', 'DELETED x', 'ADDED x', 'MODIFIED x']);
  });

  it('applies field selectors, including spec.nodeName on pods across namespaces', async () => {
    const w = await watch('/api/v1/pods', { fieldSelector: 'spec.nodeName=node-1,metadata.namespace!=kube-system' });
    server.create(pod('team-a', 'on-1', {}, { nodeName: 'node-1' }));
    server.create(pod('team-b', 'also-on-1', {}, { nodeName: 'node-1' }));
    server.create(pod('kube-system', 'system', {}, { nodeName: 'node-1' }));
    server.create(pod('team-a', 'on-2', {}, { nodeName: 'node-2' }));
    server.create(pod('team-a', 'last', {}, { nodeName: 'node-1' }));
    await eventually(() => w.events.length === 3, 'three events');
    expect(w.summary()).toEqual(['ADDED on-1', 'ADDED also-on-1', 'ADDED last']);
  });

  it('rejects an unsupported field selector with 400, before streaming', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const f = await failure(core.listNamespacedPod({ namespace: 'team-a', watch: true, fieldSelector: 'spec.hostname=x' }));
    expect(f.code).toBe(400);
    expect(f.message).toContain('field label not supported: spec.hostname');
  });

  it('sends BOOKMARKs only when asked (allowWatchBookmarks), with just kind, apiVersion and the resourceVersion', async () => {
    const plain = await watch(PODS);
    const withBookmarks = await watch(PODS, { allowWatchBookmarks: true });
    server.create(pod('team-b', 'elsewhere'));
    server.bookmarkNow();
    server.create(pod('team-a', 'here'));
    await eventually(() => plain.events.length === 1 && withBookmarks.events.length === 2, 'the events');
    expect(plain.summary()).toEqual(['ADDED here']);
    expect(withBookmarks.events[0]).toEqual({
      type: 'BOOKMARK',
      object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: String(server.resourceVersion - 1) } },
    });
  });

  it('sends BOOKMARKs at the configured interval while the store moves on, and none while nothing changes (as kube-apiserver)', async () => {
    await server.close();
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 20 });
    kc = server.kubeConfig();
    const w = await watch(PODS, { allowWatchBookmarks: true });
    await new Promise((r) => setTimeout(r, 200));
    expect(w.bookmarks()).toEqual([]);
    // The store moves on with objects of another kind: progress a bookmark reports.
    let n = 0;
    const other = setInterval(() => server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `moving-${n++}` } } as never), 30);
    try {
      await eventually(() => w.bookmarks().length >= 3, 'three bookmarks');
    } finally {
      clearInterval(other);
    }
    expect(w.summary()).toEqual([]);
  });

  it('with sendInitialEvents, marks the end of the initial state with an annotated BOOKMARK', async () => {
    server.create(pod('team-a', 'a'));
    const w = await watch(PODS, { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
    await eventually(() => w.events.length === 2, 'the initial state');
    expect(w.events[0]!.type).toBe('ADDED');
    expect(w.events[1]!.type).toBe('BOOKMARK');
    expect(w.events[1]!.object.metadata?.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
  });

  it('ends the stream cleanly after timeoutSeconds', async () => {
    const w = await watch(PODS, { timeoutSeconds: 1 });
    await eventually(() => w.ended, 'the server to end the stream');
    expect(w.endError).toBeNull();
    expect(server.openWatches).toBe(0);
  });

  it('a stalled stream sends nothing (no bookmarks either) while a stream opened afterwards works', async () => {
    const stalled = await watch(PODS, { allowWatchBookmarks: true });
    server.faults.stallWatches('forever');
    const fresh = await watch(PODS, { allowWatchBookmarks: true });
    server.create(pod('team-a', 'a'));
    server.bookmarkNow();
    server.create(pod('team-a', 'b'));
    await eventually(() => fresh.events.length === 3, 'the fresh stream');
    expect(stalled.events).toEqual([]);
    expect(stalled.ended).toBe(false);

    // A later call replaces the stall; 0 resumes at once, with what queued up.
    server.faults.stallWatches(0);
    await eventually(() => stalled.events.length === 2, 'the queued events');
    expect(stalled.summary()).toEqual(['ADDED a', 'ADDED b']);
  });

  it('a stall for some milliseconds delivers the queued events when it ends', async () => {
    const w = await watch(PODS);
    server.faults.stallWatches(50);
    server.create(pod('team-a', 'c'));
    await eventually(() => w.events.length === 1, 'the queued event after the stall');
    expect(w.summary()).toEqual(['ADDED c']);
  });

  it('on expireResourceVersions, open streams get ERROR 410 and end', async () => {
    const w = await watch(PODS);
    server.faults.expireResourceVersions();
    await eventually(() => w.ended, 'the end');
    expect(w.events.map((e) => [e.type, e.object.code])).toEqual([['ERROR', 410]]);
  });

  it('watches one object through its own path', async () => {
    server.create(pod('team-a', 'a'));
    const w = await watch(`${PODS}/a`);
    server.create(pod('team-a', 'b'));
    server.patch('v1', 'Pod', 'a', { metadata: { labels: { x: 'y' } } }, 'team-a');
    await eventually(() => w.events.length === 2, 'two events');
    expect(w.summary()).toEqual(['ADDED a', 'MODIFIED a']);
  });

  it('accepts a plain watch from a resourceVersion it has not reached, and sends nothing until it passes it', async () => {
    await server.close();
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 50 });
    kc = server.kubeConfig();
    server.create(pod('team-a', 'a'));
    const ahead = server.resourceVersion + 2;
    const w = await watch(PODS, { resourceVersion: String(ahead), allowWatchBookmarks: true });
    server.create(pod('team-a', 'b')); // ahead - 1
    await new Promise((r) => setTimeout(r, 300));
    // No event and no bookmark: either would take the watcher back before where it started.
    expect(w.events).toEqual([]);
    expect(w.ended).toBe(false);
    server.create(pod('team-a', 'c')); // ahead
    server.create(pod('team-a', 'd')); // ahead + 1
    await eventually(() => w.summary().length === 1, 'the event after it');
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'elsewhere' } } as never); // ahead + 2
    await eventually(() => w.bookmarks().length > 0, 'bookmarks again, once the store moves on');
    expect(w.summary()).toEqual(['ADDED d']);
  });

  it('answers a watch that asks for the initial events from a resourceVersion it has not reached with one ERROR event: 504, ResourceVersionTooLarge', async () => {
    const w = await watch(PODS, { resourceVersion: String(server.resourceVersion + 100), resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true });
    await eventually(() => w.ended, 'the end of the stream', 10_000);
    expect(w.events).toHaveLength(1);
    expect(w.events[0]!.type).toBe('ERROR');
    expect(w.events[0]!.object).toMatchObject({
      kind: 'Status',
      code: 504,
      reason: 'Timeout',
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
    });
  });

  it('answers a list from a resourceVersion it has not reached with 504 Timeout after waiting for it', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const f = await failure(core.listNamespacedPod({ namespace: 'team-a', resourceVersion: String(server.resourceVersion + 100) }));
    expect(f.code).toBe(504);
    expect(f.reason).toBe('Timeout');
    expect(f.message).toContain('Too large resource version');
  });

  it('comes back from a backup: objects as they were, a lower resourceVersion, open watches dropped', async () => {
    server.create(pod('team-a', 'a'));
    const backup = server.faults.backup();
    const before = server.resourceVersion;
    server.create(pod('team-a', 'b'));
    const w = await watch(PODS, { resourceVersion: String(server.resourceVersion) });
    server.faults.restoreBackup(backup);
    await eventually(() => w.ended, 'the watch is dropped');
    expect(server.resourceVersion).toBe(before);
    expect(server.list('v1', 'Pod', 'team-a').map((p) => (p as { metadata: { name: string } }).metadata.name)).toEqual(['a']);
  });
});
