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

describe('two clusters with default configs share one SPIRE server', () => {
  let dir: string;
  let spire: MemorySpireServer;
  const clusters: Cluster[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shared-spire-'));
    const sockets = CLUSTERS.map((c) => join(dir, `${c}.sock`));
    spire = await MemorySpireServer.start({ socketPath: sockets[0]!, extraSocketPaths: sockets.slice(1), trustDomain: TD });
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

  it('under pod churn, neither controller ever deletes an entry of the other cluster', async () => {
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
      // Each cluster's entries carry its own prefix, derived from its name.
      for (const e of spire.entries.all().filter((x) => clusterOfPath(x.spiffeId.path) === c.name)) expect(e.id.startsWith(`${c.name}.`)).toBe(true);
    }
  });
});
