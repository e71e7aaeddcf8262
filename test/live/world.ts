import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';
import { type ControllerConfig, defaultConfig } from '../../src/api/index.js';
import { passOptions } from '../../src/cli/context.js';
import type { ClusterCache } from '../../src/kube/cluster.js';
import { type LiveController, startLive } from '../../src/manager/live.js';
import type { ControllerMetrics } from '../../src/manager/metrics.js';
import type { RpcObserver } from '../../src/spire/index.js';
import { FakeKubeApiServer, type FakeKubeApiServerOptions } from '../support/kube/index.js';
import type { MemorySpireServerOptions } from '../../src/memspire/index.js';
import { startTestSpire, type TestSpire } from '../support/spire.js';

export interface World {
  kube: FakeKubeApiServer;
  spire: TestSpire;
  config: ControllerConfig;
  controllers: { live: LiveController; stop: AbortController }[];
  start(over?: { identity?: string; listAfter?: Promise<void>; onCache?: (cache: ClusterCache) => void; silenceMs?: number; stallMs?: number; watchTimeoutSeconds?: number; metrics?: ControllerMetrics; log?: Logger; observeSpireRpc?: RpcObserver }): Promise<LiveController>;
  close(): Promise<void>;
}

export const TD = 'example.org';

/** A fake API server, an in-memory SPIRE server, and controllers started on demand. */
export async function startWorld(over: Partial<ControllerConfig> = {}, spireOptions: Partial<MemorySpireServerOptions> = {}, kubeOptions: FakeKubeApiServerOptions = {}): Promise<World> {
  const kube = await FakeKubeApiServer.start(kubeOptions);
  const spire = await startTestSpire(spireOptions);
  const config: ControllerConfig = {
    ...defaultConfig(),
    trustDomain: TD,
    clusterName: 'demo',
    clusterDomain: 'cluster.local',
    spireServerSocketPath: spire.socketPath,
    spireRpcTimeoutMs: 5_000,
    // Only events (and retries) drive passes in these tests, so a missed event shows.
    gcIntervalMs: 3_600_000,
    ...over,
  };
  const world: World = {
    kube,
    spire,
    config,
    controllers: [],
    async start(o = {}) {
      const stop = new AbortController();
      const live = await startLive({
        config,
        pass: passOptions(config),
        kc: kube.kubeConfig(),
        log: o.log ?? pino({ level: process.env.TEST_LOG ?? 'silent' }),
        signal: stop.signal,
        namespace: 'spire-server',
        identity: o.identity,
        listAfter: o.listAfter,
        onCache: o.onCache,
        metrics: o.metrics,
        hooks: { informerSilenceMs: o.silenceMs, informerStallMs: o.stallMs, informerWatchTimeoutSeconds: o.watchTimeoutSeconds, observeSpireRpc: o.observeSpireRpc },
      });
      world.controllers.push({ live, stop });
      return live;
    },
    async close() {
      for (const c of world.controllers) c.stop.abort();
      await Promise.all(world.controllers.map((c) => c.live.done));
      await spire.close();
      await kube.close();
    },
  };
  return world;
}

export async function eventually(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (await cond()) return;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const ns = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
export const node = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec: {} });
export const pod = (namespace: string, name: string, labels: Record<string, string> = { app: name }, nodeName = 'node-1') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { nodeName, serviceAccountName: `${name}-sa`, containers: [{ name: 'c', image: 'i' }] },
  status: { phase: 'Running' },
});
export const csid = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name }, spec });

/** A world with one namespace (`default`), one node, a ClusterSPIFFEID selecting every pod as /pod/<name>, and `pods` pods p-0, p-1, ... */
export async function worldWithPods(pods: number, over: Partial<ControllerConfig> = {}): Promise<World> {
  const w = await startWorld(over);
  w.kube.create(ns('default'));
  w.kube.create(node('node-1'));
  w.kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
  for (let i = 0; i < pods; i++) w.kube.create(pod('default', `p-${i}`));
  return w;
}

/**
 * Files for running the controller as a process (`spawnCli(['run', '--config', config], { env: { KUBECONFIG: kubeconfig } })`)
 * against this world: its SPIRE socket, one pass an hour besides the events, metrics off, and `lines` more of config.
 */
export function runFiles(w: World, lines: string[]): { kubeconfig: string; config: string } {
  const kubeconfig = join(w.spire.dir, 'kubeconfig');
  w.kube.writeKubeconfig(kubeconfig);
  const config = join(w.spire.dir, 'config.yaml');
  writeFileSync(config, ['trustDomain: example.org', 'clusterName: demo', 'clusterDomain: cluster.local', `spireServerSocketPath: ${w.spire.socketPath}`, 'gcInterval: 1h', 'metrics: {bindAddress: "0"}', ...lines].join('\n'));
  return { kubeconfig, config };
}

/** runFiles with leader election on a Lease with these timings, JSON logs and probes on a free port: several may run at once. */
export function leaderElectionFiles(w: World, lease: { leaseDuration: string; renewDeadline: string; retryPeriod: string }): { kubeconfig: string; config: string } {
  return runFiles(w, [
    'logEncoding: json',
    'health: {healthProbeBindAddress: "127.0.0.1:0"}',
    'leaderElection:',
    '  leaderElect: true',
    '  resourceName: spire-reconciler-test',
    '  resourceNamespace: spire-server',
    ...Object.entries(lease).map(([k, v]) => `  ${k}: ${v}`),
  ]);
}

/** A pino logger that keeps each line it writes (parsed), for tests that read the log. */
export function memoryLog(level = 'info'): { log: Logger; lines: { time: number; level: number; msg: string }[] } {
  const lines: { time: number; level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as { time: number; level: number; msg: string });
      done();
    },
  });
  return { log: pino({ level }, sink), lines };
}
