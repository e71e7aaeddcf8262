/**
 * `run`'s informers list for the first time only once the kubelet has had
 * its first readiness answer from the probe thread, and a moment more, or
 * after a bound (src/cli/first-lists.ts): in the SPIRE server's pod those
 * lists must not slow the kubelet's status write that lets SPIRE back into
 * its Service.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEarlyProbes } from '../../src/cli/early-probes.js';
import { FIRST_LISTS_WAIT, firstListsAfter } from '../../src/cli/first-lists.js';
import type { ClusterCache } from '../../src/kube/cluster.js';
import { informersSynced, type Observability, ping, serveObservability } from '../../src/manager/health.js';
import { ControllerMetrics } from '../../src/manager/metrics.js';
import { exitCode, httpGet, repoRoot } from '../support/cli.js';
import { freePort } from '../support/ports.js';
import { eventually, runFiles, type World, worldWithPods } from '../live/world.js';

const settled = async (p: Promise<void> | undefined) => {
  let done = false;
  void p?.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('firstListsAfter', () => {
  it('is at once without a probe thread answering readiness', () => {
    expect(firstListsAfter(undefined)).toBeUndefined();
  });

  it('resolves settleMs after the first answer, or at atMostMs without one', async () => {
    const answered = Promise.withResolvers<void>();
    const t0 = Date.now();
    const gate = firstListsAfter(answered.promise, { settleMs: 150, atMostMs: 10_000 });
    await new Promise((r) => setTimeout(r, 100));
    expect(await settled(gate)).toBe(false);
    const at = Date.now();
    answered.resolve();
    await gate;
    expect(Date.now() - at).toBeGreaterThanOrEqual(140);
    expect(Date.now() - t0).toBeLessThan(5_000);

    const never = firstListsAfter(new Promise<void>(() => undefined), { settleMs: 0, atMostMs: 200 });
    const t1 = Date.now();
    await never;
    expect(Date.now() - t1).toBeGreaterThanOrEqual(190);
  });
});

describe('the gate, in process', () => {
  let w: World | undefined;
  let served: Observability | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
    await w?.close();
    w = undefined;
  });

  it('startLive makes no list before listAfter resolves, and registers the pods after', { timeout: 30_000 }, async () => {
    w = await worldWithPods(2);
    const world = w;
    const gate = Promise.withResolvers<void>();
    let cache: ClusterCache | undefined;
    const synced = informersSynced(() => cache);
    const starting = world.start({ listAfter: gate.promise, onCache: (c) => (cache = c) });
    await new Promise((r) => setTimeout(r, 500));
    expect(world.kube.requests.filter((r) => r.method === 'GET' && !r.path.includes('/leases'))).toEqual([]);
    // A cache with no informer started would pass for synced: until the lists begin, the condition says so.
    expect(synced.check()).toEqual({ ok: false, detail: 'starting' });
    gate.resolve();
    await starting;
    expect(synced.check().ok).toBe(true);
    await eventually(() => world.spire.server.entries.size === 2, 'the two pods are registered');
  });

  it("readinessAnswered resolves on the probe thread's first readiness probe, not on liveness or ?verbose", async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'first-lists-'));
    try {
      writeFileSync(join(dir, 'c.yaml'), `trustDomain: example.org\nclusterName: demo\nhealth:\n  healthProbeBindAddress: 127.0.0.1:${port}\n`);
      await startEarlyProbes(['run', '--config', join(dir, 'c.yaml')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    served = await serveObservability({ metricsBindAddress: '0', healthProbeBindAddress: `127.0.0.1:${port}`, readinessPath: '/readyz', livenessPath: '/healthz', metrics: new ControllerMetrics(), readiness: [], liveness: [ping] });
    expect(served.readinessAnswered).toBeDefined();
    await httpGet(`http://127.0.0.1:${port}/healthz`);
    await httpGet(`http://127.0.0.1:${port}/readyz?verbose`);
    expect(await settled(served.readinessAnswered)).toBe(false);
    await httpGet(`http://127.0.0.1:${port}/readyz`);
    await served.readinessAnswered;
  });

  it('readinessAnswered is absent where no probe thread answers readiness', async () => {
    served = await serveObservability({ metricsBindAddress: '0', healthProbeBindAddress: '127.0.0.1:0', readinessPath: '/readyz', livenessPath: '/healthz', metrics: new ControllerMetrics(), readiness: [], liveness: [ping] });
    expect(served.readinessAnswered).toBeUndefined();
  });
});

describe('run in the SPIRE server pod', () => {
  let w: World | undefined;
  afterEach(async () => {
    await w?.close();
    w = undefined;
  });

  /** bin.ts's `run` against the world, probes at a free port; resolves with that port and the process. */
  async function runAgainst(world: World) {
    const port = await freePort();
    const { kubeconfig, config } = runFiles(world, [`health: {healthProbeBindAddress: "127.0.0.1:${port}"}`]);
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'src/cli/bin.ts'), 'run', '--config', config], {
      env: { ...process.env, KUBECONFIG: kubeconfig },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    return { port, child, stderr: () => stderr };
  }

  const podLists = (world: World) => world.kube.requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/pods' && !r.query.includes('watch=true'));

  it('lists pods no sooner than settleMs after the first readiness probe is answered, then registers them', { timeout: 60_000 }, async () => {
    w = await worldWithPods(3);
    const world = w;
    const { port, child, stderr } = await runAgainst(world);
    try {
      let probed = 0;
      await eventually(async () => {
        const r = await httpGet(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        probed = Date.now();
        return r?.status === 200;
      }, 'the probe thread answers readiness', 30_000);
      await eventually(() => podLists(world).length > 0, 'the pods are listed', 30_000);
      expect(podLists(world)[0]!.at - probed, stderr()).toBeGreaterThanOrEqual(FIRST_LISTS_WAIT.settleMs - 20);
      await eventually(() => world.spire.server.entries.size === 3, 'the three pods are registered', 30_000);
    } finally {
      child.kill('SIGTERM');
      await exitCode(child);
    }
  });

  it('lists pods atMostMs after the start when no readiness probe comes', { timeout: 60_000 }, async () => {
    w = await worldWithPods(1);
    const world = w;
    const { child } = await runAgainst(world);
    try {
      await eventually(() => podLists(world).length > 0, 'the pods are listed', 30_000);
      await eventually(() => world.spire.server.entries.size === 1, 'the pod is registered', 30_000);
    } finally {
      child.kill('SIGTERM');
      await exitCode(child);
    }
  });
});
