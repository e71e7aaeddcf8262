/**
 * Two clusters with default configs (only clusterName differs) against one
 * real SPIRE server, as nested or multi-cluster SPIRE deployments share one:
 * what keeps them apart is the entry-ID prefix each derives from its cluster
 * name, and that only a real server can confirm (it stores the IDs we ask for,
 * dots included, and lists both clusters' entries to both). Each cluster has
 * pods that never change; their entries must keep their IDs from start to end
 * while the other pods churn: had either controller deleted one, its owner
 * would have made it again under a new ID. Run by `npm run test:real-spire`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveController } from '../../src/manager/live.js';
import type { EntryOut } from '../../src/spire/index.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { emptySpire } from '../support/real-spire.js';
import { csid, eventually, node, ns, pod } from '../live/world.js';
import { realSpireConfig, startController, stopControllers, useRealSpire } from './world.js';

const spire = useRealSpire();
const CLUSTERS = ['east', 'west'] as const;
const STABLE = ['keep-0', 'keep-1', 'keep-2'];

interface Cluster {
  name: (typeof CLUSTERS)[number];
  kube: FakeKubeApiServer;
  live: LiveController;
  stop: AbortController;
}

describe('two clusters with default configs on one real SPIRE server', () => {
  const clusters: Cluster[] = [];

  beforeAll(async () => {
    await emptySpire(spire.current.raw);
    for (const name of CLUSTERS) {
      const kube = await FakeKubeApiServer.start();
      kube.create(ns('default'));
      kube.create(node('node-1'));
      kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .ClusterName }}/pod/{{ .PodMeta.Name }}' }));
      for (const p of STABLE) kube.create(pod('default', p));
      // Nothing but clusterName differs from the defaults; full passes (the ones that delete what is undeclared) every 500 ms.
      const { live, stop } = await startController(kube, realSpireConfig(spire.current, { clusterName: name, gcIntervalMs: 500 }));
      clusters.push({ name, kube, live, stop });
    }
  });

  afterAll(async () => {
    await stopControllers(clusters);
    for (const c of clusters) await c.kube.close();
  });

  const clusterOf = (e: EntryOut) => e.spiffe_id?.path?.split('/')[1];
  const stableIds = (entries: EntryOut[]) =>
    new Map(entries.filter((e) => STABLE.some((p) => e.spiffe_id?.path?.endsWith(`/pod/${p}`))).map((e) => [e.spiffe_id!.path!, e.id!]));

  it('under pod churn on both, every stable entry keeps its ID and each cluster ends with exactly its own pods', { timeout: 180_000 }, async () => {
    await eventually(async () => stableIds(await spire.current.client.listEntries()).size === STABLE.length * 2, 'both clusters registered their stable pods', 60_000);
    const before = stableIds(await spire.current.client.listEntries());
    // Each cluster's IDs carry its own prefix: scm-, the cluster name and a dot.
    for (const [path, id] of before) expect(id.startsWith(`scm-${path.split('/')[1]}.`), `${path} has ${id}`).toBe(true);

    const churn = new Map<string, string[]>(CLUSTERS.map((c) => [c, []]));
    let gone = 0;
    for (let round = 0; round < 6; round++) {
      for (const c of clusters) {
        const live = churn.get(c.name)!;
        for (const p of live.splice(0, Math.floor(live.length / 2))) {
          c.kube.delete('v1', 'Pod', p, 'default');
          gone++;
        }
        for (let i = 0; i < 2; i++) {
          const name = `churn-${round}-${i}`;
          c.kube.create(pod('default', name));
          live.push(name);
        }
      }
      const passes = clusters.map((c) => c.live.passes());
      await eventually(() => clusters.every((c, i) => c.live.passes() >= passes[i]! + 2), `round ${round}: full passes ran`, 60_000);
      // Checked between rounds too, so an entry deleted and made again within the test is seen by its new ID.
      expect(stableIds(await spire.current.client.listEntries())).toEqual(before);
    }

    const want = (c: Cluster) => [...STABLE, ...churn.get(c.name)!].map((p) => `/${c.name}/pod/${p}`).sort();
    const have = async (c: Cluster) =>
      (await spire.current.client.listEntries())
        .filter((e) => clusterOf(e) === c.name)
        .map((e) => e.spiffe_id!.path!)
        .sort();
    for (const c of clusters) {
      const wanted = want(c);
      await eventually(async () => JSON.stringify(await have(c)) === JSON.stringify(wanted), `${c.name}'s entries are its pods`, 60_000);
    }
    // More full passes with nothing changing: a delete of the other cluster's entries would show here.
    const settled = clusters.map((c) => c.live.passes());
    await eventually(() => clusters.every((c, i) => c.live.passes() >= settled[i]! + 4), 'more full passes', 60_000);
    expect(stableIds(await spire.current.client.listEntries())).toEqual(before);
    for (const c of clusters) expect(await have(c)).toEqual(want(c));
    // The churn did make each controller delete the entries of pods it lost.
    expect(gone).toBeGreaterThanOrEqual(2 * 5);
  });
});
