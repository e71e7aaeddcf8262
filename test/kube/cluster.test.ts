import type { KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterCache } from '../../src/kube/cluster.js';
import { eventually } from '../kube-apiserver/helpers.js';
import { FakeKubeApiServer } from '../support/kube/index.js';

const log = pino({ level: 'silent' });
const pod = (name: string, labels: Record<string, string> = { app: name }) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels },
  spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'i' }] },
});

describe('after a relist, only what changed in the gap is reported', () => {
  let kube: FakeKubeApiServer;
  let cache: ClusterCache | undefined;
  beforeEach(async () => {
    // Frequent bookmarks keep healthy streams from looking silent to the short silence watchdog below.
    kube = await FakeKubeApiServer.start({ bookmarkIntervalMs: 50 });
  });
  afterEach(async () => {
    cache?.stop();
    await kube.close();
  });

  it('reports the pod changed in the gap, not the unchanged one, and the cache drops the deleted one, as listed', async () => {
    kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    for (const name of ['same', 'changed', 'gone']) kube.create(pod(name));
    const changes: string[] = [];
    let podResyncs = 0;
    cache = new ClusterCache({
      kc: kube.kubeConfig(),
      log,
      silenceMs: 500,
      onChange: (resource, change?: { kind: string; obj: KubernetesObject; listed: boolean }) => {
        if (resource !== 'pods') return;
        if (change) changes.push(`${change.kind} ${change.obj.metadata?.name}${change.listed ? ' (listed)' : ''}`);
        else podResyncs++;
      },
    });
    await cache.start();
    expect(changes.sort()).toEqual(['add changed (listed)', 'add gone (listed)', 'add same (listed)']);
    changes.length = 0;

    // Silent streams make every informer relist; what happens meanwhile reaches it only through the new list.
    kube.faults.stallWatches('forever');
    kube.patch('v1', 'Pod', 'changed', { metadata: { labels: { app: 'changed', tier: 'new' } } }, 'default');
    kube.delete('v1', 'Pod', 'gone', 'default');
    await eventually(() => podResyncs > 0, 'the pod informer relists');

    expect(changes).toEqual(['add changed (listed)']);
    expect(cache.items<KubernetesObject>('pods').map((p) => p.metadata?.name).sort()).toEqual(['changed', 'same']);
  });
});

describe('a watched change is compared with the object it replaces', () => {
  let kube: FakeKubeApiServer;
  let cache: ClusterCache | undefined;
  beforeEach(async () => {
    kube = await FakeKubeApiServer.start();
  });
  afterEach(async () => {
    cache?.stop();
    await kube.close();
  });

  it('reports a label change, not a change to a field the cache does not keep, as a watch event', async () => {
    kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    kube.create(pod('web'));
    const changes: string[] = [];
    cache = new ClusterCache({
      kc: kube.kubeConfig(),
      log,
      onChange: (resource, change?: { kind: string; obj: KubernetesObject; listed: boolean }) => {
        if (resource === 'pods' && change) changes.push(`${change.kind} ${JSON.stringify(change.obj.metadata?.labels)}${change.listed ? ' (listed)' : ''}`);
      },
    });
    await cache.start();
    expect(changes).toEqual(['add {"app":"web"} (listed)']);
    changes.length = 0;

    kube.patch('v1', 'Pod', 'web', { metadata: { annotations: { note: 'one' } } }, 'default');
    kube.patch('v1', 'Pod', 'web', { metadata: { labels: { tier: 'front' } } }, 'default');
    await eventually(() => cache!.get<KubernetesObject>('pods', 'web', 'default')?.metadata?.labels?.tier === 'front', 'the label change reaches the cache');
    kube.patch('v1', 'Pod', 'web', { metadata: { annotations: { note: 'two' } } }, 'default');
    kube.patch('v1', 'Pod', 'web', { metadata: { labels: { tier: 'back' } } }, 'default');
    await eventually(() => changes.length === 2, 'the second label change is reported');
    expect(changes).toEqual(['update {"app":"web","tier":"front"}', 'update {"app":"web","tier":"back"}']);
  });
});
