/**
 * `run`'s health probes from the first milliseconds of the process. bin.ts
 * starts them before it loads the CLI, whose code takes a few hundred
 * milliseconds to load, during which its event loop answers nothing: in the
 * SPIRE server's pod the kubelet probes a restarted container's readiness as
 * soon as it sees it running, and a probe missed keeps the whole pod, SPIRE
 * included, out of its Service for another probe period
 * (docs/reliability.md). So a worker thread, whose event loop is its own,
 * answers them meanwhile. In that pod readiness is a ping
 * (manager/health.ts), so answering it now says nothing the controller would
 * not say later. When `run` serves its own probes it binds the same address
 * beside the worker (both with SO_REUSEPORT, so the port is never closed),
 * and the worker stops (net/http.ts offerListener and listen).
 *
 * Only where the settings are plain to read without loading the CLI: `run`
 * (or spire-controller-manager's flags), a config file that names
 * `health.healthProbeBindAddress` once in a form read here, no
 * `--expand-env` and no standalone layout (there readiness is decided by the
 * controller's conditions, so it must not be answered before them). Anything
 * else starts nothing here; `run` binds as it always does.
 *
 * This module is loaded before the CLI's bundle: it imports only Node and
 * net/http.ts.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { Worker } from 'node:worker_threads';
import { type BindAddress, offerListener, parseBindAddress } from '../net/http.js';

export interface EarlyProbeSettings {
  bind: BindAddress;
  readinessPath: string;
  livenessPath: string;
}

/** A flag's value: `--name value`, `--name=value`, or Go's single-dash forms. */
function flagValue(args: readonly string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === `--${name}` || a === `-${name}`) return args[i + 1];
    for (const prefix of [`--${name}=`, `-${name}=`]) if (a.startsWith(prefix)) return a.slice(prefix.length);
  }
  return undefined;
}

const has = (args: readonly string[], name: string) => args.some((a) => a === `--${name}` || a === `-${name}` || a.startsWith(`--${name}=`) || a.startsWith(`-${name}=`));

/** The one value of a key anywhere in the file (block or flow style, quoted or not); undefined when absent or given twice. */
function keyValue(text: string, key: string): string | undefined {
  const found = [...text.matchAll(new RegExp(`(?:^|[\\s{,])${key}:[ \\t]*(?:"([^"\\n]*)"|'([^'\\n]*)'|([^\\s#,}]*))`, 'gm'))];
  if (found.length !== 1) return undefined;
  const m = found[0]!;
  return m[1] ?? m[2] ?? m[3];
}

/**
 * Where `run`, given these arguments, will serve its probes, when that can be
 * read without loading the CLI; undefined otherwise (see the module's comment).
 */
export function earlyProbeSettings(args: readonly string[], read: (path: string) => string = (p) => readFileSync(p, 'utf8')): EarlyProbeSettings | undefined {
  const rest = args.filter((a) => a !== '--debug');
  const first = rest[0];
  // `run`, or upstream's flags alone (which mean run): cli/upstream-argv.ts.
  const isRun = first === 'run' || (first !== undefined && first.startsWith('-') && !['-h', '--help', '-help', '-V', '--version', '-version'].includes(first));
  if (!isRun || has(rest, 'expand-env') || has(rest, 'spire-server-address')) return undefined;
  const file = flagValue(rest, 'config');
  if (!file) return undefined;
  let text: string;
  try {
    text = read(file);
  } catch {
    return undefined;
  }
  if (/(?:^|[\s{,])spireServerAddress:/m.test(text)) return undefined;
  const address = keyValue(text, 'healthProbeBindAddress');
  if (address === undefined) return undefined;
  let bind: BindAddress | undefined;
  try {
    bind = parseBindAddress(address, 'health probe bind address');
  } catch {
    return undefined;
  }
  if (!bind || bind.port === 0) return undefined;
  const path = (v: string | undefined, fallback: string) => (v === undefined || v === '' ? fallback : v.startsWith('/') ? v : `/${v}`);
  // controller-runtime's defaults, which config.ts also takes (a test keeps the two equal).
  return { bind, readinessPath: path(keyValue(text, 'readinessEndpointName'), '/readyz'), livenessPath: path(keyValue(text, 'livenessEndpointName'), '/healthz') };
}

/**
 * The early answer to a request for `path`: readiness and liveness `ok`,
 * a condition (`<readiness>/<name>`) and anything else 503 `starting`. Self-
 * contained, since the worker runs it from its source text.
 */
export function earlyAnswer(path: string, readinessPath: string, livenessPath: string): { status: number; body: string } {
  if (path === readinessPath || path === livenessPath) return { status: 200, body: 'ok' };
  return { status: 503, body: path.startsWith(`${readinessPath}/`) ? `${path.slice(readinessPath.length + 1)}: starting\n` : 'starting\n' };
}

/**
 * The worker's program (CommonJS, run with `eval`, so that it needs no file
 * of its own beside the bundle): listens at workerData's address and answers
 * as earlyAnswer; says "listening" or the error; stops listening and ends
 * when told.
 */
const WORKER = `
const { createServer } = require('node:http');
const { parentPort, workerData: w } = require('node:worker_threads');
const earlyAnswer = ${earlyAnswer.toString()};
const server = createServer((req, res) => {
  const a = earlyAnswer(new URL(req.url || '/', 'http://localhost').pathname, w.readinessPath, w.livenessPath);
  res.writeHead(a.status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'close' });
  res.end(a.body);
});
server.once('error', (err) => parentPort.postMessage(String(err.code || err.message)));
server.listen({ port: w.port, host: w.host, reusePort: true }, () => parentPort.postMessage('listening'));
parentPort.once('message', () => server.close(() => process.exit(0)));
`;

/** Listens with SO_REUSEPORT; resolves false when the address cannot be bound. */
function listenShared(server: Server, bind: BindAddress): Promise<boolean> {
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen({ port: bind.port, ...(bind.host !== undefined ? { host: bind.host } : {}), reusePort: true }, () => resolve(true));
  });
}

/**
 * Answers at the probe address `run` will use, and offers the listener to
 * `run`'s probe server. This thread listens first, at once: a probe that
 * comes before the worker listens waits in the backlog for an answer rather
 * than being refused (a refused probe fails, and costs a probe period). Then
 * the worker listens beside it, and this thread's socket closes: from then on
 * the worker answers at once, whatever this thread is loading. Never throws:
 * an address that cannot be bound is left for `run` to report as it always
 * does; a worker that does not start leaves this thread's listener offered.
 */
export async function startEarlyProbes(args: readonly string[]): Promise<void> {
  const settings = earlyProbeSettings(args);
  if (!settings) return;
  const { bind, readinessPath, livenessPath } = settings;
  const here = createServer((req, res) => {
    const a = earlyAnswer(new URL(req.url ?? '/', 'http://localhost').pathname, readinessPath, livenessPath);
    res.writeHead(a.status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'close' });
    res.end(a.body);
  });
  if (!(await listenShared(here, bind))) return;
  const closeHere = () => new Promise<void>((resolve) => here.close(() => resolve()));
  const worker = new Worker(WORKER, { eval: true, workerData: { port: bind.port, host: bind.host, readinessPath, livenessPath } });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const said = await new Promise<string>((resolve) => {
    worker.once('message', (m: string) => resolve(m));
    worker.once('error', (err) => resolve(err.message));
  });
  if (said !== 'listening') {
    await worker.terminate();
    offerListener(bind, { release: closeHere });
    return;
  }
  await closeHere();
  offerListener(bind, {
    release: async () => {
      worker.postMessage('stop');
      await exited;
    },
  });
}
