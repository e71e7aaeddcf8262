/**
 * Commands that cannot work say so at once, naming what is missing, and say
 * what they wait for when waiting may help.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_DIR } from '../../src/cli/demo.js';
import { runOnce } from '../../src/cli/one-pass.js';
import { periodicWaits } from '../../src/manager/wait-reports.js';
import type { PlanReport } from '../../src/cli/report.js';
import { exitCode, spawnCli } from '../support/cli.js';

const manifests = join(DEMO_DIR, 'manifests');

describe('fail fast, and say what is waited for', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fail-fast-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function config(extra = ''): string {
    const path = join(dir, 'config.yaml');
    writeFileSync(path, `apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\ntrustDomain: demo.example\nclusterName: demo\nclusterDomain: cluster.local\nlogLevel: info\n${extra}`);
    return path;
  }

  it('a SPIRE socket path that is a file fails at once, for plan and for run', async () => {
    const file = join(dir, 'not-a-socket');
    writeFileSync(file, '');
    const message = `${file} exists but is not a socket: spireServerSocketPath (or --socket) must name the SPIRE server's API socket`;
    await expect(runOnce({ config: config(), manifests: [manifests], socket: file }, { apply: false, log: pino({ level: 'silent' }), print: () => {} })).rejects.toThrow(message);
    // run would wait for SPIRE forever; it stops at once instead.
    const run = spawnCli(['run', '--config', config(), '--manifests', manifests, '--socket', file]);
    expect(await exitCode(run)).toBe(2);
    expect(run.output()).toContain(message);
  });

  it('no socket file: plan says so at once, with how to plan offline; reconcile --once says so at once too', async () => {
    const socket = join(dir, 'absent.sock');
    const lines: string[] = [];
    const started = Date.now();
    const waits = periodicWaits((line) => lines.push(line));
    const plan = runOnce({ config: config(), manifests: [manifests], socket }, { apply: false, log: pino({ level: 'silent' }), print: () => {}, waits });
    await expect(plan).rejects.toThrow(
      `no SPIRE server socket at ${socket} (spireServerSocketPath, or --socket): check the path, and that the SPIRE server runs and shares it; to plan without a SPIRE server, give --entries FILE (the JSON \`spire-server entry show -output json\` prints), or serve an in-memory one with \`spire-reconciler memory-spire --socket PATH\` and pass --socket PATH`,
    );
    const apply = runOnce({ config: config(), manifests: [manifests], socket }, { apply: true, log: pino({ level: 'silent' }), print: () => {}, waits });
    await expect(apply).rejects.toThrow(new RegExp(`^no SPIRE server socket at ${socket} \\(spireServerSocketPath, or --socket\\): check the path, and that the SPIRE server runs and shares it$`));
    expect(lines).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1_000);
    // As a process: exit 2, the one line.
    const cli = spawnCli(['plan', '--config', config(), '--manifests', manifests, '--socket', socket]);
    expect(await exitCode(cli)).toBe(2);
    expect(cli.output()).toContain(`spire-reconciler: no SPIRE server socket at ${socket}`);
  });

  it('a socket file that does not answer yet: says at once that it waits, where and for how long, then names the socket it gave up on', async () => {
    const socket = join(dir, 'silent.sock');
    // Accepts connections and never speaks: a SPIRE server still starting, or hung.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(socket, resolve));
    const lines: string[] = [];
    const started = Date.now();
    const waits = periodicWaits((line) => lines.push(line));
    try {
      const outcome = runOnce({ config: config('spireRpcTimeout: 2s\n'), manifests: [manifests], socket }, { apply: false, log: pino({ level: 'silent' }), print: () => {}, waits });
      await expect(outcome).rejects.toThrow(`SPIRE server not reachable at ${socket} after 2s: the socket exists but the server does not answer`);
    } finally {
      silent.close();
    }
    expect(lines[0]).toMatch(new RegExp(`^waiting for the SPIRE server at ${socket} \\(up to 2 s\\)…$`));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });

  it('run in live mode without any Kubernetes configuration exits with what it looked for', async () => {
    const home = join(dir, 'home');
    mkdirSync(home);
    const run = spawnCli(['run', '--config', config(`spireServerSocketPath: ${join(dir, 'api.sock')}\n`)], { env: { KUBECONFIG: '', HOME: home, KUBERNETES_SERVICE_HOST: '' } });
    expect(await exitCode(run)).toBe(2);
    expect(run.output()).toContain(`spire-reconciler: no Kubernetes configuration: KUBECONFIG is not set, ${join(home, '.kube', 'config')} does not exist, and there is no in-cluster service account`);
    expect(run.output()).not.toContain('skipTLSVerify');
  });

  it('an empty clusterDomain that gives DNS names ending in "." (which SPIRE refuses) is named as the cause in the plan', async () => {
    const path = join(dir, 'no-domain.yaml');
    writeFileSync(path, 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\ntrustDomain: demo.example\nclusterName: demo\n');
    let out = '';
    await runOnce({ config: path, manifests: [manifests], entries: join(DEMO_DIR, 'spire-entries.json'), output: 'json' }, { apply: false, log: pino({ level: 'silent' }), print: (s) => (out += s) });
    expect((JSON.parse(out) as PlanReport).notes).toContain(
      'clusterDomain is empty, so 2 pod entries fail to render with a DNS name ending in "." (e.g. pod payments/api-5c8b7f-xk2lm): set clusterDomain in the config or --cluster-domain',
    );
  });
});
