import type { KubeConfig } from '../kube/connection.js';
import type { Logger } from 'pino';
import { cacheScope, type ControllerConfig, type Pod } from '../api/index.js';
import { ClaimedIds, CurrentState, type EntryPassOptions, type EntryPassResult, RenderCache } from '../entries/index.js';
import type { RpcObserver, SpireClient } from '../spire/index.js';
import { ClusterCache, type ClusterCacheOptions } from '../kube/cluster.js';
import type { OptionalAccessReporter } from '../kube/forbidden.js';
import { EventRecorder } from '../kube/events.js';
import { StatusWriter } from '../kube/status.js';
import { StatusPublisher } from '../kube/status-publisher.js';
import { Leadership, type TermHandlers } from './leadership.js';
import { boundAfter, untilAborted } from './lifecycle.js';
import { FULL_PASS_SLICE_MS, LivePasses } from './live-passes.js';
import type { ControllerMetrics } from './metrics.js';
import { ProgressReporter } from './work-progress.js';
import { PassScheduler } from './scheduler.js';
import { spireClientFor, waitForSpireServer } from './spire-client.js';
import type { SpireIdentity } from './spire-identity.js';
import { CONTROLLER_OF_RESOURCE } from './upstream-metrics.js';
import { periodicWaits, type WaitReporter } from './wait-reports.js';

/**
 * What tests and the benchmark set to watch or hurry a live controller; the
 * controller itself runs without them.
 */
export interface LiveHooks {
  /** Bound on waiting for the pass in flight at shutdown. Default 20 s. */
  shutdownTimeoutMs?: number;
  /** Relist an informer after this much silence (tests shorten it). */
  informerSilenceMs?: number;
  /** Give up a watch stream silent this long (tests shorten it). */
  informerStallMs?: number;
  /** Server-side rotation of each watch stream (tests shorten it). */
  informerWatchTimeoutSeconds?: number;
  /** Told about every completed entry pass, full or for pod events (the benchmark times acknowledgements with it). */
  onPass?: (result: Pick<EntryPassResult, 'plan' | 'applied'>, seconds: number) => void;
  /** Told about every SPIRE call (e.g. to count writes). */
  observeSpireRpc?: RpcObserver;
}

export interface LiveOptions {
  config: ControllerConfig;
  pass: EntryPassOptions;
  kc: KubeConfig;
  log: Logger;
  signal: AbortSignal;
  /** The Lease holder identity. Default: hostname_uuid, as client-go. */
  identity?: string;
  /** Namespace for the Lease when leaderElection.resourceNamespace is empty (the pod's own). */
  namespace?: string;
  metrics?: ControllerMetrics;
  /**
   * Given the cluster cache as its informers start (after `listAfter`),
   * before SPIRE answers: readiness is the caches' sync, and startLive
   * resolves only once SPIRE is up.
   */
  onCache?: (cache: ClusterCache) => void;
  /** Where the waits for the API server's first lists and for SPIRE are said; default: the log, at info. */
  waits?: WaitReporter;
  /** The controller's SVID and transport, with spireServerAddress (SpireIdentity.for). */
  spireIdentity?: SpireIdentity;
  /**
   * The informers' first lists begin once this resolves (run: the kubelet
   * has had its first readiness answer, see cli/first-lists.ts); SPIRE is
   * called meanwhile. Absent: at once.
   */
  listAfter?: Promise<void>;
  hooks?: LiveHooks;
}

/**
 * Says the wait for the API server from the cache's start until every
 * informer has listed once: they list in the background and retry an API
 * server that does not answer (each failure is a warning of its own), so
 * nothing else says that the controller has nothing to work on yet.
 * Returns what ends it early (shutdown).
 */
function reportCacheSync(cache: ClusterCache, started: Promise<void>, waits: WaitReporter, server: string): () => void {
  const end = waits.begin(`the Kubernetes API server at ${server} (the first lists)`, { graceMs: 1_000 });
  let listing = false;
  const poll = setInterval(() => {
    if (listing && cache.hasSynced) stop();
  }, 200).unref();
  function stop(): void {
    clearInterval(poll);
    end();
  }
  // With no informers yet (start() makes them), hasSynced is vacuously true: the poll waits for start().
  started.then(() => (listing = true), stop);
  return stop;
}

/**
 * A running live controller, as its callers see it from outside: `run`
 * waits for `done`; the tests and the benchmark also ask for passes and wait
 * for them. Its parts (SPIRE client, in-memory state, status writer,
 * leadership) stay inside: tests observe their effects on SPIRE, the API
 * server and the metrics, or through the narrow hooks below.
 */
export interface LiveController {
  /** The informers' cache: readiness reads its sync (given to `run` through onCache); tests and the benchmark wait on it for an event to arrive. */
  cache: ClusterCache;
  /** Passes completed. */
  passes(): number;
  /** Resolves when no pass is running or pending. */
  idle(): Promise<void>;
  /** Asks for a full pass now (as gcInterval would). */
  trigger(): void;
  /** Asks for a full pass from a fresh list of SPIRE's entries, the in-memory state forgotten (as after an uncertain write). */
  resync(): void;
  /** Resolves when the status writes queued so far are done (or dropped). */
  statusWritesIdle(): Promise<void>;
  /** How many pod-entry renders were reused and done since start: what incremental rendering saves. */
  renderCounts(): { hits: number; misses: number };
  done: Promise<void>;
}


/** The parts of a live controller, as makeParts wires them together. */
interface LiveParts {
  spire: SpireClient;
  statusWriter: StatusWriter;
  renderCache: RenderCache;
  /** SPIRE's entries between full lists (every gcInterval, or after an uncertain write), installed in slices as a full pass renders. */
  state: CurrentState;
  scheduler: PassScheduler;
  leadership: Leadership;
  cache: ClusterCache;
  statuses: StatusPublisher;
  passes: LivePasses;
  /** Whether SPIRE has answered once: set when it first does, read by the passes. */
  readiness: { spire: boolean };
}

/**
 * The cache's events, for the passes. The passes read the cache, so the cache
 * is made first and tells this relay, which the passes are bound to once they
 * exist (as client-go adds an informer's handlers after making it). Nothing
 * is lost before the binding: the cache starts after it.
 */
class CacheEvents {
  private passes: LivePasses | undefined;
  readonly onChange: ClusterCacheOptions['onChange'] = (resource, change) => this.passes?.onChange(resource, change);
  readonly onFirstPodPage = (pods: Pod[]): void => this.passes?.onFirstPodPage(pods);
  bind(passes: LivePasses): void {
    this.passes = passes;
  }
}

/** SPIRE's calls go to the metrics and to the hook, when either is there. */
function spireObserver(metrics: ControllerMetrics | undefined, hook: RpcObserver | undefined): RpcObserver | undefined {
  if (!metrics && !hook) return undefined;
  return (rpc, code, seconds) => {
    metrics?.observeSpireRpc(rpc, code, seconds);
    hook?.(rpc, code, seconds);
  };
}

/** The informers' cache, its events sent to `events`; the hooks may shorten its timings. */
function makeCache(opts: LiveOptions, events: CacheEvents, onOptionalAccess: OptionalAccessReporter): ClusterCache {
  const { config, metrics, hooks } = opts;
  return new ClusterCache({
    kc: opts.kc,
    log: opts.log,
    scope: cacheScope(config),
    onChange: events.onChange,
    onFirstPodPage: events.onFirstPodPage,
    onRelist: (informer, reason) => metrics?.informerRelisted(informer, reason),
    onOptionalAccess,
    // Zero or absent: ClusterCache's own defaults.
    silenceMs: hooks?.informerSilenceMs,
    relistMs: config.relistIntervalMs,
    stallMs: hooks?.informerStallMs,
    watchTimeoutSeconds: hooks?.informerWatchTimeoutSeconds,
  });
}

/** Every part, made and wired, nothing started. */
function makeParts(opts: LiveOptions): LiveParts {
  const { config, log, metrics } = opts;
  const spire = spireClientFor(config, spireObserver(metrics, opts.hooks?.observeSpireRpc), opts.spireIdentity);
  const statusWriter = new StatusWriter(opts.kc, log);
  // Never listed because it aged: LivePasses.gcTick decides, each gcInterval, whether SPIRE is listed.
  const state = new CurrentState(Number.POSITIVE_INFINITY, Date.now, FULL_PASS_SLICE_MS);
  const leadership = new Leadership({ config, kc: opts.kc, log, spire, metrics, identity: opts.identity, namespace: opts.namespace });
  const events = new EventRecorder(opts.kc, log);
  const optionalAccess = (resource: string, denied: { message: string } | undefined) => metrics?.setForbidden(resource, denied !== undefined);
  events.onOptionalAccess = optionalAccess;
  const cacheEvents = new CacheEvents();
  const cache = makeCache(opts, cacheEvents, optionalAccess);
  const statuses = new StatusPublisher(statusWriter, cache);
  const shared = { spire, state, scheduler: new PassScheduler(), leadership, cache, statuses, renderCache: new RenderCache(), readiness: { spire: false } };
  const passes = makePasses(opts, shared, events);
  cacheEvents.bind(passes);
  return { ...shared, statusWriter, passes };
}

/** The passes, with the engine's options this process keeps across passes: the render cache and the claims. */
function makePasses(opts: LiveOptions, p: Omit<LiveParts, 'passes' | 'statusWriter'>, events: EventRecorder): LivePasses {
  const { config, log, metrics } = opts;
  // Entries ours although their IDs do not say so (an older SPIRE, adopted entries): remembered across passes.
  const pass: EntryPassOptions = { ...opts.pass, settings: { ...opts.pass.settings, renderCache: p.renderCache }, claims: new ClaimedIds() };
  return new LivePasses({
    config,
    log,
    signal: opts.signal,
    metrics,
    spire: p.spire,
    cache: p.cache,
    state: p.state,
    scheduler: p.scheduler,
    statuses: p.statuses,
    events,
    // Cold-start and long-pass progress, in the log (at most every 5 s) and the metrics.
    progress: new ProgressReporter(log, metrics),
    pass,
    term: () => p.leadership.term(),
    spireReady: () => p.readiness.spire,
    onPass: opts.hooks?.onPass,
  });
}

/** The series that exist from the start: the informers' staleness, and controller-runtime's, one controller per watched kind. */
function declareSeries(metrics: ControllerMetrics | undefined, cache: ClusterCache): void {
  metrics?.observeInformers(() => cache.staleSeconds());
  // EndpointSlices or Endpoints are added once the cache has chosen (beginWork).
  for (const r of ['clusterspiffeids', 'clusterstaticentries', 'clusterfederatedtrustdomains', 'pods', 'namespaces', 'nodes']) metrics?.upstream.ensure(CONTROLLER_OF_RESOURCE[r]!);
}

/**
 * Starts the informers and waits for their first lists and for SPIRE, or
 * for a stop: an API server that never answers must not hold up shutdown.
 * Returns what ends the reporting of the wait for the first lists.
 */
async function syncAndReachSpire(opts: LiveOptions, p: LiveParts): Promise<() => void> {
  const { log, signal } = opts;
  const waits = opts.waits ?? periodicWaits((line) => log.info(line));
  const spireUp = waitForSpireServer(p.spire, log, signal, waits).then((ready) => {
    p.readiness.spire = ready;
    // Pods listed while SPIRE was starting wait for this.
    if (ready && p.scheduler.firstListCount > 0) p.passes.wakeFull();
  });
  if (opts.listAfter) await Promise.race([opts.listAfter, untilAborted(signal)]);
  // Given only now: a cache with no informer yet would pass for synced. Caches warm up while
  // SPIRE may still be starting: readiness depends on the sync only.
  opts.onCache?.(p.cache);
  const cacheStarted = p.cache.start();
  const endSyncWait = reportCacheSync(p.cache, cacheStarted, waits, opts.kc.getCurrentCluster()?.server ?? '(no server)');
  signal.addEventListener('abort', endSyncWait, { once: true });
  await Promise.race([Promise.all([cacheStarted, spireUp]), untilAborted(signal)]);
  return endSyncWait;
}

/** What the parts do when a term of the Lease begins and ends. */
function termHandlers(opts: LiveOptions, p: LiveParts): TermHandlers {
  return {
    onStartedLeading: () => {
      p.state.invalidate();
      p.passes.termStarted();
    },
    onStoppedLeading: () => {
      opts.metrics?.upstream.dropPending();
      p.statusWriter.stop();
      // Writes still pending were just dropped: a later term must not take them for written.
      p.statuses.forget();
      p.scheduler.termEnded();
      p.passes.termEnded();
    },
  };
}

/** Once synced and SPIRE answers (or stopped meanwhile): leadership, and full passes from now on. Returns the gcInterval timer. */
function beginWork(opts: LiveOptions, p: LiveParts): NodeJS.Timeout {
  const { config, log, signal } = opts;
  // Whichever of the two is watched; neither when neither may be listed.
  if (p.cache.serviceSource !== 'none') opts.metrics?.upstream.ensure(CONTROLLER_OF_RESOURCE[p.cache.serviceSource]!);
  // Stopped while waiting: nothing started, no term to run or Lease to release.
  if (!signal.aborted) {
    log.info({ spire: p.spire.where, serviceSource: p.cache.serviceSource }, 'live mode started');
    p.leadership.start(termHandlers(opts, p));
  }
  // Every gcInterval, a full pass after a check of SPIRE's entries for drift (or a fresh list of
  // them all: LivePasses.gcTick).
  const interval = setInterval(() => p.passes.gcTick(), config.gcIntervalMs);
  p.passes.wakeFull();
  return interval;
}

/** After the stop signal: the pass in flight and the status writes finish (within a bound), then the Lease is released. */
async function stopWhenAborted(opts: LiveOptions, p: LiveParts, endStart: () => void): Promise<void> {
  const { log } = opts;
  await untilAborted(opts.signal);
  log.info('shutting down: finishing the pass in flight');
  endStart();
  p.cache.stop();
  const bound = boundAfter(opts.hooks?.shutdownTimeoutMs ?? 20_000);
  await Promise.race([p.passes.stop(), bound]);
  await Promise.race([p.statusWriter.idle(), bound]);
  p.statusWriter.stop();
  // Released after the last write, so the next leader never overlaps with us.
  await p.leadership.stop();
  p.spire.close();
  log.info('stopped');
}

/** The running controller as its callers see it. */
function controllerOf(p: LiveParts, done: Promise<void>): LiveController {
  return {
    cache: p.cache,
    passes: () => p.passes.passes,
    idle: () => p.passes.idle(),
    trigger: () => p.passes.requestFull(),
    resync: () => {
      p.state.invalidate();
      p.passes.requestFull();
    },
    statusWritesIdle: () => p.statusWriter.idle(),
    renderCounts: () => ({ hits: p.renderCache.hits, misses: p.renderCache.misses }),
    done,
  };
}

/**
 * Live Kubernetes mode: informers feed a PassScheduler, whose two lanes run
 * first-list batches, pod passes and full passes (LivePasses); each full pass
 * reconciles entries with SPIRE and publishes the statuses that changed
 * (StatusPublisher). Also a full pass every gcInterval. This function only
 * wires those parts together and starts and stops them.
 */
export async function startLive(opts: LiveOptions): Promise<LiveController> {
  const parts = makeParts(opts);
  declareSeries(opts.metrics, parts.cache);
  const endSyncWait = await syncAndReachSpire(opts, parts);
  const interval = beginWork(opts, parts);
  const done = stopWhenAborted(opts, parts, () => {
    endSyncWait();
    clearInterval(interval);
  });
  return controllerOf(parts, done);
}
