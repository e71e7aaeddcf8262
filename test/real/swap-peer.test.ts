/**
 * The drop-in, end to end, with every program real: spire-controller-manager
 * v0.7.0 runs in the SPIRE helm chart's container shape (its arguments, its
 * config relative to the working directory, the chart's ClusterRole) against
 * kube-apiserver and a real SPIRE server, and registers the cluster's
 * workloads. Then its image is swapped for ours, nothing else changed: ours
 * takes the Lease over, is ready, keeps every entry under the ID it has (no
 * workload loses or changes its identity: no create, update or delete), and
 * afterwards cleans up what it now owns, entries the peer made included. And
 * back: the peer, started again, takes over what ours left without a write.
 *
 * Needs the real SPIRE server and the peer (`npm run real-spire:install --
 * --peer`, which .ci/run does where go is on PATH); skipped without them.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntryOut } from '../../src/spire/index.js';
import { SpireClient } from '../../src/spire/index.js';
import { exitCode, httpGet, killIfRunning, spawnCli } from '../support/cli.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { peerBinary, type RealSpire, spireServerBinary, startRealSpire } from '../support/real-spire.js';
import { CHART_RBAC, chartConfig, chartContainer, chartCsid, startChartPeer, writeChartConfig } from './chart.js';
import { controllerKubeConfig, eventually, node, ns, objects, pod } from './world.js';

const args = chartContainer.args;
const TD = chartConfig.trustDomain;
const PODS = ['web-0', 'web-1', 'web-2', 'api-0'];

const available = existsSync(spireServerBinary()) && existsSync(peerBinary());

describe.runIf(available)("spire-controller-manager's image swapped for ours in the chart's container, on real kube-apiserver and SPIRE", () => {
  let plane: ControlPlane;
  let spire: RealSpire;
  let client: SpireClient;
  let dir: string;
  let root: string;
  let kubeconfig: string;
  let health: string;
  let metrics: string;
  let peer: ChildProcess | undefined;
  let ours: ReturnType<typeof spawnCli> | undefined;
  let o: ReturnType<typeof objects>;

  const entries = async () => (await client.listEntries()).filter((e) => !e.spiffe_id?.path?.includes('unsupported-fields-probe'));
  const idsByPath = (list: EntryOut[]) => Object.fromEntries(list.map((e) => [e.spiffe_id!.path!, e.id!]));
  const leaseHolder = async () =>
    (await o.get<{ spec: { holderIdentity?: string } }>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: chartConfig.leaderElection.resourceName, namespace: chartConfig.leaderElection.resourceNamespace } }))?.spec
      .holderIdentity;
  const metric = async (line: RegExp) => Number(line.exec((await httpGet(metrics)).body)?.[1] ?? NaN);

  beforeAll(async () => {
    plane = await startControlPlane();
    dir = mkdtempSync(join(tmpdir(), 'real-swap-'));
    kubeconfig = join(dir, 'kubeconfig');
    plane.writeKubeconfig(kubeconfig, await controllerKubeConfig(plane, CHART_RBAC));
    spire = await startRealSpire({ trustDomain: TD });
    client = new SpireClient({ socket: spire.socketPath });

    o = objects(plane);
    await o.create(node('node-1'));
    await o.create(ns('shop'));
    // What the chart's default ClusterSPIFFEID declares, with its className.
    await o.create(chartCsid('spire-server-spire-default', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}' }));
    await o.create({
      apiVersion: 'spire.spiffe.io/v1alpha1',
      kind: 'ClusterStaticEntry',
      metadata: { name: 'gateway' },
      spec: { className: chartConfig.className, spiffeID: `spiffe://${TD}/gateway`, parentID: `spiffe://${TD}/spire/server`, selectors: ['k8s_psat:cluster:example-cluster'] },
    });
    for (const p of PODS) await o.create(pod('shop', p));

    // The chart's config at the chart's path; only the SPIRE socket, the ports and the cluster domain differ.
    ({ root, health, metrics } = await writeChartConfig(dir, { spireServerSocketPath: spire.socketPath, clusterDomain: 'cluster.local' }));
  });

  afterAll(async () => {
    await killIfRunning(peer);
    await killIfRunning(ours);
    client?.close();
    await spire?.stop();
    await plane?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // Webhooks are off for both (ENABLE_WEBHOOKS=false, as the chart sets for its external controller managers): the
  // peer's would listen on a fixed port, and ours are tested through the chart's configuration in chart-rbac.test.ts.
  const containerEnv = () => ({ KUBECONFIG: kubeconfig, ENABLE_WEBHOOKS: 'false' });

  /** spire-controller-manager in the chart's container shape, its output kept. */
  const startPeer = () => startChartPeer(root, containerEnv());

  const paths = async () => Object.keys(idsByPath(await entries())).sort();

  it('the peer registers every workload; ours, swapped in, takes over without writing and cleans up what it owns; the peer, swapped back, writes nothing', { timeout: 300_000 }, async () => {
    const first = (peer = startPeer());
    const want = [...PODS.map((p) => `/ns/shop/sa/${p}-sa`), '/gateway'].sort();
    await eventually(async () => JSON.stringify(await paths()) === JSON.stringify(want), `the peer registered every workload: ${first.output().slice(-2000)}`, 90_000);
    const before = idsByPath(await entries());
    // The chart's prefix: the cluster name and the dot upstream appends.
    for (const id of Object.values(before)) expect(id).toMatch(/^example-cluster\./);
    const peerHolder = await leaseHolder();
    expect(peerHolder).toBeTruthy();

    // The swap: the same container (arguments, working directory, config, RBAC) with our program in it.
    first.kill('SIGTERM');
    await exitCode(first);
    ours = spawnCli(args, { cwd: root, env: containerEnv() });
    await eventually(async () => (await httpGet(`${health}/readyz`).catch(() => ({ status: 0 }))).status === 200, `ours is ready: ${ours?.output()}`, 60_000);
    await eventually(async () => {
      const holder = await leaseHolder();
      return holder !== undefined && holder !== peerHolder;
    }, `ours holds the Lease: ${ours.output()}`, 60_000);
    // Two full passes (gcInterval 10 s, the chart's): everything the peer made is kept as it is.
    await eventually(async () => (await metric(/^spire_reconciler_pass_seconds_count (\d+)$/m)) >= 2, `two full passes: ${ours?.output()}`, 60_000);
    for (const op of ['created', 'updated', 'deleted']) expect(await metric(new RegExp(`^spire_reconciler_entries_total\\{op="${op}"\\} (\\d+)$`, 'm')), op).toBe(0);
    expect(idsByPath(await entries())).toEqual(before);
    // What docs/migration.md's "Check it worked" reads: the Lease taken, the first full pass's one line, /readyz?verbose.
    expect(ours.output()).toContain(`became leader (lease ${chartConfig.leaderElection.resourceNamespace}/${chartConfig.leaderElection.resourceName} as `);
    expect(ours.output()).toContain('first full pass as leader: 0 entries created, 0 updated, 0 deleted, 0 failed; 5 declared, 0 kept, 0 conflicts, 0 render failures');
    expect((await httpGet(`${health}/readyz?verbose`)).body).toBe('[+]informers-synced ok (does not decide readiness)\nreadiness check passed\n');

    // Then it manages them: a pod gone takes its entry (made by the peer), a new pod gets one with the chart's prefix,
    // and a deleted ClusterStaticEntry takes its entry.
    await o.delete(pod('shop', 'web-0'));
    await o.create(pod('shop', 'web-9'));
    await o.delete({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', metadata: { name: 'gateway' } });
    const after = ['/ns/shop/sa/api-0-sa', '/ns/shop/sa/web-1-sa', '/ns/shop/sa/web-2-sa', '/ns/shop/sa/web-9-sa'];
    await eventually(async () => JSON.stringify(await paths()) === JSON.stringify(after), `ours cleaned up and registered the new pod: ${ours?.output()}`, 60_000);
    const now = idsByPath(await entries());
    expect(now['/ns/shop/sa/web-9-sa']).toMatch(/^example-cluster\./);
    for (const p of ['/ns/shop/sa/api-0-sa', '/ns/shop/sa/web-1-sa', '/ns/shop/sa/web-2-sa']) expect(now[p]).toBe(before[p]);
    // Its one warning is the chart's RBAC's: no EndpointSlices (names come from core Endpoints).
    const warnings = ours.output().split('\n').filter((l) => /\b(WARN|ERROR|FATAL)\b/.test(l));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('EndpointSlices may not be listed (403 Forbidden)');

    ours.kill('SIGTERM');
    expect(await exitCode(ours)).toBe(0);

    // And back (a rollback): the peer, started again, takes over what ours made and kept, and writes nothing.
    const back = (peer = startPeer());
    await eventually(() => back.output().includes('Successfully acquired lease'), `the peer leads again: ${back.output().slice(-2000)}`, 60_000);
    // Its entry reconciler runs at once and then every gcInterval (10 s); it logs every write it makes.
    await new Promise((r) => setTimeout(r, 25_000));
    expect(back.output()).not.toMatch(/(Created|Updated|Deleted) entry/);
    expect(idsByPath(await entries())).toEqual(now);
  });
});
