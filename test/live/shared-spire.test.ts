import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControllerConfig, defaultConfig } from '../../src/api/index.js';
import { passOptions } from '../../src/cli/context.js';
import { type LiveController, startLive } from '../../src/manager/live.js';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { csid, eventually, node, ns, pod, TD } from './world.js';

/**
 * Two clusters, each with its own API server and controller, both with the
 * default config but for clusterName, against one SPIRE server: a shared
 * SPIRE server (nested or multi-cluster SPIRE). Each controller has its own
 * socket on that server, so every delete is attributed to the cluster whose
 * controller sent it.
 */
interface Cluster {
  name: 'east' | 'west';
  kube: FakeKubeApiServer;
  live: LiveController;
  stop: AbortController;
  socket: string;
}

const CLUSTERS = ['east', 'west'] as const;

/**
 * What earlier releases of each controller left, under each earlier
 * default: `<clusterName>.<uuid>` (a pod gone, a static entry no longer
 * declared, and the gateway as declared) and `scm-<uuid>`, which names no
 * cluster (a pod gone, under the cluster's agents). And an `scm-<uuid>`
 * static entry that neither declares: whose it is cannot be told, so
 * neither may touch it.
 */
const uuid = (i: number) => `2b7e1f5a-9c3d-4e8f-a1b2-${String(i).padStart(12, '0')}`;
const id = (trustDomain: string, path: string) => ({ trust_domain: trustDomain, path });
const agentOf = (cluster: string) => id(TD, `/spire/agent/k8s_psat/${cluster}/node-uid-1`);
const goneEntry = (entryId: string, cluster: string, name: string) => ({
  id: entryId,
  parent_id: agentOf(cluster),
  spiffe_id: id(TD, `/${cluster}/pod/${name}`),
  selectors: [{ type: 'k8s', value: `pod-uid:${cluster}-${name}` }],
});
const staticEntry = (entryId: string, cluster: string, name: string) => ({
  id: entryId,
  parent_id: id(TD, '/spire/server'),
  spiffe_id: id(TD, `/${cluster}/${name}`),
  selectors: [{ type: 'k8s_psat', value: `cluster:${cluster}` }],
});
const EARLIER = CLUSTERS.flatMap((c, i) => [
  goneEntry(`${c}.${uuid(10 * i + 1)}`, c, 'gone-before'),
  goneEntry(`scm-${uuid(10 * i + 2)}`, c, 'gone-long-before'),
  staticEntry(`${c}.${uuid(10 * i + 3)}`, c, 'gone-static'),
  staticEntry(`${c}.${uuid(10 * i + 4)}`, c, 'gateway'),
]);
const UNCLAIMED = { id: `scm-${uuid(99)}`, parent_id: id(TD, '/spire/server'), spiffe_id: id(TD, '/shared/by-hand'), selectors: [{ type: 'k8s_psat', value: 'cluster:any' }] };

describe('two clusters with default configs share one SPIRE server', () => {
  let dir: string;
  let spire: MemorySpireServer;
  const clusters: Cluster[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shared-spire-'));
    const sockets = CLUSTERS.map((c) => join(dir, `${c}.sock`));
    spire = await MemorySpireServer.start({ socketPath: sockets[0]!, extraSocketPaths: sockets.slice(1), trustDomain: TD, seed: { entries: [...EARLIER, UNCLAIMED] } });
    for (const [i, name] of CLUSTERS.entries()) {
      const kube = await FakeKubeApiServer.start();
      kube.create(ns('default'));
      kube.create(node('node-1'));
      kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .ClusterName }}/pod/{{ .PodMeta.Name }}' }));
      // A static entry, whose parent names no cluster's agents: only the entry ID tells whose it is.
      kube.create({
        apiVersion: 'spire.spiffe.io/v1alpha1',
        kind: 'ClusterStaticEntry',
        metadata: { name: 'gateway' },
        spec: { spiffeID: `/${name}/gateway`, parentID: '/spire/server', selectors: [`k8s_psat:cluster:${name}`] },
      });
      // Nothing but clusterName differs from the defaults; full passes (the ones that delete) every 300 ms.
      const config: ControllerConfig = { ...defaultConfig(), trustDomain: TD, clusterName: name, clusterDomain: 'cluster.local', spireServerSocketPath: sockets[i]!, gcIntervalMs: 300 };
      const stop = new AbortController();
      const live = await startLive({ config, pass: passOptions(config), kc: kube.kubeConfig(), log: pino({ level: process.env.TEST_LOG ?? 'silent' }), signal: stop.signal, namespace: 'spire-server' });
      clusters.push({ name, kube, live, stop, socket: sockets[i]! });
    }
  });

  afterAll(async () => {
    for (const c of clusters) c.stop.abort();
    await Promise.all(clusters.map((c) => c.live.done));
    await spire.stop();
    for (const c of clusters) await c.kube.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Whose entry it is, read from its SPIFFE ID (/<cluster>/...). */
  const clusterOfPath = (path: string) => path.split('/')[1];
  const pathsOf = (cluster: string) =>
    spire.entries
      .all()
      .filter((e) => clusterOfPath(e.spiffeId.path) === cluster)
      .map((e) => e.spiffeId.path)
      .sort();

  it('under pod churn, neither controller ever deletes an entry of the other cluster, and each takes over its entries of earlier defaults', async () => {
    const pods = new Map<string, string[]>(CLUSTERS.map((c) => [c, []]));
    const want = (cluster: string) => [...pods.get(cluster)!.map((p) => `/${cluster}/pod/${p}`), `/${cluster}/gateway`].sort();

    for (let round = 0; round < 8; round++) {
      for (const c of clusters) {
        const live = pods.get(c.name)!;
        // Replace half the pods, add two: creates and deletes in every round.
        for (const gone of live.splice(0, Math.floor(live.length / 2))) c.kube.delete('v1', 'Pod', gone, 'default');
        for (let i = 0; i < 2; i++) {
          const name = `p-${round}-${i}`;
          c.kube.create(pod('default', name));
          live.push(name);
        }
      }
      // Let full passes (every 300 ms) run between rounds.
      const passes = clusters.map((c) => c.live.passes());
      await eventually(() => clusters.every((c, i) => c.live.passes() >= passes[i]! + 2), `round ${round}: passes ran`);
    }
    for (const c of clusters) await eventually(() => JSON.stringify(pathsOf(c.name)) === JSON.stringify(want(c.name)), `${c.name}'s entries match its pods`);
    // More full passes with nothing changing: an undeclared-delete of the other cluster would show here.
    const settled = clusters.map((c) => c.live.passes());
    await eventually(() => clusters.every((c, i) => c.live.passes() >= settled[i]! + 4), 'more full passes');

    // Counted on the SPIRE side: who deleted (the socket) whose entry (its SPIFFE ID).
    const deletes = (by: Cluster, of: string) => spire.deletions.filter((d) => d.socket === by.socket && clusterOfPath(d.entry.spiffeId.path) === of).length;
    const [east, west] = clusters as [Cluster, Cluster];
    expect({ eastDeletedWest: deletes(east, 'west'), westDeletedEast: deletes(west, 'east') }).toEqual({ eastDeletedWest: 0, westDeletedEast: 0 });
    // The churn did make each controller delete its own entries (the pods it lost).
    expect(deletes(east, 'east')).toBeGreaterThanOrEqual(8);
    expect(deletes(west, 'west')).toBeGreaterThanOrEqual(8);
    for (const c of clusters) {
      expect(pathsOf(c.name)).toEqual(want(c.name));
      // The gateway keeps the ID its earlier default gave it (not duplicated); every other entry carries the prefix derived from its name.
      const gateway = EARLIER.find((e) => e.spiffe_id.path === `/${c.name}/gateway`)!;
      for (const e of spire.entries.all().filter((x) => clusterOfPath(x.spiffeId.path) === c.name)) {
        if (e.spiffeId.path === gateway.spiffe_id.path) expect(e.id).toBe(gateway.id);
        else expect(e.id, e.spiffeId.path).toMatch(new RegExp(`^scm-${c.name}\\.`));
      }
      // Its entries of pods and objects gone under either earlier default were deleted by it (not leaked).
      const deletedByIt = spire.deletions.filter((d) => d.socket === c.socket).map((d) => d.entry.id);
      expect(deletedByIt).toEqual(expect.arrayContaining(EARLIER.filter((e) => e.spiffe_id.path.startsWith(`/${c.name}/`) && e.spiffe_id.path.includes('gone')).map((e) => e.id)));
    }
    // The static entry whose owner cannot be told is left alone by both.
    expect(spire.entries.all().map((e) => e.id)).toContain(UNCLAIMED.id);
  });
});
