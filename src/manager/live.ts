import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type {
  ClusterFederatedTrustDomain,
  ClusterSPIFFEID,
  ClusterStaticEntry,
  ControllerConfig,
  Endpoints,
  EndpointSlice,
  Namespace,
  Node,
  Pod,
} from '../api/index.js';
import {
  ClaimedIds,
  CurrentState,
  entryPassProblems,
  indexServices,
  type EntryPassOptions,
  type EntryPassResult,
  type PassMemo,
  logMigration,
  type PassProblem,
  type Plan,
  type ServiceIndex,
  RenderCache,
  logProblems,
  runEntryPass,
  runPodPass,
  SpireServerProbe,
  statusChanged,
} from '../entries/index.js';
import type { RpcObserver } from '../spire/index.js';
import { federationOptions, federationPassProblems, runFederationPass } from '../federation/index.js';
import { Backoff } from '../net/backoff.js';
import { ClusterCache } from '../kube/cluster.js';
import { type Condition, clusterSPIFFEIDConditions, sameConditions } from '../kube/conditions.js';
import { cacheScope } from '../api/index.js';
import { EventRecorder } from '../kube/events.js';
import { LeaderElector } from '../kube/leader.js';
import { StatusWriter } from '../kube/status.js';
import type { SpireClient } from '../spire/index.js';
import { spireClientFor } from './spire-client.js';
import { type ControllerMetrics, passCounts } from './metrics.js';
import { ProgressReporter } from './progress.js';
import { CoalescingTrigger } from './trigger.js';
import { CONTROLLER_OF_RESOURCE } from './upstream-metrics.js';

/** Resolves when neither lane has a pass running or pending (each may wake the other). */
async function idleLanes(...lanes: CoalescingTrigger[]): Promise<void> {
  while (lanes.some((l) => l.busy)) for (const l of lanes) await l.idle();
}

/** The pods a plan writes entries for. */
function podsWrittenBy(plan: Plan): Set<string> {
  const pods = new Set<string>();
  for (const w of [...plan.creates, ...plan.updates, ...plan.deletes]) if (w.podUid !== undefined) pods.add(w.podUid);
  return pods;
}

const SELECTED_BY_CLUSTER_SPIFFEIDS = new Set(['pods', 'namespaces', 'nodes', 'endpointslices', 'endpoints']);

/** Pods per pass while the first list is written (see firstListPass). */
const FIRST_LIST_BATCH = 5_000;

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
}

export interface LiveController {
  cache: ClusterCache;
  currentState: CurrentState;
  renderCache: RenderCache;
  events: EventRecorder;
  /** Absent when leader election is off (this replica always writes). */
  elector?: LeaderElector;
  statusWriter: StatusWriter;
  spire: SpireClient;
  /** Passes completed, for tests and metrics. */
  passes(): number;
  /** Resolves when no pass is running or pending. */
  idle(): Promise<void>;
  /** Asks for a full pass now (as gcInterval would). */
  trigger(): void;
  done: Promise<void>;
}

/**
 * Live Kubernetes mode: informers feed a coalescing trigger; each pass takes
 * a snapshot of the caches, reconciles entries with SPIRE and writes the
 * statuses that changed. Also a pass every gcInterval.
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
  );
  // Changes seen since the last pass started: the queue a pass will drain.
  let queued = 0;
  // Counts every change to the caches: equal counts mean equal snapshots (for PassMemo).
  let cacheVersion = 0;
  let memo: PassMemo | undefined;
  // The service index pod passes read (autoPopulateDNSNames), until an EndpointSlice or Endpoints changes.
  let services: ServiceIndex | undefined;
  const statusWriter = new StatusWriter(opts.kc, log);
  const renderCache = new RenderCache();
  // SPIRE's entries between full lists (every gcInterval, or after an uncertain write).
  const currentState = new CurrentState(config.gcIntervalMs);
  // Entries ours although their IDs do not say so (an older SPIRE, adopted entries): remembered across passes.
  const claims = new ClaimedIds();
  const passOptions: EntryPassOptions = { ...opts.pass, settings: { ...opts.pass.settings, renderCache }, claims };
  const events = new EventRecorder(opts.kc, log);
  // Cold-start and long-pass progress, in the log (at most every 5 s) and the metrics.
  const progress = new ProgressReporter(log, metrics);
  let podsSyncedSaid = false;
  const optionalAccess = (resource: string, denied: { message: string } | undefined) => metrics?.setForbidden(resource, denied !== undefined);
  events.onOptionalAccess = optionalAccess;
  let passes = 0;
  const probe = new SpireServerProbe();
  const warn = (m: string) => log.warn(m);
  // On a server that ignores requested IDs, ownership falls back to what the entries themselves show.
  const ownership = () => (probe.ignoresEntryIds ? { ...passOptions.ownership, serverAssignsIds: true } : passOptions.ownership);
  const probeServer = () => probe.refresh(spire, config.trustDomain, passOptions.ownership.entryIDPrefix, warn);
  // The first full pass also says what a migration has to deal with (entries of upstream or of our former prefix).
  let migrationExplained = false;
  // What we last wrote per object, with the object's resourceVersion at that time: the
  // watch may not have brought our own write back yet, and writing it again is noise.
  const written = new Map<string, { json: string; rv: string | undefined }>();

  // Relationships this process set: under entryScope prefixed only these may be deleted (see federation/plan.ts).
  const ourRelationships = new Set<string>();

  // `conditions`, for a ClusterSPIFFEID, only when they differ from the object's: [] removes them.
  const writeStatus = (kind: 'ClusterSPIFFEID' | 'ClusterStaticEntry' | 'ClusterFederatedTrustDomain', name: string, current: object | undefined, rv: string | undefined, next: object, conditions?: Condition[]) => {
    const key = `${kind}/${name}`;
    const json = JSON.stringify([next, conditions]);
    if (!conditions && !statusChanged(current as Partial<typeof next> | undefined, next)) return;
    const last = written.get(key);
    if (last && last.json === json && last.rv === rv) return;
    written.set(key, { json, rv });
    const withConditions = conditions ? { conditions: conditions.length > 0 ? conditions : null } : {};
    statusWriter.write(kind, name, kind === 'ClusterSPIFFEID' ? { stats: next, ...withConditions } : next);
  };

  // Without leader election this replica always leads; with it, only during a term.
  let term: AbortSignal | undefined = config.leaderElection.leaderElect ? undefined : new AbortController().signal;

  // A pass that could not finish (SPIRE down, a batch RPC failed) is retried with backoff
  // rather than left to gcInterval. Per-item rejections are not: retrying cannot fix them.
  const passBackoff = new Backoff(1000, 30_000);
  let retry: NodeJS.Timeout | undefined;
  const retryLater = () => {
    const wait = passBackoff.next();
    clearTimeout(retry);
    retry = setTimeout(requestFull, wait);
    retry.unref();
  };
  const TRANSIENT = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'CANCELLED', 'RESOURCE_EXHAUSTED']);

  // What changed since the last pass: pods by UID (null once deleted), or anything else, which needs a full pass.
  const dirtyPods = new Map<string, { namespace: string; name: string } | null>();
  // Pods the first list has brought and no pass has taken yet (see firstListPass).
  let firstListPods: Pod[] = [];
  let spireReady = false;
  let fullRequested = true;
  // Whether a full pass has taken a snapshot of the synced caches: pod events count from then on.
  let snapshotTaken = false;
  let refresh: NodeJS.Timeout | undefined;
  const requestFull = () => {
    fullRequested = true;
    fullLane.trigger();
  };
  // The pods a full pass is writing for right now: pod passes leave them to it until it is done.
  let fullWriting: ReadonlySet<string> = new Set();
  // Set while a full pass takes its snapshot and plans: no pod pass may start (see fullPass).
  let fullPlanning = false;

  // Nothing was applied past a failure; try again soon, from a fresh list.
  const passFailed = (err: unknown) => {
    currentState.invalidate();
    log.error(`reconcile pass failed: ${(err as Error).message}`);
    metrics?.passFailed();
    retryLater();
  };

  // Logged, and where the problem has an Event reason, recorded on its object too.
  const report = (problems: readonly PassProblem[]) => {
    logProblems(log, problems);
    for (const p of problems) if (p.event && p.owner) events.warn(p.owner, p.event, p.message);
  };

  // Declares and applies these pods' entries against the in-memory SPIRE state.
  const applyPods = async (pods: Pod[], goneUids: string[], signal: AbortSignal, started: number) => {
    // Only what a pod's entries depend on: not a snapshot of every pod in the cluster.
    const r = await runPodPass(
      {
        pods,
        goneUids,
        lookup: {
          clusterSPIFFEIDs: cache.items<ClusterSPIFFEID>('clusterspiffeids'),
          namespace: (name) => cache.get<Namespace>('namespaces', name),
          node: (name) => cache.get<Node>('nodes', name),
          // Built once per change of the endpoints, not once per pod event.
          services: () => (services ??= indexServices(cache.items<EndpointSlice>('endpointslices'), cache.items<Endpoints>('endpoints'))),
        },
      },
      spire,
      {
        ...passOptions,
        ownership: ownership(),
        signal,
        state: currentState,
        ...(probe.fields ? { unsupportedFields: probe.fields } : {}),
        onWritten: (done, total) => progress.written(cache.hasSynced ? 'pod events' : 'pods listed so far', done, total),
      },
    );
    probe.noticeAssignedIds(r.applied, warn);
    opts.onPass?.(r, (Date.now() - started) / 1000);
    const a = r.applied;
    metrics?.observeWrites({ created: a.created, updated: a.updated, deleted: a.deleted, failed: a.failures.length });
    return r;
  };

  /**
   * A pass for pod events only: work in proportion to the pods changed,
   * planned against the in-memory SPIRE state. It runs beside a full pass
   * (see podWork), for pods that pass is not writing for. A full pass follows
   * when the events stop (statistics, and a check on this one).
   */
  const podPass = async (signal: AbortSignal, started: number) => {
    // The pods are being listed again with more fields kept; a full pass follows.
    if (!cache.podsCoverTemplates()) return;
    const pods: Pod[] = [];
    const goneUids: string[] = [];
    for (const [uid, at] of [...dirtyPods]) {
      if (fullWriting.has(uid)) continue;
      dirtyPods.delete(uid);
      const pod = at ? cache.get<Pod>('pods', at.name, at.namespace) : undefined;
      if (pod && pod.metadata.uid === uid) pods.push(pod);
      else goneUids.push(uid);
    }
    if (pods.length + goneUids.length === 0) return false;
    const r = await applyPods(pods, goneUids, signal, started);
    report(entryPassProblems(r));
    if (r.applied.failures.some((f) => TRANSIENT.has(f.codeName))) retryLater();
    clearTimeout(refresh);
    refresh = setTimeout(requestFull, 2_000);
    refresh.unref();
    return true;
  };

  /**
   * At start, pods arrive a page at a time for seconds (at 100,000 pods)
   * before the pod cache is synced. Once everything else is synced and SPIRE
   * answers, each batch of listed pods gets its entries written at once, by
   * the same pod pass as an event, while the rest are still being listed
   * (and the last batch just before the first full pass): creating and
   * updating only (a pod not listed yet is not known to be gone), with the
   * full pass after the sync as the check, the reporter and the only one
   * that deletes.
   */
  const firstListPass = async (): Promise<boolean> => {
    // Bounded batches: a pass over tens of thousands of pods at once holds its whole plan and
    // every request it encodes at the same time, which raised the controller's peak memory.
    const pods = firstListPods.splice(0, FIRST_LIST_BATCH);
    const waiting = cache.unsynced();
    if (!term || term.aborted || !spireReady || !config.reconcile.clusterSPIFFEIDs) {
      firstListPods = [];
      return false;
    }
    if (waiting.length > 1 || (waiting.length === 1 && waiting[0] !== 'pods')) {
      firstListPods = pods.concat(firstListPods);
      return false;
    }
    const signal = term;
    const started = Date.now();
    try {
      await probeServer();
      if (probe.fields === undefined) return false;
      if (currentState.needsList()) await currentState.replaceFromPages(spire.entryPages());
      // Pods listed before a ClusterSPIFFEID came to read more of them: the wider list brings them again.
      if (!cache.podsCoverTemplates()) {
        firstListPods = [];
        return false;
      }
      const r = await applyPods(pods, [], signal, started);
      progress.writtenWhileListing(r.applied.created + r.applied.updated);
      log.debug({ pods: pods.length, created: r.applied.created, updated: r.applied.updated }, 'wrote entries for pods listed so far');
      if (r.applied.failures.some((f) => TRANSIENT.has(f.codeName))) {
        currentState.invalidate();
        return false;
      }
      return true;
    } catch (err) {
      // The full pass after the sync starts over from a fresh list; nothing here is lost.
      currentState.invalidate();
      log.debug(`writing entries for the pods listed so far failed: ${(err as Error).message}`);
      return false;
    } finally {
      passes++;
    }
  };

  /**
   * Pod work does not wait behind a full pass. A full pass lists SPIRE's
   * entries, then plans, then writes, and against a slow SPIRE server the list
   * and the writes take seconds to minutes; pod passes run beside it, in
   * their own lane:
   * - while it lists, freely: the state records their writes and replays them
   *   onto the list when it completes (CurrentState);
   * - while it takes its snapshot and plans, not at all (it waits for the pod
   *   pass in flight, then plans in one synchronous step): the snapshot then
   *   holds every pod a pod pass has written for, and the state every write;
   * - while it writes, for every pod its plan does not touch; the others wait
   *   until it is done.
   */
  const podWork = async () => {
    while (dirtyPods.size > 0 && !opts.signal.aborted) {
      const signal = term;
      // The state must hold every entry we wrote (a write of unknown outcome waits for the next list),
      // and the probe must have said which fields SPIRE stores.
      if (fullPlanning || !signal || signal.aborted || !cache.hasSynced || !config.reconcile.clusterSPIFFEIDs) return;
      // Without those, a full pass does this pod work: it lists first, and asks the probe.
      if (!currentState.isCertain() || probe.fields === undefined) return requestFull();
      const before = dirtyPods.size;
      const started = Date.now();
      queued = 0;
      metrics?.setQueueDepth(0);
      const work = metrics?.upstream.take();
      try {
        if (await podPass(signal, started)) passes++;
        work?.done(true);
      } catch (err) {
        passes++;
        work?.done(false);
        passFailed(err);
        return;
      }
      // Only pods the full pass is writing for are left: it takes them up when it is done.
      if (dirtyPods.size >= before) return;
    }
  };

  const fullPass = async () => {
    // Shutting down: the pass in flight finishes, and none starts.
    if (opts.signal.aborted) return;
    // Pods listed and not yet written go first, also once the list is complete: the full pass
    // that follows renders and plans every pod, and their entries need not wait for that.
    while (firstListPods.length > 0 && (await firstListPass()));
    if (!cache.hasSynced) return;
    if (!podsSyncedSaid) {
      podsSyncedSaid = true;
      progress.podsSynced();
    }
    firstListPods = [];
    if (!term || term.aborted) return;
    const signal = term;
    const started = Date.now();
    if (!fullRequested) {
      podLane.trigger();
      return;
    }
    fullRequested = false;
    let listSeconds = 0;
    // The changes this pass takes, for controller-runtime's queue metrics: those waiting now, and
    // those that come while it lists (its snapshot holds them too).
    const work = [metrics?.upstream.take()];
    let ok = true;
    try {
      const unsupported = await probeServer();
      let federatedBundles: Set<string> | undefined;
      if (config.reconcile.clusterFederatedTrustDomains) {
        const fed = await runFederationPass(cache.federatedTrustDomains(), spire, {
          ...federationOptions(config),
          ours: ourRelationships,
          signal,
        });
        if (signal.aborted) return;
        for (const [name, status] of Object.entries(fed.status)) {
          const obj = cache.get<ClusterFederatedTrustDomain>('clusterfederatedtrustdomains', name);
          writeStatus('ClusterFederatedTrustDomain', name, obj?.status, obj?.metadata.resourceVersion, status);
        }
        report(federationPassProblems(fed));
        federatedBundles = fed.bundles;
      }
      // Both entry kinds off: upstream runs no entry reconciler at all (an empty declaration would delete everything).
      if (!config.reconcile.clusterSPIFFEIDs && !config.reconcile.clusterStaticEntries) return;
      // Not while the pods are listed again with a field a ClusterSPIFFEID has come to read: a pass follows that list.
      if (!cache.podsCoverTemplates()) {
        fullRequested = true;
        return;
      }
      // The slow part first, with pod passes going on beside it.
      if (currentState.needsList()) {
        const listing = performance.now();
        await currentState.replaceFromPages(spire.entryPages());
        listSeconds += (performance.now() - listing) / 1000;
      }
      // Then the snapshot and the plan, with no pod pass in flight.
      fullPlanning = true;
      await podLane.idle();
      // Read before the snapshot: a change landing in between makes the next pass recompute, never the reverse.
      const version = cacheVersion;
      const snapshot = cache.snapshot();
      // Every pod event so far is in this snapshot.
      dirtyPods.clear();
      snapshotTaken = true;
      work.push(metrics?.upstream.take());
      queued = 0;
      metrics?.setQueueDepth(0);
      // The reconcile switches, as upstream reads them: a kind switched off declares nothing.
      const result = await runEntryPass({
        ...snapshot,
        clusterSPIFFEIDs: config.reconcile.clusterSPIFFEIDs ? snapshot.clusterSPIFFEIDs : [],
        clusterStaticEntries: config.reconcile.clusterStaticEntries ? snapshot.clusterStaticEntries : [],
      }, spire, {
        ...passOptions,
        ownership: ownership(),
        explainMigration: !migrationExplained,
        signal,
        state: currentState,
        listedByCaller: true,
        snapshotVersion: String(version),
        ...(federatedBundles ? { federatedBundles } : {}),
        ...(memo ? { last: memo } : {}),
        ...(unsupported ? { unsupportedFields: unsupported } : {}),
        ...(metrics ? { onPhase: (phase, seconds) => (phase === 'list' ? (listSeconds += seconds) : metrics.observePhase(phase, seconds)) } : {}),
        onWritten: (done, total) => progress.written('full pass', done, total),
        onPlanned: (plan) => {
          // Pod passes resume now, for every pod this plan does not write for.
          fullWriting = podsWrittenBy(plan);
          fullPlanning = false;
          podLane.trigger();
        },
      });
      metrics?.observePhase('list', listSeconds);
      memo = result.memo;
      if (result.applied) probe.noticeAssignedIds(result.applied, warn);
      if (!migrationExplained) logMigration(log, result.migration, passOptions.ownership.entryIDPrefix);
      migrationExplained = true;
      // A status computed under a term that has ended may be stale for the new leader: do not write it.
      if (signal.aborted) return;
      const statusStarted = performance.now();
      for (const [name, stats] of Object.entries(result.status.clusterSPIFFEIDs)) {
        const obj = cache.get<ClusterSPIFFEID>('clusterspiffeids', name);
        const had = obj?.status?.conditions;
        const conditions = clusterSPIFFEIDConditions(obj?.spec.autoPopulateDNSNames === true, cache.serviceSource, cache.serviceSourceDenied, had, new Date());
        writeStatus('ClusterSPIFFEID', name, obj?.status?.stats, obj?.metadata.resourceVersion, stats, sameConditions(had, conditions) ? undefined : conditions);
      }
      for (const [name, status] of Object.entries(result.status.clusterStaticEntries)) {
        const obj = cache.get<ClusterStaticEntry>('clusterstaticentries', name);
        writeStatus('ClusterStaticEntry', name, obj?.status, obj?.metadata.resourceVersion, status);
      }
      metrics?.observePhase('status', (performance.now() - statusStarted) / 1000);
      report(entryPassProblems(result));
      const a = result.applied;
      log.debug({ created: a?.created, updated: a?.updated, deleted: a?.deleted, failed: a?.failures.length, ms: Date.now() - started }, 'reconciled');
      opts.onPass?.(result, (Date.now() - started) / 1000);
      metrics?.observePass(passCounts(result), (Date.now() - started) / 1000);
      if (a?.failures.some((f) => TRANSIENT.has(f.codeName))) retryLater();
      else passBackoff.reset();
    } catch (err) {
      ok = false;
      passFailed(err);
    } finally {
      fullPlanning = false;
      fullWriting = new Set();
      passes++;
      for (const w of work) w?.done(ok);
      // Pods left to this pass, and events that came meanwhile.
      podLane.trigger();
    }
  };

  const fullLane = new CoalescingTrigger(fullPass);
  const podLane = new CoalescingTrigger(podWork);
  const cache = new ClusterCache({
    kc: opts.kc,
    log,
    scope: cacheScope(config),
    onChange: (resource, change) => {
      // Only ClusterSPIFFEIDs read these: with them off, a change to one changes no entry.
      if (!config.reconcile.clusterSPIFFEIDs && SELECTED_BY_CLUSTER_SPIFFEIDS.has(resource)) return;
      cacheVersion++;
      queued++;
      metrics?.setQueueDepth(queued);
      // A standby runs no controllers (controller-runtime starts them with the lease), so its queues stay empty.
      if (change && term && !term.aborted) metrics?.upstream.add(CONTROLLER_OF_RESOURCE[resource] ?? resource);
      const m = change?.obj.metadata;
      if (resource === 'endpointslices' || resource === 'endpoints') services = undefined;
      if (resource === 'pods' && change && m?.uid && m.name) {
        // The first list's pods are the first full pass's (and firstListPass's) to write. After
        // that, also while a full pass is due: it may be slow to come (see podWork), and what it
        // finds already written is no work for it.
        if (!snapshotTaken) return void fullLane.trigger();
        dirtyPods.set(m.uid, change.kind === 'delete' ? null : { namespace: m.namespace ?? '', name: m.name });
        podLane.trigger();
        return;
      }
      fullRequested = true;
      fullLane.trigger();
    },
    onFirstPodPage: (pods) => {
      progress.podsListed(pods.length);
      for (const p of pods) firstListPods.push(p);
      fullLane.trigger();
    },
    onRelist: (informer, reason) => metrics?.informerRelisted(informer, reason),
    ...(opts.informerSilenceMs ? { silenceMs: opts.informerSilenceMs } : {}),
    onOptionalAccess: optionalAccess,
    ...(opts.informerStallMs ? { stallMs: opts.informerStallMs } : {}),
    ...(opts.informerWatchTimeoutSeconds ? { watchTimeoutSeconds: opts.informerWatchTimeoutSeconds } : {}),
  });
  metrics?.observeInformers(() => cache.staleSeconds());

  // controller-runtime's series exist from the start, one controller per watched kind (EndpointSlices or Endpoints below).
  for (const r of ['clusterspiffeids', 'clusterstaticentries', 'clusterfederatedtrustdomains', 'pods', 'namespaces', 'nodes']) metrics?.upstream.ensure(CONTROLLER_OF_RESOURCE[r]!);
  // Caches warm up while SPIRE may still be starting: readiness depends on the sync only.
  opts.onCache?.(cache);
  await Promise.all([
    cache.start(),
    spire
      .waitUntilReady({
        timeoutMs: Number.MAX_SAFE_INTEGER,
        onWaiting: (ms) => log.info(`waiting for the SPIRE server at ${spire.socketPath} (${Math.round(ms / 1000)}s)`),
        signal: opts.signal,
      })
      .then(
        () => {
          spireReady = true;
          // Pods listed while SPIRE was starting wait for this.
          if (firstListPods.length > 0) fullLane.trigger();
        },
        // Stopped while waiting: `done` below shuts down what did start.
        (err: unknown) => {
          if (!opts.signal.aborted) throw err;
        },
      ),
  ]);
  // Whichever of the two is watched; neither when neither may be listed.
  if (cache.serviceSource !== 'none') metrics?.upstream.ensure(CONTROLLER_OF_RESOURCE[cache.serviceSource]!);
  // Stopped while waiting for SPIRE: nothing started.
  if (!opts.signal.aborted) log.info({ socket: spire.socketPath, serviceSource: cache.serviceSource }, 'live mode started');
  let elector: LeaderElector | undefined;
  if (config.leaderElection.leaderElect) {
    const le = config.leaderElection;
    elector = new LeaderElector(
      {
        kc: opts.kc,
        log,
        namespace: le.resourceNamespace || opts.namespace || 'default',
        name: le.resourceName,
        identity: opts.identity ?? `${hostname()}_${randomUUID()}`,
        leaseDurationMs: le.leaseDurationMs,
        renewDeadlineMs: le.renewDeadlineMs,
        retryPeriodMs: le.retryPeriodMs,
      },
      {
        onStartedLeading: (signal) => {
          term = signal;
          metrics?.setLeader(true, le.resourceName);
          currentState.invalidate();
          requestFull();
        },
        onStoppedLeading: () => {
          term = undefined;
          metrics?.setLeader(false, le.resourceName);
          metrics?.upstream.dropPending();
          statusWriter.stop();
          // Writes still pending were just dropped: a later term must not take them for written.
          written.clear();
          // A later term starts from a full pass of its own.
          dirtyPods.clear();
          snapshotTaken = false;
        },
      },
    );
    metrics?.setLeader(false, le.resourceName);
    // Every SPIRE write batch first asks the clock whether the term still holds (see holdsLease).
    const held = elector;
    spire.gateWrites(() => (held.holdsLease() ? undefined : 'this replica does not hold the lease'));
    elector.start();
  } else {
    metrics?.setLeader(true);
  }
  // Every gcInterval, a full pass from a fresh list. The state's own age check is not enough: the
  // last list finished a little after the previous tick, so at this tick it is not quite
  // gcInterval old, and every other tick went without a list (seen side by side with upstream).
  // Aged, not uncertain: pod passes go on beside that list (see podWork).
  const interval = setInterval(() => {
    currentState.expire();
    requestFull();
  }, config.gcIntervalMs);
  fullLane.trigger();

  const done = (async () => {
    await new Promise<void>((resolve) => {
      if (opts.signal.aborted) resolve();
      opts.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    log.info('shutting down: finishing the pass in flight');
    clearInterval(interval);
    clearTimeout(retry);
    clearTimeout(refresh);
    cache.stop();
    const bound = new Promise<void>((r) => setTimeout(r, opts.shutdownTimeoutMs ?? 20_000).unref());
    await Promise.race([Promise.all([fullLane.stop(), podLane.stop()]), bound]);
    await Promise.race([statusWriter.idle(), bound]);
    statusWriter.stop();
    // Released after the last write, so the next leader never overlaps with us.
    await elector?.stop();
    spire.close();
    log.info('stopped');
  })();

  return { cache, currentState, renderCache, events, ...(elector ? { elector } : {}), statusWriter, spire, passes: () => passes, idle: () => idleLanes(fullLane, podLane), trigger: requestFull, done };
}
