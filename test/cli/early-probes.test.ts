/**
 * `run`'s probes from its first milliseconds (src/cli/early-probes.ts): what
 * bin.ts reads to start them, and the hand-over to `run`'s own probe server,
 * which takes the same listening server instead of binding the address again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/api/index.js';
import { earlyProbeSettings, startEarlyProbes } from '../../src/cli/early-probes.js';
import { informersSynced, type Observability, ping, serveObservability } from '../../src/manager/health.js';
import { ControllerMetrics } from '../../src/manager/metrics.js';
import { exitCode, httpGet, repoRoot } from '../support/cli.js';
import { freePort } from '../support/ports.js';
import { spawn } from 'node:child_process';

const config = (health: string) => `apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\ntrustDomain: example.org\nclusterName: demo\n${health}`;
const settings = (args: string[], text: string) => earlyProbeSettings(args, () => text);

describe('what bin.ts reads to answer the probes before the CLI loads', () => {
  it("reads the probe address and paths of `run`'s config, in the forms the chart and deploy/ write", () => {
    const chart = config('health:\n  healthProbeBindAddress: 0.0.0.0:8083\n');
    expect(settings(['run', '--config', 'c.yaml'], chart)).toEqual({ bind: { host: '0.0.0.0', port: 8083 }, readinessPath: '/readyz', livenessPath: '/healthz' });
    // spire-controller-manager's flags, as the chart passes them, mean run.
    expect(settings(['--config=controller-manager-config.yaml'], chart)?.bind.port).toBe(8083);
    expect(settings(['-config', 'c.yaml'], chart)?.bind.port).toBe(8083);
    expect(settings(['--debug', 'run', '--config=c.yaml'], config('health: {healthProbeBindAddress: ":9000", readinessEndpointName: ready, livenessEndpointName: "/live"}\n'))).toEqual({
      bind: { port: 9000 },
      readinessPath: '/ready',
      livenessPath: '/live',
    });
    expect(settings(['run', '--config', 'c.yaml'], config("health:\n  healthProbeBindAddress: '127.0.0.1:8083' # the chart's\n"))?.bind).toEqual({ host: '127.0.0.1', port: 8083 });
  });

  it('starts nothing where it could guess wrong: another command, no address, env expansion, the standalone layout, a port 0', () => {
    const chart = config('health:\n  healthProbeBindAddress: 0.0.0.0:8083\n');
    expect(settings(['plan', '--config', 'c.yaml'], chart)).toBeUndefined();
    expect(settings(['--version'], chart)).toBeUndefined();
    expect(settings(['run'], chart)).toBeUndefined();
    expect(settings(['run', '--config', 'c.yaml', '--expand-env'], chart)).toBeUndefined();
    expect(settings(['run', '--config', 'c.yaml'], config(''))).toBeUndefined();
    expect(settings(['run', '--config', 'c.yaml'], `${chart}spireServerAddress: spire:8081\n`)).toBeUndefined();
    expect(settings(['run', '--config', 'c.yaml', '--spire-server-address', 'spire:8081'], chart)).toBeUndefined();
    expect(settings(['run', '--config', 'c.yaml'], config('health:\n  healthProbeBindAddress: "0"\n'))).toBeUndefined();
    expect(settings(['run', '--config', 'c.yaml'], config('health:\n  healthProbeBindAddress: 127.0.0.1:0\n'))).toBeUndefined();
    expect(earlyProbeSettings(['run', '--config', '/no/such/file.yaml'])).toBeUndefined();
  });

  it("takes controller-runtime's default paths, as the config does", () => {
    const d = defaultConfig();
    expect(settings(['run', '--config', 'c.yaml'], config('health:\n  healthProbeBindAddress: :8083\n'))).toMatchObject({ readinessPath: d.readinessEndpointName, livenessPath: d.livenessEndpointName });
  });
});

/**
 * Another process asks for `paths` while this thread's event loop is held for
 * 2 s; it prints when each answer came (the same clock as `released`).
 */
async function askWhileBusy(port: number, paths: string[]) {
  const asker = spawn(process.execPath, ['-e', `for (const p of ${JSON.stringify(paths)}) fetch('http://127.0.0.1:${port}' + p).then(async (r) => console.log(p, r.status, Date.now(), await r.text()));`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  asker.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const held = Date.now();
  while (Date.now() - held < 2_000) {
    // Busy: no timer, no socket of this thread runs; the asker starts and asks meanwhile.
  }
  const released = Date.now();
  await exitCode(asker);
  const answers: Record<string, { status: number; at: number; body: string }> = Object.fromEntries(
    out.trim().split('\n').map((l) => l.split(' ')).map(([p, status, at, ...body]) => [p, { status: Number(status), at: Number(at), body: body.join(' ') }]),
  );
  return { answers, released };
}

describe("the early probe server, handed over to run's", () => {
  let dir: string;
  let served: Observability | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** bin.ts's early probes of `run` at a free port of 127.0.0.1, from a config file in a new `dir`. */
  async function startEarly(): Promise<number> {
    dir = mkdtempSync(join(tmpdir(), 'early-probes-'));
    const port = await freePort();
    writeFileSync(join(dir, 'c.yaml'), config(`health:\n  healthProbeBindAddress: 127.0.0.1:${port}\n`));
    await startEarlyProbes(['run', '--config', join(dir, 'c.yaml')]);
    return port;
  }

  /** run's probe server at `port`: readiness a ping, informers-synced reported as starting. */
  const serveProbes = (port: number, more: { startOver?: Promise<void> } = {}) =>
    serveObservability({
      metricsBindAddress: '0',
      healthProbeBindAddress: `127.0.0.1:${port}`,
      readinessPath: '/readyz',
      livenessPath: '/healthz',
      metrics: new ControllerMetrics(),
      readiness: [],
      liveness: [ping],
      conditions: [informersSynced(() => undefined)],
      ...more,
    });

  it('answers readiness and liveness at once, conditions "starting", then serves run\'s own answers from the same socket', async () => {
    const port = await startEarly();
    const base = `http://127.0.0.1:${port}`;
    expect(await httpGet(`${base}/readyz`)).toMatchObject({ status: 200, body: 'ok' });
    expect(await httpGet(`${base}/healthz`)).toMatchObject({ status: 200, body: 'ok' });
    expect(await httpGet(`${base}/readyz/informers-synced`)).toMatchObject({ status: 503, body: 'informers-synced: starting\n' });

    // run's probe server at the same address: no "address already in use", and its answers from now on.
    served = await serveProbes(port);
    expect(served.healthAddress).toBe(`127.0.0.1:${port}`);
    expect(await httpGet(`${base}/readyz/informers-synced`)).toMatchObject({ status: 503, body: 'informers-synced: starting\n' });
    expect((await httpGet(`${base}/readyz?verbose`)).body).toBe('[-]informers-synced failed: starting (does not decide readiness)\nreadiness check passed\n');
  });

  it("readiness is answered by the probe thread while this thread is busy; the rest waits for this thread's answer", async () => {
    const port = await startEarly();
    served = await serveProbes(port);
    const { answers, released } = await askWhileBusy(port, ['/readyz', '/readyz/informers-synced']);
    expect(answers['/readyz']).toMatchObject({ status: 200, body: 'ok' });
    expect(answers['/readyz/informers-synced']).toMatchObject({ status: 503, body: 'informers-synced: starting' });
    // The ping came back while this thread was held; the condition only once it was free to answer it.
    expect(answers['/readyz']!.at).toBeLessThan(released);
    expect(answers['/readyz/informers-synced']!.at).toBeGreaterThanOrEqual(released);
  });

  it('with a start that ends, the probe thread answers until it is over and a probe was answered; then this thread answers everything', async () => {
    const port = await startEarly();
    const startOver = Promise.withResolvers<void>();
    served = await serveProbes(port, { startOver: startOver.promise });
    // The start is over, but no probe has been answered yet: the thread stays, and answers this one while this thread is busy.
    startOver.resolve();
    await new Promise((r) => setTimeout(r, 200));
    const before = await askWhileBusy(port, ['/readyz']);
    expect(before.answers['/readyz']).toMatchObject({ status: 200, body: 'ok' });
    expect(before.answers['/readyz']!.at).toBeLessThan(before.released);
    // That answer was the first: this thread's server takes over, and the thread ends. Readiness now waits for this thread.
    await new Promise((r) => setTimeout(r, 500));
    const after = await askWhileBusy(port, ['/readyz', '/readyz/informers-synced']);
    expect(after.answers['/readyz']).toMatchObject({ status: 200, body: 'ok' });
    expect(after.answers['/readyz']!.at).toBeGreaterThanOrEqual(after.released);
    expect(after.answers['/readyz/informers-synced']).toMatchObject({ status: 503, body: 'informers-synced: starting' });
    // Closed, the address is free again: nothing of either server is left listening.
    await served.close();
    served = undefined;
    await expect(httpGet(`http://127.0.0.1:${port}/readyz`)).rejects.toThrow();
  });

  it('closed before the start is over, the probe thread ends and the address is free', async () => {
    const port = await startEarly();
    const obs = await serveProbes(port, { startOver: new Promise<void>(() => undefined) });
    expect(await httpGet(`http://127.0.0.1:${port}/readyz`)).toMatchObject({ status: 200, body: 'ok' });
    await obs.close();
    await expect(httpGet(`http://127.0.0.1:${port}/readyz`)).rejects.toThrow();
  });

  it('bin.ts of `run` starts them, and run takes the port over without a clash', { timeout: 60_000 }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'early-probes-'));
    const port = await freePort();
    writeFileSync(join(dir, 'c.yaml'), config(`clusterDomain: cluster.local\nhealth:\n  healthProbeBindAddress: 127.0.0.1:${port}\nmetrics:\n  bindAddress: "0"\n`));
    writeFileSync(join(dir, 'kubeconfig'), 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n');
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'src/cli/bin.ts'), 'run', '--config', join(dir, 'c.yaml'), '--socket', join(dir, 'api.sock')], {
      env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      // run's own server says what it waits for, which the early one cannot: the hand-over happened.
      for (let i = 0; ; i++) {
        const r = await httpGet(`http://127.0.0.1:${port}/readyz?verbose`).catch(() => undefined);
        if (r?.body.includes('[-]informers-synced failed: waiting for')) break;
        if (i > 2000) throw new Error(`run never served its own probes: ${stderr}`);
        await new Promise((res) => setTimeout(res, 10));
      }
      expect(stderr).not.toContain('address already in use');
      expect(await httpGet(`http://127.0.0.1:${port}/readyz`)).toMatchObject({ status: 200, body: 'ok' });
    } finally {
      child.kill('SIGTERM');
      await exitCode(child);
    }
  });
});
