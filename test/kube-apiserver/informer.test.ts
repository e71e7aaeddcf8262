import {
  CoreV1Api,
  type KubeConfig,
  ListWatch,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
  Watch,
} from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { eventually, listsAndWatches, pod, queryOf } from './helpers.js';

const PODS = '/api/v1/namespaces/team-a/pods';

/** An informer on team-a's pods that records what it reports, as "verb name". */
function recordingInformer(kc: KubeConfig, watch?: Watch) {
  const core = kc.makeApiClient(CoreV1Api);
  const list = () => core.listNamespacedPod({ namespace: 'team-a' });
  // makeInformer is a ListWatch that does not start itself; the cast exposes latestResourceVersion().
  const informer = watch ? new ListWatch<V1Pod>(PODS, watch, list, false) : (makeInformer<V1Pod>(kc, PODS, list) as ListWatch<V1Pod>);
  const seen: string[] = [];
  const errors: unknown[] = [];
  let connects = 0;
  informer.on('add', (p) => seen.push(`add ${p.metadata?.name}`));
  informer.on('update', (p) => seen.push(`update ${p.metadata?.name} ${JSON.stringify(p.metadata?.labels ?? {})}`));
  informer.on('delete', (p) => seen.push(`delete ${p.metadata?.name}`));
  informer.on('error', (e) => errors.push(e));
  informer.on('connect', () => connects++);
  return { informer, seen, errors, connects: () => connects, core };
}

describe("client-node's informer sees every change through the fake API server", () => {
  let server: FakeKubeApiServer;
  let kc: KubeConfig;
  let stop: () => Promise<void> = async () => {};

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    kc = server.kubeConfig();
  });
  afterEach(async () => {
    await stop();
    await server.close();
  });

  it('lists what exists, then sees creates, updates and deletes made over HTTP and directly', async () => {
    server.create(pod('team-a', 'existing'));
    server.create(pod('team-b', 'elsewhere'));
    const { informer, seen, errors, core } = recordingInformer(kc);
    stop = () => informer.stop();
    await informer.start();
    expect(seen).toEqual(['add existing']);

    await core.createNamespacedPod({ namespace: 'team-a', body: pod('team-a', 'web') });
    await core.patchNamespacedPod(
      { namespace: 'team-a', name: 'web', body: { metadata: { labels: { tier: 'front' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    server.delete('v1', 'Pod', 'existing', 'team-a');
    await core.deleteNamespacedPod({ namespace: 'team-a', name: 'web' });
    await eventually(() => seen.length === 5, 'five notifications');

    expect(seen).toEqual(['add existing', 'add web', 'update web {"tier":"front"}', 'delete existing', 'delete web']);
    expect(informer.list()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('after a dropped stream, reconnects from its resourceVersion (no relist) and sees later changes', async () => {
    const { informer, seen, errors } = recordingInformer(kc);
    stop = () => informer.stop();
    await informer.start();
    server.create(pod('team-a', 'before'));
    await eventually(() => seen.includes('add before'), 'the first pod');
    const rvBeforeDrop = informer.latestResourceVersion();

    server.faults.dropWatches();
    server.create(pod('team-a', 'after'));
    await eventually(() => seen.includes('add after'), 'the pod created after the drop');

    const { lists, watches } = listsAndWatches(server, PODS);
    expect(lists).toHaveLength(1);
    expect(watches).toHaveLength(2);
    expect(queryOf(watches[1]!).get('resourceVersion')).toBe(rvBeforeDrop);
    expect(errors).toEqual([]);
  });

  it('on 410 Expired, resets its resourceVersion and relists, keeping the change it had not seen', async () => {
    server.create(pod('team-a', 'kept'));
    const { informer, seen, errors, connects } = recordingInformer(kc);
    stop = () => informer.stop();
    await informer.start();
    expect(seen).toEqual(['add kept']);

    // The change happens while the stream is silent, then history is compacted:
    // only a fresh list can bring it.
    server.faults.stallWatches('forever');
    server.create(pod('team-a', 'missed'));
    server.delete('v1', 'Pod', 'kept', 'team-a');
    server.faults.expireResourceVersions();

    await eventually(() => seen.includes('add missed') && seen.includes('delete kept'), 'the relist');
    expect(listsAndWatches(server, PODS).lists).toHaveLength(2);
    // After the relist it watches from the list's resourceVersion.
    await eventually(() => listsAndWatches(server, PODS).watches.length === 2, 'the new watch');
    expect(queryOf(listsAndWatches(server, PODS).watches[1]!).get('resourceVersion')).toBe(String(server.resourceVersion));
    expect(connects()).toBe(2);
    expect(errors).toEqual([]);
    expect(informer.list().map((p) => p.metadata?.name)).toEqual(['missed']);
  });

  it('emits error and stays stopped when its list fails (client-node 2.0.1 does not retry)', async () => {
    server.faults.failNext(1, 500, { method: 'GET', pathIncludes: '/pods' });
    server.create(pod('team-a', 'web'));
    const { informer, seen, errors } = recordingInformer(kc);
    stop = () => informer.stop();
    await informer.start();

    expect(errors).toHaveLength(1);
    expect((errors[0] as { code?: number }).code).toBe(500);
    expect(seen).toEqual([]);
    expect(listsAndWatches(server, PODS).watches).toHaveLength(0);
    expect(server.openWatches).toBe(0);

    // What the controller must do: start it again.
    await informer.start();
    expect(seen).toEqual(['add web']);
  });

  it('stops with an error when the connection is reset mid-stream (not a clean end)', async () => {
    const { informer, errors } = recordingInformer(kc);
    stop = () => informer.stop();
    await informer.start();
    server.faults.dropWatches({ reset: true });
    await eventually(() => errors.length === 1, 'the error');
    expect(listsAndWatches(server, PODS).watches).toHaveLength(1);
  });

  it('moves its resourceVersion forward on bookmarks when its Watch asks for them', async () => {
    class BookmarkWatch extends Watch {
      override watch(
        path: string,
        query: Record<string, string | number | boolean | undefined>,
        callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
        done: (err: unknown) => void,
      ): Promise<AbortController> {
        return super.watch(path, { ...query, allowWatchBookmarks: true }, callback, done);
      }
    }
    const { informer, seen } = recordingInformer(kc, new BookmarkWatch(kc));
    stop = () => informer.stop();
    await informer.start();
    const listed = informer.latestResourceVersion();
    // Writes elsewhere move the global resourceVersion; only a bookmark tells this informer.
    server.create(pod('team-b', 'other'));
    server.bookmarkNow();
    await eventually(() => informer.latestResourceVersion() !== listed, 'the bookmark');
    expect(informer.latestResourceVersion()).toBe(String(server.resourceVersion));
    expect(seen).toEqual([]);
  });
});

describe('what client-node 2.0.1 does with what the fake serves, that a controller must allow for', () => {
  let server: FakeKubeApiServer;
  let stop: () => Promise<void> = async () => {};

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
  });
  afterEach(async () => {
    await stop();
    await server.close();
  });

  it('the cache mixes shapes: listed objects are models without kind, watched objects are plain JSON with kind', async () => {
    server.create(pod('team-a', 'listed'));
    const { informer, seen } = recordingInformer(server.kubeConfig());
    stop = () => informer.stop();
    await informer.start();
    server.create(pod('team-a', 'watched'));
    await eventually(() => seen.includes('add watched'), 'the watched pod');

    const listed = informer.get('listed', 'team-a')!;
    const watched = informer.get('watched', 'team-a')!;
    expect(listed.kind).toBeUndefined();
    expect(listed.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(watched.kind).toBe('Pod');
    expect(typeof watched.metadata?.creationTimestamp).toBe('string');
  });
});
