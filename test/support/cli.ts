import { rmSync } from 'node:fs';
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
// By absolute URL, so the CLI can run from any working directory (the image's is /).
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const main = join(repoRoot, 'src/cli/main.ts');

/**
 * The config file of a manifest-mode `run` in a test: JSON logs, one pass an
 * hour besides the file changes, and metrics and probes on free loopback
 * ports (the defaults, :8080 and :8081 on every address, collide with
 * whatever else holds them).
 */
export function manifestRunConfig(trustDomain: string, manifests: string): string {
  return [
    `trustDomain: ${trustDomain}`,
    'clusterName: demo',
    'clusterDomain: cluster.local',
    'gcInterval: 1h',
    'logEncoding: json',
    `staticManifestPath: ${manifests}`,
    'metrics: {bindAddress: "127.0.0.1:0"}',
    'health: {healthProbeBindAddress: "127.0.0.1:0"}',
  ].join('\n');
}

/** Runs the CLI from source in a child process, as `spire-reconciler <args>`, in the repository or in `cwd`. */
export function spawnCli(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ['--import', tsx, main, ...args], {
    cwd: opts.cwd ?? repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return Object.assign(child, { output: () => out });
}

export async function waitForOutput(child: ReturnType<typeof spawnCli>, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  const started = Date.now();
  while (!pattern.test(child.output())) {
    if (child.exitCode !== null) throw new Error(`CLI exited with ${child.exitCode}: ${child.output()}`);
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${pattern}: ${child.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return child.output();
}

export function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** The JSON log lines the process wrote so far. */
export function logLines(cli: ReturnType<typeof spawnCli>): Record<string, unknown>[] {
  return cli
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Where the process says it serves `what` ("metrics", "health probes"): it asked for port 0. */
export async function servedAt(cli: ReturnType<typeof spawnCli>, what: string): Promise<string> {
  await waitForOutput(cli, new RegExp(`"msg":"serving ${what}"`));
  const line = logLines(cli).find((l) => l.msg === `serving ${what}`);
  return `http://${String(line!.address)}`;
}

export async function httpGet(url: string): Promise<{ status: number; body: string; contentType: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text(), contentType: res.headers.get('content-type') ?? '' };
}

/** Ends a CLI process a test left running (a failed test), and waits until it has gone. */
export async function killIfRunning(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = exitCode(child);
  child.kill('SIGKILL');
  await exited;
}

/**
 * Ends what a test of the CLI as a process started, in order: the process
 * (if a failed assertion left it running), the servers it talked to, and its
 * directory.
 */
export async function endProcessTest(parts: { cli: ChildProcess | undefined; servers: { stop?(): Promise<void>; close?(): Promise<void> }[]; dir: string }): Promise<void> {
  await killIfRunning(parts.cli);
  for (const s of parts.servers) await (s.stop ?? s.close)?.call(s);
  rmSync(parts.dir, { recursive: true, force: true });
}
