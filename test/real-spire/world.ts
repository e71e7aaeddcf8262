/**
 * The live controller against a real SPIRE server: one spire-server per test
 * file (test/support/real-spire.ts), emptied before each test, the in-process
 * Kubernetes API server, and controllers started on demand. SPIRE's state is
 * read over its admin socket, as any client reads it.
 */
import { afterAll, beforeAll } from 'vitest';
import { type Logger, pino } from 'pino';
import { type ControllerConfig, defaultConfig } from '../../src/api/index.js';
import { passOptions } from '../../src/cli/context.js';
import { type LiveController, startLive } from '../../src/manager/live.js';
import { SpireClient, type EntryOut } from '../../src/spire/index.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { emptySpire, type RealSpire, type RealSpireOptions, startRealSpire } from '../support/real-spire.js';
import { openRawStubs, type RawStubs } from '../support/spire.js';

export const TD = 'example.org';

export interface RealSpireHandle {
  real: RealSpire;
  raw: RawStubs;
  client: SpireClient;
}

/** Inside a test file: one real SPIRE server for all its tests. Read it after beforeAll. */
export function useRealSpire(options: RealSpireOptions = {}): { readonly current: RealSpireHandle } {
  const holder = {} as { current: RealSpireHandle };
  beforeAll(async () => {
    const real = await startRealSpire({ trustDomain: TD, ...options });
    const { raw, closeStubs } = openRawStubs(real.socketPath);
    const client = new SpireClient({ socket: real.socketPath });
    holder.current = { real, raw, client };
    cleanup = async () => {
      client.close();
      closeStubs();
      await real.stop();
    };
  }, 120_000);
  let cleanup = async () => {};
  afterAll(() => cleanup());
  return holder;
}

export interface LiveWorld {
  kube: FakeKubeApiServer;
  spire: RealSpireHandle;
  config: ControllerConfig;
  controllers: RunningController[];
  start(): Promise<LiveController>;
  /** Every entry SPIRE holds, listed over the socket. */
  entries(): Promise<EntryOut[]>;
  close(): Promise<void>;
}

/** The defaults, pointed at this SPIRE server (cluster demo, an hour between full passes unless `over` says otherwise). */
export function realSpireConfig(spire: RealSpireHandle, over: Partial<ControllerConfig> = {}): ControllerConfig {
  return {
    ...defaultConfig(),
    trustDomain: TD,
    clusterName: 'demo',
    clusterDomain: 'cluster.local',
    spireServerSocketPath: spire.real.socketPath,
    spireRpcTimeoutMs: 10_000,
    gcIntervalMs: 3_600_000,
    ...over,
  };
}

export interface RunningController {
  live: LiveController;
  stop: AbortController;
}

/** The live controller in this process, against this API server, with this config; silent unless TEST_LOG or `log` says otherwise. */
export async function startController(kube: FakeKubeApiServer, config: ControllerConfig, log: Logger = pino({ level: process.env.TEST_LOG ?? 'silent' })): Promise<RunningController> {
  const stop = new AbortController();
  const live = await startLive({ config, pass: passOptions(config), kc: kube.kubeConfig(), log, signal: stop.signal, namespace: 'spire-server' });
  return { live, stop };
}

/** Stops controllers and waits until they have. */
export async function stopControllers(controllers: readonly RunningController[]): Promise<void> {
  for (const c of controllers) c.stop.abort();
  await Promise.all(controllers.map((c) => c.live.done));
}

/** An emptied SPIRE server, a fresh API server, and a config pointing at both. */
export async function liveWorld(spire: RealSpireHandle, over: Partial<ControllerConfig> = {}): Promise<LiveWorld> {
  await emptySpire(spire.raw);
  const kube = await FakeKubeApiServer.start();
  const config = realSpireConfig(spire, over);
  const world: LiveWorld = {
    kube,
    spire,
    config,
    controllers: [],
    async start() {
      const c = await startController(kube, config);
      world.controllers.push(c);
      return c.live;
    },
    entries: () => spire.client.listEntries(),
    async close() {
      await stopControllers(world.controllers);
      await kube.close();
    },
  };
  return world;
}
