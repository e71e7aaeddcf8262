import type { KubernetesObject } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listAll } from '../../src/kube/rest.js';
import { type RelistReason, ResilientInformer, staleResourceVersion, WATCH_STALL_MS, WATCH_TIMEOUT_SECONDS } from '../../src/kube/informer.js';
import { eventually } from '../kube-apiserver/helpers.js';
import { FakeKubeApiServer } from '../support/kube/index.js';

const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
const names = (i: ResilientInformer<KubernetesObject>) => i.list().map((p) => p.metadata?.name).sort();

describe('an informer relists as client-go does when it cannot watch on from its resourceVersion, and says its cache may be stale meanwhile', () => {
  let kube: FakeKubeApiServer;
  let informer: ResilientInformer<KubernetesObject> | undefined;
  const relists: RelistReason[] = [];
  const start = async (over: { stallMs?: number; watchTimeoutSeconds?: number } = {}) => {
    informer = new ResilientInformer<KubernetesObject>(kube.kubeConfig(), {
      name: 'pods',
      path: '/api/v1/pods',
      list: () => listAll(kube.kubeConfig(), '/api/v1/pods'),
      onChange: () => {},
      onRelist: (r) => relists.push(r),
      ...over,
    });
    await informer.start();
    return informer;
  };
  beforeEach(async () => {
    kube = await FakeKubeApiServer.start({ bookmarkIntervalMs: 100 });
    relists.length = 0;
  });
  afterEach(async () => {
    informer?.stop();
    await kube.close();
  });

  it('after the API server comes back from a backup (its resourceVersion behind ours), relists and follows it again', async () => {
    kube.create(pod('a'));
    const backup = kube.faults.backup();
    kube.create(pod('made-after-the-backup'));
    const i = await start({ watchTimeoutSeconds: 1 });
    await eventually(() => names(i).length === 2, 'the first list');
    kube.faults.restoreBackup(backup);
    // The server accepts the watch from our (now future) resourceVersion and sends nothing, not even
    // bookmarks; asked whether it can serve that version, it answers "Too large resource version".
    await eventually(() => relists.includes('resource-version-too-large'), 'a relist', 20_000);
    await eventually(() => names(i).join() === 'a', 'the restored state');
    kube.create(pod('after-the-restore'));
    kube.delete('v1', 'Pod', 'a', 'default');
    await eventually(() => names(i).join() === 'after-the-restore', 'changes after the restore', 20_000);
    expect(i.staleness).toBeUndefined();
  });

  it('gives up a stalled stream after stallMs, not client-node 30 s, and resumes without a relist', async () => {
    const i = await start({ stallMs: 1_000 });
    await eventually(() => kube.requests.some((r) => r.query.includes('watch=true')), 'the watch');
    kube.faults.stallWatches('forever');
    kube.create(pod('during-the-stall'));
    await eventually(() => names(i).join() === 'during-the-stall', 'the change made during the stall', 10_000);
    expect(relists).toEqual([]);
    // Each stream asks the server to end it, and for bookmarks: what makes a short stall bound safe.
    const watches = kube.requests.filter((r) => r.query.includes('watch=true'));
    expect(new URLSearchParams(watches[0]!.query).get('timeoutSeconds')).toBe(String(WATCH_TIMEOUT_SECONDS));
    expect(new URLSearchParams(watches[0]!.query).get('allowWatchBookmarks')).toBe('true');
    expect(watches.length).toBeGreaterThan(1);
  });

  it('marks its cache stale while lists fail, and clears it once one succeeds', async () => {
    const i = await start();
    kube.faults.failNext(3, 500, { method: 'GET', pathIncludes: '/pods' });
    kube.faults.expireResourceVersions();
    await eventually(() => i.staleness !== undefined, 'the cache is marked stale');
    expect(relists).toEqual(['expired']);
    await eventually(() => i.staleness === undefined, 'a list succeeds', 20_000);
  });
});

describe('an informer with relistMs lists afresh on schedule, a routine step rather than a fault', () => {
  it('relists every relistMs after its last list, with reason periodic, no error and no staleness, and its cache follows', async () => {
    const kube = await FakeKubeApiServer.start({ bookmarkIntervalMs: 100 });
    const relists: RelistReason[] = [];
    const errors: unknown[] = [];
    let staleSeen = false;
    const informer = new ResilientInformer<KubernetesObject>(kube.kubeConfig(), {
      name: 'pods',
      path: '/api/v1/pods',
      list: () => listAll(kube.kubeConfig(), '/api/v1/pods'),
      onChange: () => {},
      onRelist: (r) => relists.push(r),
      onError: (err) => errors.push(err),
      relistMs: 400,
    });
    try {
      kube.create(pod('a'));
      await informer.start();
      const lists = () => kube.requests.filter((r) => r.path === '/api/v1/pods' && !r.query.includes('watch=true') && !r.query.includes('resourceVersionMatch')).length;
      const timer = setInterval(() => (staleSeen ||= informer.staleness !== undefined), 10);
      await eventually(() => lists() >= 4, 'three relists after the first list', 10_000);
      clearInterval(timer);
      expect(new Set(relists)).toEqual(new Set(['periodic']));
      expect(errors).toEqual([]);
      expect(staleSeen).toBe(false);
      // Between relists the watch goes on as ever: a change arrives at once.
      kube.create(pod('b'));
      await eventually(() => names(informer).join() === 'a,b', 'the watched change');
    } finally {
      informer.stop();
      await kube.close();
    }
  });
});

describe('an informer outlives a change handler that throws', () => {
  it('reports the failure, naming the object, and keeps applying later events', async () => {
    const kube = await FakeKubeApiServer.start();
    const errors: string[] = [];
    const seen: string[] = [];
    const informer = new ResilientInformer<KubernetesObject>(kube.kubeConfig(), {
      name: 'pods',
      path: '/api/v1/pods',
      list: () => listAll(kube.kubeConfig(), '/api/v1/pods'),
      onChange: (kind, obj) => {
        if (obj.metadata?.name === 'bad') throw new Error('handler bug');
        seen.push(`${kind} ${obj.metadata?.name}`);
      },
      onError: (err) => errors.push((err as Error).message),
    });
    try {
      await informer.start();
      kube.create(pod('bad'));
      kube.create(pod('good'));
      await eventually(() => seen.includes('add good'), 'the event after the failing one');
      expect(errors).toEqual(['pods: the change handler failed on the add of default/bad: handler bug']);
      expect(names(informer)).toEqual(['bad', 'good']);
    } finally {
      informer.stop();
      await kube.close();
    }
  });
});

describe('the watch timing is documented and within what the brief promises', () => {
  it('detects a stall sooner than client-node (30 s), and rotates streams faster than that', () => {
    expect(WATCH_STALL_MS).toBeLessThan(30_000);
    expect(WATCH_TIMEOUT_SECONDS * 1000).toBeLessThan(WATCH_STALL_MS);
  });
});

describe('a watch ERROR event is read as client-go reads it', () => {
  it('410 Expired and Gone are expired; 504 with a ResourceVersionTooLarge cause, or the older message, is too large; others are neither', () => {
    expect(staleResourceVersion({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' })).toBe('expired');
    expect(staleResourceVersion({ kind: 'Status', code: 410, reason: 'Gone' })).toBe('expired');
    expect(
      staleResourceVersion({
        kind: 'Status',
        code: 504,
        reason: 'Timeout',
        message: 'Too large resource version: 900, current: 12',
        details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
      }),
    ).toBe('resource-version-too-large');
    // Kubernetes 1.17.0-1.18.5: the cause's message only; before 1.17: the Status message only.
    expect(staleResourceVersion({ code: 504, reason: 'Timeout', details: { causes: [{ message: 'Too large resource version' }] } })).toBe('resource-version-too-large');
    expect(staleResourceVersion({ code: 504, reason: 'Timeout', message: 'Too large resource version: 900, current: 12' })).toBe('resource-version-too-large');
    expect(staleResourceVersion({ code: 500, reason: 'InternalError', message: 'etcd is down' })).toBeUndefined();
    expect(staleResourceVersion(undefined)).toBeUndefined();
  });
});
