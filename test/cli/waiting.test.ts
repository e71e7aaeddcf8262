/**
 * Nothing silent: while the CLI waits for the SPIRE server or the
 * Kubernetes API server it says so on stderr, at once and every 5 s with
 * the time waited, whatever the log level (here `logLevel: warn`, the demo
 * config's, under which the log says nothing of a wait). Each line carries
 * the time waited, so "at once" reads off the first one: no time yet.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DEMO_DIR } from '../../src/cli/demo.js';
import { endProcessTest, exitCode, logLines, manifestRunConfig, spawnCli, waitForOutput } from '../support/cli.js';

const manifests = join(DEMO_DIR, 'manifests');
const entries = join(DEMO_DIR, 'spire-entries.json');
// Process start-up on a loaded machine takes seconds of its own.
const SLOW = 60_000;

/**
 * A server that accepts connections and never answers: an API server behind a dead VPN or a
 * firewall dropping replies, or (on a Unix socket `path`) a SPIRE server still starting.
 */
async function silentServer(path?: string): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => void sockets.add(s));
  await new Promise<void>((resolve) => (path ? server.listen(path, resolve) : server.listen(0, '127.0.0.1', resolve)));
  const { port } = path ? { port: 0 } : (server.address() as { port: number });
  return {
    url: path ?? `http://127.0.0.1:${port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('waiting for SPIRE or the API server is said on stderr at once and every few seconds, whatever the log level', () => {
  let dir: string;
  let cli: ReturnType<typeof spawnCli> | undefined;
  let api: Awaited<ReturnType<typeof silentServer>> | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waiting-'));
  });
  afterEach(async () => {
    await endProcessTest({ cli, servers: api ? [api] : [], dir });
    cli = undefined;
    api = undefined;
  });

  /** The demo's config (logLevel warn), with metrics and probes on free ports so that `run` can serve them. */
  function warnConfig(extra: Record<string, unknown> = {}): string {
    const path = join(dir, 'config.yaml');
    writeFileSync(
      path,
      stringify({ trustDomain: 'demo.example', clusterName: 'demo', clusterDomain: 'cluster.local', logLevel: 'warn', metrics: { bindAddress: '127.0.0.1:0' }, health: { healthProbeBindAddress: '127.0.0.1:0' }, ...extra }),
    );
    return path;
  }

  function kubeconfig(url: string): string {
    const path = join(dir, 'kubeconfig');
    writeFileSync(
      path,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'silent', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'silent',
      }),
    );
    return path;
  }

  it('plan with the demo config and a SPIRE socket that does not answer yet: at once with the limit, then every 5 s', { timeout: SLOW }, async () => {
    const socket = join(dir, 'api.sock');
    api = await silentServer(socket);
    cli = spawnCli(['plan', '--config', join(DEMO_DIR, 'config.yaml'), '--manifests', manifests, '--socket', socket]);
    await waitForOutput(cli, /\(5 s of 30 s\)…/, SLOW);
    expect(cli.output().trim().split('\n')).toEqual([`waiting for the SPIRE server at ${socket} (up to 30 s)…`, `waiting for the SPIRE server at ${socket} (5 s of 30 s)…`]);
  });

  it('run --manifests without a SPIRE socket says it until SIGTERM, in plain lines with console logs', { timeout: SLOW }, async () => {
    const socket = join(dir, 'api.sock');
    cli = spawnCli(['run', '--config', warnConfig(), '--manifests', manifests, '--socket', socket]);
    await waitForOutput(cli, /\(5 s\)…/, SLOW);
    expect(cli.output().trim().split('\n')).toEqual([`waiting for the SPIRE server at ${socket}…`, `waiting for the SPIRE server at ${socket} (5 s)…`]);
    cli.kill('SIGTERM');
    expect(await exitCode(cli)).toBe(0);
  });

  it('run with json logs says it in JSON lines, so a pod log stays one object per line', { timeout: SLOW }, async () => {
    const socket = join(dir, 'api.sock');
    writeFileSync(join(dir, 'config.yaml'), `${manifestRunConfig('demo.example', manifests)}\nlogLevel: warn\n`);
    cli = spawnCli(['run', '--config', join(dir, 'config.yaml'), '--socket', socket]);
    await waitForOutput(cli, /\(5 s\)…/, SLOW);
    expect(cli.output().split('\n').filter((l) => l !== '' && !l.startsWith('{'))).toEqual([]);
    expect(logLines(cli).map((l) => l.msg)).toEqual([`waiting for the SPIRE server at ${socket}…`, `waiting for the SPIRE server at ${socket} (5 s)…`]);
  });

  it('plan on a cluster whose API server does not answer: said within a second, then every 5 s', { timeout: SLOW }, async () => {
    api = await silentServer();
    cli = spawnCli(['plan', '--config', join(DEMO_DIR, 'config.yaml'), '--entries', entries], { env: { KUBECONFIG: kubeconfig(api.url) } });
    await waitForOutput(cli, /\(6 s\)…/, SLOW);
    expect(cli.output().trim().split('\n')).toEqual([
      `waiting for the Kubernetes API server at ${api.url} (context silent)…`,
      `waiting for the Kubernetes API server at ${api.url} (context silent) (6 s)…`,
    ]);
  });

  it('run in live mode says it waits for the first lists and for SPIRE, each on its own', { timeout: SLOW }, async () => {
    api = await silentServer();
    const socket = join(dir, 'api.sock');
    cli = spawnCli(['run', '--config', warnConfig({ spireServerSocketPath: socket })], { env: { KUBECONFIG: kubeconfig(api.url), ENABLE_WEBHOOKS: 'false' } });
    await waitForOutput(cli, /first lists\) \(6 s\)…/, SLOW);
    const lines = cli.output().trim().split('\n');
    expect(lines).toContain(`waiting for the SPIRE server at ${socket}…`);
    expect(lines).toContain(`waiting for the SPIRE server at ${socket} (5 s)…`);
    expect(lines).toContain(`waiting for the Kubernetes API server at ${api.url} (the first lists)…`);
    expect(lines).toContain(`waiting for the Kubernetes API server at ${api.url} (the first lists) (6 s)…`);
    // A stop while the first lists hang ends the process cleanly, as a pod's termination expects.
    cli.kill('SIGTERM');
    expect(await exitCode(cli)).toBe(0);
  });
});
