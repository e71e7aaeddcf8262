import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { type BindAddress, closeServer, type HttpAnswer, type HttpAsk, listen, parseBindAddress, sameBindAddress, takeOfferedListener } from '../net/http.js';
import { errorMessage } from '../api/errors.js';
import type { ClusterCache } from '../kube/cluster.js';
import type { ControllerMetrics } from './metrics.js';
import { untilAborted } from './lifecycle.js';

/** One named condition behind a probe. Synchronous and cheap: probes run often and must not hang. */
export interface Check {
  name: string;
  check(): { ok: boolean; detail?: string };
}

/**
 * Live mode's caches: every informer has listed once. A synced cache that
 * may have fallen behind still passes, but says so in its detail: which
 * informers, since when and why (a relist is under way; nothing a restart
 * would fix).
 */
export function informersSynced(cache: () => ClusterCache | undefined): Check {
  return {
    name: 'informers-synced',
    check: () => {
      const c = cache();
      if (!c) return { ok: false, detail: 'starting' };
      if (!c.hasSynced) return { ok: false, detail: `waiting for ${c.unsynced().join(', ')}` };
      const now = Date.now();
      const stale = c.stale().map((s) => `${s.informer} may be stale for ${Math.round((now - s.since) / 1000)}s (${s.reason})`);
      return stale.length > 0 ? { ok: true, detail: stale.join('; ') } : { ok: true };
    },
  };
}

/** Always passes: liveness that proves only that the event loop answers (upstream's healthz.Ping). */
export const ping: Check = { name: 'ping', check: () => ({ ok: true }) };

/**
 * Which conditions decide readiness. In the SPIRE server's pod (the sidecar
 * layout, the chart's) the pod's readiness is the SPIRE server's place in its
 * Service: a condition of ours that fails there takes SPIRE out of service
 * and fixes nothing, so readiness is a ping, as spire-controller-manager's
 * (healthz.Ping) is. In a Deployment of its own (the standalone layout) the
 * controller's readiness is only its own: it keeps the webhook Service and a
 * rollout off a replica that has not synced or has no serving certificate.
 */
export type Layout = 'sidecar' | 'standalone';

/** The conditions that gate readiness in a layout: none in the SPIRE server's pod, all of them in a pod of its own. */
export function readinessGates(layout: Layout, conditions: readonly Check[]): Check[] {
  return layout === 'standalone' ? [...conditions] : [];
}

interface ObservabilityOptions {
  /** ":8080", "0.0.0.0:8082", "127.0.0.1:0", "[::1]:8080"; "0" or "" switches metrics off. */
  metricsBindAddress: string;
  /** Same forms; "0" or "" switches the probes off. */
  healthProbeBindAddress: string;
  readinessPath: string;
  livenessPath: string;
  metrics: ControllerMetrics;
  /** Decide the readiness probe's status. */
  readiness: Check[];
  /** Decide the liveness probe's status. */
  liveness: Check[];
  /**
   * What the controller knows of its own state (initial sync, webhook
   * certificate, ...), for people and alerts: each is listed by the
   * readiness path's `?verbose`, served alone at `<readinessPath>/<name>`
   * (200 or 503) and exported as `spire_reconciler_check_ok`. It decides the
   * readiness probe only if it is in `readiness` too.
   */
  conditions?: Check[];
  log?: Logger;
  /**
   * Resolves when the start is over (live mode: caches synced, SPIRE
   * answered). An early probe thread (cli/early-probes.ts) answers readiness
   * until then, and until it has answered once; this thread's server then
   * takes the address over and the thread ends. Absent: the thread answers
   * for the process's life.
   */
  startOver?: Promise<void>;
}

export interface Observability {
  /** Where metrics are served, e.g. "127.0.0.1:41234"; absent when switched off. */
  metricsAddress?: string;
  healthAddress?: string;
  /**
   * Resolves when the early probe thread has answered its first readiness
   * probe (the kubelet's, in a pod); absent when no such thread answers it.
   */
  readinessAnswered?: Promise<void>;
  close(): Promise<void>;
}

interface Result {
  name: string;
  ok: boolean;
  detail: string;
}

function runCheck(c: Check): Result {
  try {
    const r = c.check();
    return { name: c.name, ok: r.ok, detail: r.detail ?? (r.ok ? 'ok' : 'failed') };
  } catch (err) {
    // A check that throws is a failing check, not a crashed probe endpoint.
    return { name: c.name, ok: false, detail: `check threw: ${errorMessage(err)}` };
  }
}

/** One probe: the checks that decide its status, and those it only reports. */
interface Probe {
  kind: 'readiness' | 'liveness';
  gates: readonly Check[];
  reports: readonly Check[];
}

/**
 * The probe body. Plain: "ok", or one "<name>: <detail>" line per failing
 * gating check. Verbose (`?verbose`): every check as Kubernetes' healthz
 * prints them, "[+]name ok" / "[-]name failed: detail", those that do not
 * decide the probe marked so, then a summary line.
 */
function probeResponse(probe: Probe, verbose: boolean): { status: number; body: string } {
  const gating = probe.gates.map(runCheck);
  const failing = gating.filter((r) => !r.ok);
  const status = failing.length === 0 ? 200 : 503;
  if (verbose) {
    const line = (r: Result, note = '') =>
      // A passing check may still have something to say (a cache that may be stale): after "ok".
      r.ok ? `[+]${r.name} ok${r.detail === 'ok' ? '' : `: ${r.detail}`}${note}` : `[-]${r.name} failed: ${r.detail}${note}`;
    const gatingNames = new Set(probe.gates.map((c) => c.name));
    const reported = probe.reports.filter((c) => !gatingNames.has(c.name)).map(runCheck);
    const lines = [...gating.map((r) => line(r)), ...reported.map((r) => line(r, ` (does not decide ${probe.kind})`))];
    lines.push(`${probe.kind} check ${status === 200 ? 'passed' : 'failed'}`);
    return { status, body: `${lines.join('\n')}\n` };
  }
  if (status === 200) return { status, body: 'ok' };
  return { status, body: `${failing.map((r) => `${r.name}: ${r.detail}`).join('\n')}\n` };
}

/** One check alone, at `<probe path>/<name>`: its own status, whatever decides the probe. */
function checkResponse(check: Check): { status: number; body: string } {
  const r = runCheck(check);
  return r.ok ? { status: 200, body: r.detail } : { status: 503, body: `${r.name}: ${r.detail}\n` };
}

const TEXT = 'text/plain; charset=utf-8';

function answer(status: number, body: string, contentType = TEXT, extra: Record<string, string> = {}): HttpAnswer {
  // A probe's answer is for now only.
  return { status, body, headers: { 'Content-Type': contentType, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store', ...extra } };
}

interface ProbeRoutes {
  readinessPath: string;
  livenessPath: string;
  readiness: Probe;
  liveness: Probe;
  /** `<probe path>/<check name>` to the check. */
  single: Map<string, Check>;
}

interface Routes {
  metrics?: ControllerMetrics;
  probes?: ProbeRoutes;
  log?: Logger;
}

/** The answer to one request: the same whether this thread's server took it or a probe thread handed it over. */
async function respond(routes: Routes, ask: HttpAsk): Promise<HttpAnswer> {
  // The host part is irrelevant: only the path and query are read.
  const url = new URL(ask.url, 'http://localhost');
  const path = url.pathname;
  const probes = routes.probes;
  const probe = probes && (path === probes.readinessPath ? probes.readiness : path === probes.livenessPath ? probes.liveness : undefined);
  const single = probes?.single.get(path);
  const metrics = path === '/metrics' ? routes.metrics : undefined;
  if (!metrics && !probe && !single) return answer(404, 'not found\n');
  if (ask.method !== 'GET' && ask.method !== 'HEAD') return answer(405, 'method not allowed\n', TEXT, { Allow: 'GET, HEAD' });
  if (metrics) {
    try {
      const { contentType, body } = await metrics.expose();
      return answer(200, body, contentType);
    } catch (err) {
      routes.log?.error({ err }, 'collecting metrics failed');
      return answer(500, `collecting metrics failed: ${errorMessage(err)}\n`);
    }
  }
  const { status, body } = probe ? probeResponse(probe, url.searchParams.has('verbose')) : checkResponse(single!);
  return answer(status, body);
}

function handler(routes: Routes): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    void respond(routes, { method: req.method ?? 'GET', url: req.url ?? '/' }).then((a) => {
      res.writeHead(a.status, { ...a.headers, 'Content-Length': String(Buffer.byteLength(a.body)) });
      res.end(a.body);
    });
  };
}

/** A name without its leading slash ("readyz") could never match a request path; take it as meant. */
function asPath(name: string): string {
  return name.startsWith('/') ? name : `/${name}`;
}

/**
 * Serves /metrics on the metrics address and the readiness and liveness
 * probes on the health address: one server when both name the same host and
 * port (two would collide; port 0 gives each its own ephemeral port), none
 * for an address that is "0" or "". Resolves when everything listens;
 * if any server cannot bind, the others are closed and the error names the
 * address.
 */
export async function serveObservability(opts: ObservabilityOptions): Promise<Observability> {
  const metricsBind = parseBindAddress(opts.metricsBindAddress, 'metrics bind address');
  const healthBind = parseBindAddress(opts.healthProbeBindAddress, 'health probe bind address');
  const readinessPath = asPath(opts.readinessPath);
  const livenessPath = asPath(opts.livenessPath);
  if (healthBind && readinessPath === livenessPath) throw new Error(`readiness and liveness endpoints must differ, both are ${readinessPath}`);
  const conditions = opts.conditions ?? [];
  const single = new Map<string, Check>();
  for (const c of [...opts.readiness, ...conditions]) single.set(`${readinessPath}/${c.name}`, c);
  for (const c of opts.liveness) single.set(`${livenessPath}/${c.name}`, c);
  const probes: ProbeRoutes = {
    readinessPath,
    livenessPath,
    readiness: { kind: 'readiness', gates: opts.readiness, reports: conditions },
    liveness: { kind: 'liveness', gates: opts.liveness, reports: [] },
    single,
  };
  opts.metrics.observeChecks(() => [...new Map([...opts.readiness, ...conditions].map((c) => [c.name, c])).values()].map((c) => ({ check: c.name, ok: runCheck(c).ok })));
  const log = opts.log;

  const plan: { bind: BindAddress; written: string; what: string; routes: Routes }[] = [];
  if (metricsBind && healthBind && sameBindAddress(metricsBind, healthBind)) {
    plan.push({ bind: metricsBind, written: opts.metricsBindAddress, what: 'metrics and health probes', routes: { metrics: opts.metrics, probes, log } });
  } else {
    if (metricsBind) plan.push({ bind: metricsBind, written: opts.metricsBindAddress, what: 'metrics', routes: { metrics: opts.metrics, log } });
    if (healthBind) plan.push({ bind: healthBind, written: opts.healthProbeBindAddress, what: 'health probes', routes: { probes, log } });
  }

  const closers: (() => Promise<void>)[] = [];
  const addresses: string[] = [];
  let readinessAnswered: Promise<void> | undefined;
  try {
    for (const p of plan) {
      const { address, close, answered } = await serveAt(p, opts.readiness.length === 0, opts.startOver);
      closers.push(close);
      addresses.push(address);
      readinessAnswered ??= answered;
      log?.info({ address }, `serving ${p.what}`);
    }
  } catch (err) {
    await Promise.all(closers.map((c) => c()));
    throw err;
  }

  const addressOf = (route: keyof Omit<Routes, 'log'>) => {
    const i = plan.findIndex((p) => p.routes[route] !== undefined);
    return i < 0 ? undefined : addresses[i];
  };
  const metricsAddress = addressOf('metrics');
  const healthAddress = addressOf('probes');
  return {
    metricsAddress,
    healthAddress,
    readinessAnswered,
    close: async () => {
      await Promise.all(closers.map((c) => c()));
    },
  };
}

/**
 * Serves one planned address. Where bin.ts's early probe thread listens
 * already (offerListener) and readiness is a ping (the SPIRE server's pod),
 * that thread goes on answering readiness itself, whatever this thread is
 * busy with, and hands every other request here, until `startOver` (see
 * ObservabilityOptions). Otherwise this thread's own server binds, beside an
 * early listener if there is one, which then stops.
 */
async function serveAt(p: { bind: BindAddress; written: string; what: string; routes: Routes }, readinessIsPing: boolean, startOver?: Promise<void>): Promise<{ address: string; close: () => Promise<void>; answered?: Promise<void> }> {
  const early = takeOfferedListener(p.bind);
  // This thread's own server; beside the early listener (SO_REUSEPORT) while that one listens.
  const serveHere = async (besideEarly: boolean) => {
    const { server, address } = await listen(handler(p.routes), p.bind, p.what, p.written, { reusePort: besideEarly });
    return { address, close: () => closeServer(server) };
  };
  if (early?.attach && readinessIsPing) {
    const thread = early.attach((ask) => respond(p.routes, ask));
    const served = startOver ? handOverWhen(Promise.all([startOver, thread.answered]), thread, () => serveHere(true)) : thread;
    return { ...served, answered: thread.answered };
  }
  const here = await serveHere(early !== undefined);
  await early?.release();
  return here;
}

/**
 * The probe thread costs an isolate of its own (about 10 MiB resident), worth
 * it only while the start keeps this thread busy, and until the kubelet has
 * had its first answer: a probe refused in the instant the thread's socket
 * closes would cost the pod a probe period before it is Ready, and only a run
 * of failures makes a Ready pod unready. After `when`, `serveHere` binds
 * beside the thread (the address is never closed) and the thread ends. A
 * bind that fails leaves the thread serving. Closed meanwhile, whichever
 * serves then is closed.
 */
function handOverWhen(when: Promise<unknown>, thread: { address: string; close(): Promise<void> }, serveHere: () => Promise<{ close: () => Promise<void> }>): { address: string; close: () => Promise<void> } {
  let close = thread.close;
  const closing = new AbortController();
  const handedOver = (async () => {
    await Promise.race([when, untilAborted(closing.signal)]);
    if (closing.signal.aborted) return;
    const here = await serveHere().catch(() => undefined);
    if (!here) return;
    close = here.close;
    await thread.close();
  })();
  return {
    address: thread.address,
    close: async () => {
      closing.abort();
      await handedOver;
      await close();
    },
  };
}
