import type { KubeConfig } from '../kube/connection.js';
import type { Logger } from 'pino';
import { cacheScope, type ControllerConfig } from '../api/index.js';
import { ClaimedIds, CurrentState, type EntryPassOptions, type EntryPassResult, RenderCache } from '../entries/index.js';
import type { RpcObserver } from '../spire/index.js';
import { ClusterCache } from '../kube/cluster.js';
import { EventRecorder } from '../kube/events.js';
import { StatusWriter } from '../kube/status.js';
import { StatusPublisher } from '../kube/status-publisher.js';
import { Leadership } from './leadership.js';
import { boundAfter, untilAborted } from './lifecycle.js';
import { FULL_PASS_SLICE_MS, LivePasses } from './live-passes.js';
import type { ControllerMetrics } from './metrics.js';
import { ProgressReporter } from './progress.js';
import { Reconciler } from './reconcile.js';
import { PassScheduler } from './scheduler.js';
import { spireClientFor, waitForSpireServer } from './spire-client.js';
import type { SpireIdentity } from './spire-identity.js';
import { CONTROLLER_OF_RESOURCE } from './upstream-metrics.js';
import { periodicWaits, type WaitReporter } from './waiting.js';

export interface LiveOptions {
  config: ControllerConfig;
  pass: EntryPassOptions;
  kc: KubeConfig;
  log: Logger;
  signal: AbortSignal;
  /** Bound on waiting for the pass in flight at shutdown. Default 20 s. */
  shutdownTimeoutMs?: number;
  /** Relist an informer after this much silence (tests shorten it). */
  informerSilenceMs?: number;
  /** Give up a watch stream silent this long (tests shorten it). */
  informerStallMs?: number;
  /** Server-side rotation of each watch stream (tests shorten it). */
  informerWatchTimeoutSeconds?: number;
  /** The Lease holder identity. Default: hostname_uuid, as client-go. */
  identity?: string;
  /** Namespace for the Lease when leaderElection.resourceNamespace is empty (the pod's own). */
  namespace?: string;
  metrics?: ControllerMetrics;
  /** Told about every completed entry pass, full or for pod events (the benchmark times acknowledgements with it). */
  onPass?: (result: Pick<EntryPassResult, 'plan' | 'applied'>, seconds: number) => void;
  /** Told about every SPIRE call (e.g. to count writes). */
  observeSpireRpc?: RpcObserver;
  /**
   * Given the cluster cache as soon as it exists, before SPIRE answers:
   * readiness is the caches' sync, and startLive resolves only once SPIRE is up.
   */
  onCache?: (cache: ClusterCache) => void;
  /** Where the waits for the API server's first lists and for SPIRE are said; default: the log, at info. */
  waits?: WaitReporter;
  /** The controller's SVID and transport, with spireServerAddress (SpireIdentity.for). */
  spireIdentity?: SpireIdentity;
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

/**
 * Live Kubernetes mode: informers feed a PassScheduler, whose two lanes run
 * first-list batches, pod passes and full passes (LivePasses); each full pass
 * reconciles entries with SPIRE and publishes the statuses that changed
 * (StatusPublisher). Also a full pass every gcInterval. This function only
 * wires those parts together and starts and stops them.
 */
export async function startLive(opts: LiveOptions): Promise<LiveController> {
  const { config, log, metrics } = opts;
  const spire = spireClientFor(
    config,
    metrics || opts.observeSpireRpc
      ? (rpc, code, seconds) => {
          metrics?.observeSpireRpc(rpc, code, seconds);
          opts.observeSpireRpc?.(rpc, code, seconds);
        }
      : undefined,
    opts.spireIdentity,
  );
  const statusWriter = new StatusWriter(opts.kc, log);
  const renderCache = new RenderCache();
  // SPIRE's entries between full lists (every gcInterval, or after an uncertain write), installed in slices as a full pass renders.
  const currentState = new CurrentState(config.gcIntervalMs, Date.now, FULL_PASS_SLICE_MS);
  // Entries ours although their IDs do not say so (an older SPIRE, adopted entries): remembered across passes.
  const claims = new ClaimedIds();
  const events = new EventRecorder(opts.kc, log);
  const optionalAccess = (resource: string, denied: { message: string } | undefined) => metrics?.setForbidden(resource, denied !== undefined);
  events.onOptionalAccess = optionalAccess;
  const passOptions: EntryPassOptions = { ...opts.pass, settings: { ...opts.pass.settings, renderCache }, claims };
  const scheduler = new PassScheduler();
  let spireReady = false;

  const leadership: Leadership = new Leadership({
    config,
    kc: opts.kc,
    log,
    spire,
    metrics,
    identity: opts.identity,
    namespace: opts.namespace,
    onStartedLeading: () => {
      currentState.invalidate();
      passes.termStarted();
    },
    onStoppedLeading: () => {
      metrics?.upstream.dropPending();
      statusWriter.stop();
      // Writes still pending were just dropped: a later term must not take them for written.
      statuses.forget();
      scheduler.termEnded();
      passes.termEnded();
    },
  });
  const cache: ClusterCache = new ClusterCache({
    kc: opts.kc,
    log,
    scope: cacheScope(config),
    onChange: (resource, change) => passes.onChange(resource, change),
    onFirstPodPage: (pods) => passes.onFirstPodPage(pods),
    onRelist: (informer, reason) => metrics?.informerRelisted(informer, reason),
    ...(opts.informerSilenceMs ? { silenceMs: opts.informerSilenceMs } : {}),
    ...(config.relistIntervalMs ? { relistMs: config.relistIntervalMs } : {}),
    onOptionalAccess: optionalAccess,
    ...(opts.informerStallMs ? { stallMs: opts.informerStallMs } : {}),
    ...(opts.informerWatchTimeoutSeconds ? { watchTimeoutSeconds: opts.informerWatchTimeoutSeconds } : {}),
  });
  const statuses = new StatusPublisher(statusWriter, cache);
  const passes: LivePasses = new LivePasses({
    config,
    log,
    signal: opts.signal,
    metrics,
    spire,
    cache,
    state: currentState,
    reconciler: new Reconciler({ config, spire, log, options: passOptions, logMigration: true }),
    scheduler,
    statuses,
    events,
    // Cold-start and long-pass progress, in the log (at most every 5 s) and the metrics.
    progress: new ProgressReporter(log, metrics),
    pass: passOptions,
    term: () => leadership.term(),
    spireReady: () => spireReady,
    onPass: opts.onPass,
  });
  metrics?.observeInformers(() => cache.staleSeconds());

  // controller-runtime's series exist from the start, one controller per watched kind (EndpointSlices or Endpoints below).
  for (const r of ['clusterspiffeids', 'clusterstaticentries', 'clusterfederatedtrustdomains', 'pods', 'namespaces', 'nodes']) metrics?.upstream.ensure(CONTROLLER_OF_RESOURCE[r]!);
  // Caches warm up while SPIRE may still be starting: readiness depends on the sync only.
  opts.onCache?.(cache);
  const waits = opts.waits ?? periodicWaits((line) => log.info(line));
  const cacheStarted = cache.start();
  const endSyncWait = reportCacheSync(cache, cacheStarted, waits, opts.kc.getCurrentCluster()?.server ?? '(no server)');
  opts.signal.addEventListener('abort', endSyncWait, { once: true });
  // A stop while the first lists hang (an API server that never answers) ends the wait: shutdown follows.
  await Promise.race([
    Promise.all([
      cacheStarted,
      waitForSpireServer(spire, log, opts.signal, waits).then((ready) => {
        spireReady = ready;
        // Pods listed while SPIRE was starting wait for this.
        if (ready && scheduler.firstListCount > 0) passes.wakeFull();
      }),
    ]),
    untilAborted(opts.signal),
  ]);
  // Whichever of the two is watched; neither when neither may be listed.
  if (cache.serviceSource !== 'none') metrics?.upstream.ensure(CONTROLLER_OF_RESOURCE[cache.serviceSource]!);
  // Stopped while waiting for SPIRE: nothing started.
  if (!opts.signal.aborted) log.info({ spire: spire.where, serviceSource: cache.serviceSource }, 'live mode started');
  // Stopped before starting: no term to run or Lease to release.
  if (!opts.signal.aborted) leadership.start();
  // Every gcInterval, a full pass from a fresh list. The state's own age check is not enough: the
  // last list finished a little after the previous tick, so at this tick it is not quite
  // gcInterval old, and every other tick went without a list (seen side by side with upstream).
  // Aged, not uncertain: pod passes go on beside that list (see podLaneWork).
  const interval = setInterval(() => {
    currentState.expire();
    passes.requestFull();
  }, config.gcIntervalMs);
  passes.wakeFull();

  const done = (async () => {
    await untilAborted(opts.signal);
    log.info('shutting down: finishing the pass in flight');
    endSyncWait();
    clearInterval(interval);
    cache.stop();
    const bound = boundAfter(opts.shutdownTimeoutMs ?? 20_000);
    await Promise.race([passes.stop(), bound]);
    await Promise.race([statusWriter.idle(), bound]);
    statusWriter.stop();
    // Released after the last write, so the next leader never overlaps with us.
    await leadership.stop();
    spire.close();
    log.info('stopped');
  })();

  return {
    cache,
    passes: () => passes.passes,
    idle: () => passes.idle(),
    trigger: () => passes.requestFull(),
    resync: () => {
      currentState.invalidate();
      passes.requestFull();
    },
    statusWritesIdle: () => statusWriter.idle(),
    renderCounts: () => ({ hits: renderCache.hits, misses: renderCache.misses }),
    done,
  };
}
