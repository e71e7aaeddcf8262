/**
 * `run`'s health probes from the first milliseconds of the process. bin.ts
 * starts them before it loads the CLI, whose code takes a few hundred
 * milliseconds to load, during which its event loop answers nothing: in the
 * SPIRE server's pod the kubelet probes a restarted container's readiness as
 * soon as it sees it running, and a probe missed keeps the whole pod, SPIRE
 * included, out of its Service for another probe period
 * (docs/reliability.md). So a thread of its own, whose event loop nothing
 * else uses, answers the probes: from now, and, for readiness, until the
 * start is over, since a cold start of thousands of pods keeps the main
 * thread busy too (manager/health.ts handOverWhen ends it then, once it has
 * answered the kubelet). In that pod readiness is a ping (manager/health.ts), so
 * answering it there says nothing the controller would not say. When `run`
 * serves its probes it attaches to that thread (net/http.ts offerListener,
 * manager/health.ts serveAt), which hands it every request but readiness:
 * liveness, the conditions, `?verbose`, metrics on the same port.
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
import { type BindAddress, hostPort, offerListener, parseBindAddress } from '../net/http.js';

interface EarlyProbeSettings {
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
function earlyAnswer(path: string, readinessPath: string, livenessPath: string): { status: number; body: string } {
  if (path === readinessPath || path === livenessPath) return { status: 200, body: 'ok' };
  return { status: 503, body: path.startsWith(`${readinessPath}/`) ? `${path.slice(readinessPath.length + 1)}: starting\n` : 'starting\n' };
}

/**
 * The probe thread's program (CommonJS, run with `eval`, so that it needs no
 * file of its own beside the bundle): listens at workerData's address; says
 * "listening" or the error. The readiness probe (no `?verbose`) it answers
 * itself, `ok`, until it is told to stop: in the SPIRE server's pod
 * readiness is a ping, and so it never waits for the main thread, however
 * busy (a cold start of thousands of pods); it says "answered" after the
 * first. Until `run` attaches, it answers the rest as earlyAnswer; after, it
 * hands each request to the main thread and writes its answer. Told to stop,
 * it closes and ends.
 */
const WORKER = `
const { createServer } = require('node:http');
const { parentPort, workerData: w } = require('node:worker_threads');
const earlyAnswer = ${earlyAnswer.toString()};
const waiting = new Map();
let attached = false;
let answered = false;
let next = 0;
const server = createServer((req, res) => {
  const url = new URL(req.url || '/', 'http://localhost');
  const probe = (req.method === 'GET' || req.method === 'HEAD') && url.pathname === w.readinessPath && !url.searchParams.has('verbose');
  if (probe && !answered) {
    answered = true;
    parentPort.postMessage({ type: 'answered' });
  }
  if (probe || !attached) {
    const a = earlyAnswer(url.pathname, w.readinessPath, w.livenessPath);
    res.writeHead(a.status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : a.body);
    return;
  }
  const id = ++next;
  waiting.set(id, res);
  res.on('close', () => waiting.delete(id));
  parentPort.postMessage({ type: 'ask', id, method: req.method, url: req.url || '/' });
});
server.once('error', (err) => parentPort.postMessage({ type: 'failed', why: String(err.code || err.message) }));
server.listen({ port: w.port, host: w.host, reusePort: true }, () => parentPort.postMessage({ type: 'listening' }));
parentPort.on('message', (m) => {
  if (m.type === 'attach') attached = true;
  else if (m.type === 'answer') {
    const res = waiting.get(m.id);
    waiting.delete(m.id);
    if (res) {
      res.writeHead(m.status, { ...m.headers, 'Content-Length': String(Buffer.byteLength(m.body)) });
      res.end(m.method === 'HEAD' ? undefined : m.body);
    }
  } else if (m.type === 'stop') server.close(() => process.exit(0));
});
`;

/** Listens with SO_REUSEPORT; resolves false when the address cannot be bound. */
function listenShared(server: Server, bind: BindAddress): Promise<boolean> {
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    // Node's listen options: no host (absent, not undefined) is every address.
    server.listen({ port: bind.port, ...(bind.host !== undefined ? { host: bind.host } : {}), reusePort: true }, () => resolve(true));
  });
}

/**
 * Answers at the probe address `run` will use, and offers the listener to
 * `run`'s probe server. This thread listens first, at once: a probe that
 * comes before the probe thread listens waits in the backlog for an answer
 * rather than being refused (a refused probe fails, and costs a probe
 * period). Then the probe thread listens beside it, and this thread's socket
 * closes. `run` attaches to the probe thread (manager/health.ts), which goes
 * on answering readiness itself. Never throws: an address that cannot be
 * bound is left for `run` to report as it always does; a probe thread that
 * does not start leaves this thread's listener offered, for `run` to bind
 * beside and release.
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
  // Listened for from the start: the thread may answer a probe as soon as it listens.
  const answered = new Promise<void>((resolve) => worker.on('message', (m: { type: string }) => m.type === 'answered' && resolve()));
  const said = await new Promise<string>((resolve) => {
    worker.once('message', (m: { type: string; why?: string }) => resolve(m.type === 'listening' ? 'listening' : (m.why ?? m.type)));
    worker.once('error', (err) => resolve(err.message));
  });
  if (said !== 'listening') {
    await worker.terminate();
    offerListener(bind, { release: closeHere });
    return;
  }
  await closeHere();
  const stop = async () => {
    worker.postMessage({ type: 'stop' });
    await exited;
  };
  offerListener(bind, {
    release: stop,
    attach(serve) {
      worker.on('message', (m: { type: string; id: number; method: string; url: string }) => {
        if (m.type !== 'ask') return;
        void serve({ method: m.method, url: m.url }).then((a) => worker.postMessage({ type: 'answer', id: m.id, method: m.method, ...a }));
      });
      worker.postMessage({ type: 'attach' });
      return { address: hostPort(bind.host ?? '', bind.port), answered, close: stop };
    },
  });
}
