/**
 * Starts a real SPIRE server (the binary scripts/real-spire/install.sh builds)
 * for a test: its own temp folder with a sqlite datastore, a disk key manager
 * and the admin socket, on a trust domain of the test's. Only the process
 * started here is ever signalled.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpireClient } from '../../src/spire/index.js';
import { repoRoot } from './cli.js';
import type { RawStubs } from './spire.js';

/** The pinned versions, read from scripts/real-spire/versions.env (the install script's source). */
export function realSpireVersions(): Record<string, string> {
  const text = readFileSync(join(repoRoot, 'scripts/real-spire/versions.env'), 'utf8');
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_]+)=(\S+)$/.exec(line.trim());
    if (m) out[m[1] as string] = m[2] as string;
  }
  return out;
}

function cacheDir(): string {
  return join(process.env.SPIRE_RECONCILER_CACHE ?? join(homedir(), '.cache/spire-reconciler'), 'real-spire');
}

/** `SPIRE_SERVER_BIN`, or where install.sh puts the pinned spire-server. */
export function spireServerBinary(): string {
  if (process.env.SPIRE_SERVER_BIN) return process.env.SPIRE_SERVER_BIN;
  const v = realSpireVersions().SPIRE_VERSION;
  return join(cacheDir(), `spire-server-${v}`, 'spire-server');
}

/** `SPIRE_OLD_SERVER_BIN`, or where install.sh --old puts the pinned SPIRE older than 1.8.0. */
export function oldSpireServerBinary(): string {
  if (process.env.SPIRE_OLD_SERVER_BIN) return process.env.SPIRE_OLD_SERVER_BIN;
  const v = realSpireVersions().SPIRE_OLD_VERSION;
  return join(cacheDir(), `spire-server-${v}`, 'spire-server');
}

/** `SPIRE_AGENT_BIN`, or where install.sh --agent puts the pinned spire-agent (beside the server). */
export function spireAgentBinary(): string {
  if (process.env.SPIRE_AGENT_BIN) return process.env.SPIRE_AGENT_BIN;
  const v = realSpireVersions().SPIRE_VERSION;
  return join(cacheDir(), `spire-server-${v}`, 'spire-agent');
}

/** Where install.sh --peer puts the pinned spire-controller-manager. */
export function peerBinary(): string {
  const v = realSpireVersions().SPIRE_CONTROLLER_MANAGER_VERSION;
  return join(cacheDir(), `spire-controller-manager-${v}`, 'spire-controller-manager');
}

export interface RealSpireOptions {
  trustDomain?: string;
  /** Default 24 h, as SPIRE's default. */
  caTtl?: string;
  /** Default 1 h, as SPIRE's default. */
  defaultX509SvidTtl?: string;
  binary?: string;
  /** Milliseconds to wait for the server to answer. Default 60 s. */
  startTimeoutMs?: number;
  /** The server's `admin_ids`: SPIFFE IDs allowed the admin API on its TCP port. */
  adminIds?: readonly string[];
}

export interface RealSpire {
  readonly socketPath: string;
  readonly trustDomain: string;
  readonly dir: string;
  readonly pid: number;
  /** "127.0.0.1:<port>" of the agent-facing TCP listener (a new port after a restart). */
  readonly address: string;
  /** What the server wrote to stdout and stderr so far. */
  log(): string;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s) and removes its folder. */
  stop(): Promise<void>;
  /** Stops the server and starts it again on the same data and socket. */
  restart(): Promise<void>;
}

/** A TCP port free right now on loopback. SPIRE refuses port 0 for its agent listener. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

function serverConfig(dir: string, port: number, o: Required<Pick<RealSpireOptions, 'trustDomain' | 'caTtl' | 'defaultX509SvidTtl'>> & Pick<RealSpireOptions, 'adminIds'>): string {
  // HCL; JSON strings are valid HCL strings.
  const s = JSON.stringify;
  const adminIds = o.adminIds?.length ? `\n  admin_ids = ${s(o.adminIds)}` : '';
  return `server {
  bind_address = "127.0.0.1"
  bind_port = "${port}"
  socket_path = ${s(join(dir, 'api.sock'))}
  trust_domain = ${s(o.trustDomain)}
  data_dir = ${s(join(dir, 'data'))}
  log_level = "WARN"
  ca_ttl = ${s(o.caTtl)}
  default_x509_svid_ttl = ${s(o.defaultX509SvidTtl)}${adminIds}
}

plugins {
  DataStore "sql" {
    plugin_data {
      database_type = "sqlite3"
      connection_string = ${s(join(dir, 'data', 'datastore.sqlite3'))}
    }
  }
  KeyManager "disk" {
    plugin_data {
      keys_path = ${s(join(dir, 'data', 'keys.json'))}
    }
  }
  NodeAttestor "join_token" {
    plugin_data {}
  }
}
`;
}

/** Every started server, so a test process that dies early still stops them. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

async function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Starts a real SPIRE server and waits until its admin API answers. */
export async function startRealSpire(opts: RealSpireOptions = {}): Promise<RealSpire> {
  const binary = opts.binary ?? spireServerBinary();
  if (!existsSync(binary)) {
    throw new Error(`no spire-server at ${binary}: run \`npm run real-spire:install\` (needs go), or set SPIRE_SERVER_BIN`);
  }
  const trustDomain = opts.trustDomain ?? 'example.org';
  const dir = mkdtempSync(join(tmpdir(), 'real-spire-'));
  const socketPath = join(dir, 'api.sock');
  const configPath = join(dir, 'server.conf');
  let output = '';
  let child!: ChildProcess;
  let port = 0;

  const launch = async (): Promise<void> => {
    // The port is only free when checked; another process may take it before SPIRE binds, so retry.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      writeFileSync(
        configPath,
        serverConfig(dir, port, { trustDomain, caTtl: opts.caTtl ?? '24h', defaultX509SvidTtl: opts.defaultX509SvidTtl ?? '1h', adminIds: opts.adminIds }),
      );
      child = spawn(binary, ['run', '-config', configPath], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      running.add(child);
      child.once('exit', () => running.delete(child));
      child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
      try {
        await waitUntilServing(child, socketPath, opts.startTimeoutMs ?? 60_000, () => output);
        return;
      } catch (err) {
        child.kill('SIGKILL');
        await waitForExit(child, 5_000);
        if (attempt >= 3 || !/address already in use/.test(output)) throw err;
      }
    }
  };

  const stopChild = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    if (!(await waitForExit(child, 10_000))) {
      child.kill('SIGKILL');
      await waitForExit(child, 5_000);
    }
  };

  try {
    await launch();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    socketPath,
    trustDomain,
    dir,
    get pid() {
      return child.pid ?? -1;
    },
    get address() {
      return `127.0.0.1:${port}`;
    },
    log: () => output,
    async stop() {
      await stopChild();
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await stopChild();
      await launch();
    },
  };
}

async function waitUntilServing(child: ChildProcess, socketPath: string, timeoutMs: number, log: () => string): Promise<void> {
  const client = new SpireClient({ socket: socketPath, rpcTimeoutMs: 2_000 });
  const started = Date.now();
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`spire-server exited (${child.exitCode ?? child.signalCode}) before serving:\n${log()}`);
      }
      if (existsSync(socketPath)) {
        try {
          // The own bundle exists once the CA is prepared, the last step before serving agents.
          await client.getBundle();
          return;
        } catch {
          // not ready yet
        }
      }
      if (Date.now() - started > timeoutMs) throw new Error(`spire-server did not answer on ${socketPath} within ${timeoutMs} ms:\n${log()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    client.close();
  }
}

/** Deletes every entry, federation relationship and federated bundle, in that order (entries pin bundles). */
export async function emptySpire(raw: RawStubs): Promise<void> {
  const ids = (await raw.entry.ListEntries({ output_mask: {} })).entries.map((e) => e.id);
  for (let i = 0; i < ids.length; i += 500) {
    const res = await raw.entry.BatchDeleteEntry({ ids: ids.slice(i, i + 500) });
    assertAllOk('delete entry', res.results);
  }
  const tds = (await raw.trustDomain.ListFederationRelationships({})).federation_relationships.map((fr) => fr.trust_domain);
  if (tds.length > 0) assertAllOk('delete federation relationship', (await raw.trustDomain.BatchDeleteFederationRelationship({ trust_domains: tds })).results);
  const bundles = (await raw.bundle.ListFederatedBundles({})).bundles.map((b) => b.trust_domain);
  if (bundles.length > 0) assertAllOk('delete federated bundle', (await raw.bundle.BatchDeleteFederatedBundle({ trust_domains: bundles })).results);
}

function assertAllOk(what: string, results: { status: { code: number; message: string } | null }[]): void {
  const failed = results.find((r) => r.status?.code !== 0);
  if (failed) throw new Error(`emptying the SPIRE server: ${what} failed: ${failed.status?.message}`);
}
