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

describe('after a relist, only what changed in the gap is reported, and what was deleted in it is forgotten', () => {
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

  it('reports the pod changed in the gap, not the unchanged one, and forgets the deleted one', async () => {
    kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    for (const name of ['same', 'changed', 'gone']) kube.create(pod(name));
    const changes: string[] = [];
    let podResyncs = 0;
    cache = new ClusterCache({
      kc: kube.kubeConfig(),
      log,
      silenceMs: 500,
      onChange: (resource, change?: { kind: string; obj: KubernetesObject }) => {
        if (resource !== 'pods') return;
        if (change) changes.push(`${change.kind} ${change.obj.metadata?.name}`);
        else podResyncs++;
      },
    });
    await cache.start();
    expect(changes.sort()).toEqual(['add changed', 'add gone', 'add same']);
    expect(cache.remembered('pods')).toBe(3);
    changes.length = 0;

    // Silent streams make every informer relist; what happens meanwhile reaches it only through the new list.
    kube.faults.stallWatches('forever');
    kube.patch('v1', 'Pod', 'changed', { metadata: { labels: { app: 'changed', tier: 'new' } } }, 'default');
    kube.delete('v1', 'Pod', 'gone', 'default');
    await eventually(() => podResyncs > 0, 'the pod informer relists');

    expect(changes).toEqual(['add changed']);
    expect(cache.remembered('pods')).toBe(2);
    expect(cache.items<KubernetesObject>('pods').map((p) => p.metadata?.name).sort()).toEqual(['changed', 'same']);
  });
});
