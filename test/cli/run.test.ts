import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_DIR } from '../../src/cli/demo.js';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { exitCode, httpGet, killIfRunning, manifestRunConfig, servedAt, spawnCli, waitForOutput } from '../support/cli.js';

async function until(cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!cond()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('`run` in manifest mode keeps SPIRE equal to the manifest files', () => {
  let dir: string;
  let spire: MemorySpireServer;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'run-'));
    cpSync(join(DEMO_DIR, 'manifests'), join(dir, 'manifests'), { recursive: true });
    writeFileSync(join(dir, 'config.yaml'), manifestRunConfig('demo.example', join(dir, 'manifests')));
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'demo.example' });
  });
  afterEach(async () => {
    await spire.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reconciles at start, again when a file changes, and exits 0 on SIGTERM', async () => {
    const cli = spawnCli(['run', '--config', join(dir, 'config.yaml'), '--socket', spire.socketPath]);
    try {
      await waitForOutput(cli, /"msg":"reconciled"/);
      // The demo cluster declares five pod entries and one static entry; the probe entry is gone again.
      expect(spire.entries.size).toBe(6);

      writeFileSync(
        join(dir, 'manifests', 'spire', 'extra.yaml'),
        'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterStaticEntry\nmetadata: {name: extra}\nspec: {spiffeID: /extra, parentID: /spire/server, selectors: ["unix:uid:1000"]}\n',
      );
      await until(() => spire.entries.all().some((e) => e.spiffeId.path === '/extra'));
      expect(spire.entries.size).toBe(7);
    } finally {
      cli.kill('SIGTERM');
    }
    expect(await exitCode(cli)).toBe(0);
    expect(cli.output()).toContain('"msg":"stopped"');
  });

  it('serves health probes and metrics, as live mode does, so the deploy patch\'s probes hold in manifest mode too', async () => {
    const cli = spawnCli(['run', '--config', join(dir, 'config.yaml'), '--socket', join(dir, 'later.sock')]);
    try {
      const health = await servedAt(cli, 'health probes');
      const metrics = await servedAt(cli, 'metrics');
      // Ready before SPIRE answers: a sidecar's readiness is the SPIRE server pod's.
      await waitForOutput(cli, /waiting for the SPIRE server/);
      expect(await httpGet(`${health}/healthz`)).toMatchObject({ status: 200, body: 'ok' });
      expect(await httpGet(`${health}/readyz`)).toMatchObject({ status: 200, body: 'ok' });
      const late = await MemorySpireServer.start({ socketPath: join(dir, 'later.sock'), trustDomain: 'demo.example' });
      try {
        await waitForOutput(cli, /"msg":"reconciled"/);
        const body = (await httpGet(`${metrics}/metrics`)).body;
        expect(body).toMatch(/^spire_reconciler_entries_total\{op="created"\} 6$/m);
        expect(body).toMatch(/^spire_reconciler_leader 1$/m);
        expect(body).toMatch(/^spire_reconciler_pass_seconds_count 1$/m);
      } finally {
        cli.kill('SIGTERM');
        expect(await exitCode(cli)).toBe(0);
        await late.stop();
      }
    } finally {
      await killIfRunning(cli);
    }
  });

  it('exits 0 on SIGTERM while still waiting for a SPIRE server that never answers', async () => {
    const cli = spawnCli(['run', '--config', join(dir, 'config.yaml'), '--socket', join(dir, 'nobody-listens.sock')]);
    await waitForOutput(cli, /waiting for the SPIRE server/);
    cli.kill('SIGTERM');
    expect(await exitCode(cli)).toBe(0);
    expect(cli.output()).toContain('"msg":"stopped"');
  });

  it('takes the config overrides every config-reading command takes (--cluster-name here)', async () => {
    const cli = spawnCli(['run', '--config', join(dir, 'config.yaml'), '--socket', spire.socketPath, '--cluster-name', 'other']);
    try {
      await waitForOutput(cli, /"msg":"reconciled"/);
      const parents = spire.entries.all().map((e) => e.parentId.path);
      expect(parents.some((p) => p.includes('/k8s_psat/other/'))).toBe(true);
      expect(parents.some((p) => p.includes('/k8s_psat/demo/'))).toBe(false);
    } finally {
      cli.kill('SIGTERM');
    }
    expect(await exitCode(cli)).toBe(0);
  });
});
