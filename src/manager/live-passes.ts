import { performance } from 'node:perf_hooks';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { changeMatters, type ClusterSPIFFEID, type ControllerConfig, type Endpoints, type EndpointSlice, entriesOff, type Namespace, type Node, type Pod, podEntriesOn, switchedSnapshot } from '../api/index.js';
import {
  type CurrentState,
  DriftScan,
  entryPassProblems,
  indexServices,
  type EntryPassOptions,
  type FullPassOptions,
  type PodPassOptions,
  type Plan,
  type ServiceIndex,
  type CreateOnly,
  type EntryPassResult,
  type PodLookup,
  type PodPassResult,
  declarePods,
  finishInSlices,
  runPodPass,
} from '../entries/index.js';
import { federationPassProblems } from '../federation/index.js';
import type { ClusterCache } from '../kube/cluster.js';
import type { EventRecorder } from '../kube/events.js';
import type { StatusPublisher } from '../kube/status-publisher.js';
import type { SpireClient } from '../spire/index.js';
import { passLog } from './lifecycle.js';
import type { ControllerMetrics } from './metrics.js';
import { PassReporter } from './pass-report.js';
import { type PassOutcome, RetryPolicy, writesOutcome } from './retry.js';
import { type PodAt, podWrites, podWritesInSteps, RegistrationClock, standings } from './registration-clock.js';
import type { ProgressReporter } from './work-progress.js';
import { type Conditions, FOLLOW_UP_FULL_PASS_MS, type PassScheduler, type PodLaneRoute, type PodRef } from './scheduler.js';
import { Reconciler, type Snapshot } from './reconcile.js';
import { CoalescingTrigger } from './trigger.js';
import { CONTROLLER_OF_RESOURCE } from './upstream-metrics.js';

/**
 * How long a full pass installs SPIRE's list, renders, plans or computes
 * statuses before the event loop turns: pod events wait at most about this
 * long for a full pass (the event latency's target is a p99 under 25 ms).
 */
export const FULL_PASS_SLICE_MS = 5;

/** The keys a plan writes. */
const writtenKeys = (plan: Plan): string[] => [...plan.creates, ...plan.updates, ...plan.deletes].map((w) => w.key);

export interface LivePassesOptions {
  config: ControllerConfig;
  log: Logger;
  /** Shutdown: the pass in flight finishes, none starts. */
  signal: AbortSignal;
  metrics: ControllerMetrics | undefined;
  spire: SpireClient;
  cache: ClusterCache;
  state: CurrentState;
  scheduler: PassScheduler;
  statuses: StatusPublisher;
  events: EventRecorder;
  progress: ProgressReporter;
  /** The engine's options (settings with the render cache, claims), which every pass of this controller takes. */
  pass: EntryPassOptions;
  /** The signal of the leadership term in progress; undefined between terms. */
  term: () => AbortSignal | undefined;
  /** SPIRE has answered once. */
  spireReady: () => boolean;
  onPass?: (result: Pick<EntryPassResult, 'plan' | 'applied'>, seconds: number) => void;
}

/** What one full pass takes as it goes: the queued changes it drains, and the registration clock's mark. */
interface FullPassTally {
  /** controller-runtime's queue items this pass takes: those waiting at its start, and those its snapshot holds. */
  work: ({ done(ok: boolean): void } | undefined)[];
  /** At its snapshot: the registration clock's mark, and when the ClusterSPIFFEID and Namespace changes it took began. */
  clock?: { mark: number; selectionSince: number | undefined };
}

const NO_PODS: ReadonlySet<string> = new Set();

const SUCCESS: PassOutcome = { result: 'success' };

/**
 * What follows a pod pass. One that was not create-only is followed by a full
 * pass once the events stop (statistics, and a check on it); a create-only
 * one while the state is uncertain by the full pass that settles it, now.
 * These come sooner than a backoff, so they stand also when a write failed
 * (a requeue-after wins over a requeue, as in controller-runtime): the full
 * pass writes it again, and retries with the backoff if it fails again.
 * Before the term's first snapshot the full pass is due already: only a
 * failed write asks for one more.
 */
function podPassOutcome(route: Extract<PodLaneRoute, { take: unknown }>, r: PodPassResult): PassOutcome {
  if (route.route !== 'create-only') return { result: 'requeue-after', ms: FOLLOW_UP_FULL_PASS_MS };
  if (route.why === 'state uncertain') return { result: 'requeue-after', ms: 0 };
  return writesOutcome(r.applied) === 'requeue' ? { result: 'requeue' } : SUCCESS;
}

/**
 * What each route of the PassScheduler does: a first-list batch, a pod pass,
 * a full pass, and the two lane loops that ask the scheduler which runs next.
 * State carried from pass to pass (the memo, the cache version, the service
 * index, relationships we set) lives here; the routing lives in the scheduler.
 */
export class LivePasses {
  /** Passes completed, for tests and metrics. */
  passes = 0;
  private readonly log: Logger;
  private readonly metrics: ControllerMetrics | undefined;
  private readonly cache: ClusterCache;
  private readonly state: CurrentState;
  private readonly scheduler: PassScheduler;
  // The reconcile of every mode, which full passes run; pod passes share its probe and ownership.
  private readonly reconciler: Reconciler;
  // What every pod pass takes, but what only it knows (its signal, what the probe has found).
  private readonly podOptions: PodPassOptions;
  // The time the full pass in flight has spent listing SPIRE (one full pass at a time: the full lane's).
  private listSeconds = 0;
  private readonly fullLane = new CoalescingTrigger(() => this.fullLaneWork());
  private readonly podLane = new CoalescingTrigger(() => this.podLaneWork());
  // Changes seen since the last pass started: the queue a pass will drain.
  private queued = 0;
  // Counts every change to the caches: equal counts mean equal snapshots (for PassMemo).
  private cacheVersion = 0;
  // The service index pod passes read (autoPopulateDNSNames), until an EndpointSlice or Endpoints changes.
  private services: ServiceIndex | undefined;
  private podsSyncedSaid = false;
  // A pass that could not finish (SPIRE down, a batch RPC failed) is followed by a full pass after
  // a backoff rather than left to gcInterval; pod passes are followed by one when the events stop.
  private readonly retries: RetryPolicy;
  // What the log, Events and metrics are told after a pass (and what they were told before).
  private readonly reports: PassReporter;
  // How long pods wait for their entries (the registration-latency SLO), and the pods of the pod pass in flight, which it settles.
  private readonly clock: RegistrationClock;
  private podPassPods: ReadonlySet<string> = NO_PODS;
  // Every gcInterval, a check of SPIRE's entries in place of a list of them all (gcEntriesPerInterval; none when 0).
  private readonly drift: DriftScan | undefined;
  private driftCheckDue = false;

  constructor(private readonly o: LivePassesOptions) {
    ({ log: this.log, metrics: this.metrics, cache: this.cache, state: this.state, scheduler: this.scheduler } = o);
    this.reconciler = new Reconciler({ config: o.config, spire: o.spire, log: o.log, options: this.fullPassOptions(), logMigration: true });
    this.podOptions = { ...o.pass, state: o.state, onWritten: (done, total) => o.progress.written(this.cache.hasSynced ? 'pod events' : 'pods listed so far', done, total) };
    this.retries = new RetryPolicy({ metrics: o.metrics, fullPass: () => this.requestFull(), onError: () => this.state.invalidate() });
    this.reports = new PassReporter({ lines: 'first of each term at info', clusterDomain: o.config.clusterDomain, metrics: o.metrics, events: o.events });
    this.clock = new RegistrationClock((outcome, trigger, seconds) => this.metrics?.observeRegistration(outcome, trigger, seconds));
    this.metrics?.observeRegistrationsPending(() => this.clock.pending());
    const perCheck = o.config.gcEntriesPerInterval;
    if (perCheck > 0) this.drift = new DriftScan(o.state, { entriesPerCheck: perCheck, sliceMs: FULL_PASS_SLICE_MS });
  }

  /**
   * gcInterval: a full pass, which first checks SPIRE's entries for drift
   * (DriftScan) and lists them all only if it finds some; with
   * gcEntriesPerInterval 0, it lists them all, as upstream's resync does.
   */
  gcTick(): void {
    if (this.drift) this.driftCheckDue = true;
    // Expired rather than left to age: the last list ended a little after the previous tick, so
    // by age alone every other tick would go without one.
    else this.state.expire();
    this.requestFull();
  }

  /** Asks for a full pass now (gcInterval, a retry, the follow-up after pod passes). */
  requestFull(): void {
    this.scheduler.requestFull();
    this.fullLane.trigger();
  }

  /** A term began: its first full pass, and the pod lane for pods changed while it was not leading. */
  termStarted(): void {
    this.reports.termStarted();
    this.requestFull();
    this.podLane.trigger();
  }

  /** The term ended: the waits this replica timed are the next leader's to answer. */
  termEnded(): void {
    this.clock.clear();
  }

  /** Wakes the full lane without asking for a full pass (start, first-list pods, SPIRE ready). */
  wakeFull(): void {
    this.fullLane.trigger();
  }

  /** Resolves when neither lane has a pass running or pending (each may wake the other). */
  async idle(): Promise<void> {
    while (this.fullLane.busy || this.podLane.busy) {
      await this.fullLane.idle();
      await this.podLane.idle();
    }
  }

  /** Shutdown: no pass starts any more; resolves when those in flight are done. Timers are cleared. */
  async stop(): Promise<void> {
    this.retries.stop();
    await Promise.all([this.fullLane.stop(), this.podLane.stop()]);
  }

  /** A cached object changed, or an informer relisted (change undefined): ClusterCache's onChange. */
  onChange(resource: string, change?: { kind: 'add' | 'update' | 'delete'; obj: KubernetesObject; listed?: boolean; previous?: KubernetesObject | undefined }): void {
    if (!changeMatters(this.o.config, resource)) return;
    this.cacheVersion++;
    this.queued++;
    this.metrics?.setQueueDepth(this.queued);
    // A standby runs no controllers (controller-runtime starts them with the lease), so its queues stay empty.
    const leading = this.leading();
    if (change && leading) this.metrics?.upstream.add(CONTROLLER_OF_RESOURCE[resource] ?? resource);
    const m = change?.obj.metadata;
    if (resource === 'endpointslices' || resource === 'endpoints') this.services = undefined;
    this.timeRegistration(resource, change, leading);
    if (resource === 'pods' && change && m?.uid && m.name) {
      const at: PodRef = change.kind === 'delete' ? null : { namespace: m.namespace ?? '', name: m.name };
      if (this.scheduler.podChanged(m.uid, at, { listed: change.listed === true, leading }) === 'pod') this.podLane.trigger();
      else this.fullLane.trigger();
      return;
    }
    this.scheduler.changed();
    this.fullLane.trigger();
  }

  /** A page of the first pod list. */
  onFirstPodPage(pods: readonly Pod[]): void {
    this.o.progress.podsListed(pods.length);
    this.scheduler.firstListPage(pods);
    this.fullLane.trigger();
  }

  /**
   * The registration clock sees the watch events that can make a pod
   * registrable, on the leader: the pod's own, and those of ClusterSPIFFEIDs
   * and Namespaces (which decide what is selected). A list's changes are
   * not timed (when they happened is not known); a deleted pod waits no more.
   */
  private timeRegistration(resource: string, change: { kind: 'add' | 'update' | 'delete'; obj: KubernetesObject; listed?: boolean; previous?: KubernetesObject | undefined } | undefined, leading: boolean): void {
    if (!change) return;
    if (resource === 'pods') {
      if (change.kind === 'delete') this.clock.forget(change.obj.metadata?.uid ?? '');
      else if (leading && change.listed !== true) this.clock.podEvent(change.kind, change.obj, change.previous);
    } else if ((resource === 'clusterspiffeids' || resource === 'namespaces') && leading && change.listed !== true && change.kind !== 'delete') {
      this.clock.selectionChanged();
    }
  }

  private leading(): boolean {
    const term = this.o.term();
    return term !== undefined && !term.aborted;
  }

  /** What the scheduler routes on, read when it decides. */
  private conditions(): Conditions {
    const { cache, state, reconciler, o } = this;
    const leading = () => this.leading();
    return {
      get leading() {
        return leading();
      },
      get spireReady() {
        return o.spireReady();
      },
      podEntries: podEntriesOn(o.config),
      get unsynced() {
        return cache.unsynced();
      },
      get stateCertain() {
        return state.isCertain();
      },
      get probed() {
        return reconciler.probe.fields !== undefined;
      },
      get podsCoverTemplates() {
        return cache.podsCoverTemplates();
      },
    };
  }

  /** The queue is drained: the changes so far are this pass's. */
  private drainQueue(): void {
    this.queued = 0;
    this.metrics?.setQueueDepth(0);
  }

  /** The full lane: first-list batches while the pods are listed, then a full pass when one is due. */
  private async fullLaneWork(): Promise<void> {
    // Shutting down: the pass in flight finishes, and none starts.
    if (this.o.signal.aborted) return;
    const { scheduler } = this;
    let route = scheduler.next(this.conditions());
    // Pods listed and not yet written go first, also once the list is complete: the full pass
    // that follows renders and plans every pod, and their entries need not wait for that.
    while (route.route === 'first-list') route = scheduler.next(this.conditions(), !(await this.firstListBatch(route.pods)));
    if (route.route === 'wait' && route.why === 'caches not synced') return;
    if (!this.podsSyncedSaid) {
      this.podsSyncedSaid = true;
      this.o.progress.podsSynced();
    }
    // Also pods changed while the caches were syncing: the pod lane waited for them.
    if (route.route === 'pod-lane' || scheduler.dirtyCount > 0) this.podLane.trigger();
    const term = this.o.term();
    // The scheduler routes to a full pass only while this replica leads, so a term is in progress.
    if (route.route === 'full' && term) await this.fullPass(term);
  }

  /**
   * Pod work does not wait behind a full pass. A full pass lists SPIRE's
   * entries, then plans, then writes, and against a slow SPIRE server the list
   * and the writes take seconds to minutes; pod passes run beside it, in
   * their own lane:
   * - while it lists, freely: the state records their writes and replays them
   *   onto the list when it completes (CurrentState);
   * - while it renders and plans (in slices, the event loop turning between
   *   them), freely: it then writes nothing for the pods they took or the
   *   keys they wrote since its snapshot (PassScheduler.planned);
   * - while it writes, for every pod its plan does not touch; the others wait
   *   until it is done.
   * Before the term's first snapshot, and while the state is uncertain, pod
   * passes only create (PassScheduler's `create-only` route): they run from
   * the start of a term, before the first list of SPIRE's entries completes.
   */
  private async podLaneWork(): Promise<void> {
    const { scheduler, metrics } = this;
    while (scheduler.dirtyCount > 0 && !this.o.signal.aborted) {
      const term = this.o.term();
      // Not leading: nextPod would wait too.
      if (!term) return;
      const route = scheduler.nextPod(this.conditions());
      if (route.route === 'wait') return;
      if (route.route === 'full') return this.requestFull();
      // Held: only pods the full pass is writing for are left; it takes them up when it is done.
      if (route.route === 'held') return;
      const log = passLog(this.log);
      this.drainQueue();
      const work = metrics?.upstream.take();
      let wrote: Plan | undefined;
      try {
        wrote = await this.podPass(route, term, log);
        work?.done(true);
      } catch (err) {
        work?.done(false);
        this.retries.settle('pod', { result: 'error', err }, log);
        return;
      } finally {
        scheduler.podPassDone(wrote ? writtenKeys(wrote) : []);
        this.passes++;
      }
    }
  }

  /**
   * The engine's pod pass (entries/pass.ts:runPodPass) over these pods, against the in-memory SPIRE
   * state, with the cache's lookups: what both pod routes (podPass, firstListBatch) write with.
   */
  /** What a few pods' entries depend on, from the cache: not a snapshot of every pod in the cluster. */
  private podLookup(): PodLookup {
    const { cache } = this;
    return {
      clusterSPIFFEIDs: cache.items<ClusterSPIFFEID>('clusterspiffeids'),
      clusterSPIFFEIDsUnknown: cache.notInstalled().includes('ClusterSPIFFEID'),
      namespace: (name) => cache.get<Namespace>('namespaces', name),
      node: (name) => cache.get<Node>('nodes', name),
      // Built once per change of the endpoints, not once per pod event.
      services: () => (this.services ??= indexServices(cache.items<EndpointSlice>('endpointslices'), cache.items<Endpoints>('endpoints'))),
    };
  }

  private async writePodEntries(pods: Pod[], goneUids: string[], signal: AbortSignal, log: Logger, createOnly?: CreateOnly): Promise<PodPassResult> {
    const { reconciler } = this;
    const started = Date.now();
    const lookup = this.podLookup();
    const r = await runPodPass({ pods, goneUids, lookup }, this.o.spire, { ...this.podOptions, ownership: reconciler.ownership(), signal, unsupportedFields: reconciler.probe.fields, createOnly });
    reconciler.probe.noticeAssignedIds(r.applied, (m) => log.warn(m));
    this.o.onPass?.(r, (Date.now() - started) / 1000);
    const a = r.applied;
    this.metrics?.observeWrites({ created: a.created, updated: a.updated, deleted: a.deleted, failed: a.failures.length });
    return r;
  }

  /**
   * A pass for pod events only: work in proportion to the pods changed,
   * planned against the in-memory SPIRE state. It runs beside a full pass
   * (see podLaneWork), for pods that pass is not writing for. A full pass
   * follows when the events stop (statistics, and a check on this one).
   * A create-only pass writes the entries of the pods that exist, planned
   * against the state once the probe has said which entries are ours, and
   * against none before; the full pass it leaves the rest to is due already
   * before the term's first snapshot, and asked for when the state is
   * uncertain. Returns the plan it wrote.
   */
  private async podPass(route: Extract<PodLaneRoute, { take: unknown }>, signal: AbortSignal, log: Logger): Promise<Plan> {
    const createOnly = route.route === 'create-only';
    const pods: Pod[] = [];
    const goneUids: string[] = [];
    // The pods are read now: every pod event so far is in what this pass writes from.
    const mark = this.clock.mark;
    for (const [uid, at] of route.take) {
      const pod = at ? this.cache.get<Pod>('pods', at.name, at.namespace) : undefined;
      if (pod && pod.metadata.uid === uid) pods.push(pod);
      else goneUids.push(uid);
    }
    const against = this.reconciler.probe.fields ? 'against-state' : 'against-nothing';
    this.podPassPods = new Set(route.take.map(([uid]) => uid));
    let r: PodPassResult;
    try {
      r = await this.writePodEntries(pods, createOnly ? [] : goneUids, signal, log, createOnly ? against : undefined);
    } finally {
      this.podPassPods = NO_PODS;
    }
    this.settlePodPass(pods, mark, r);
    if (createOnly) log.debug({ pods: pods.length, created: r.applied.created, alreadyRegistered: r.alreadyRegistered, why: route.why, against }, 'created entries for changed pods');
    this.reports.problems('entries', entryPassProblems(r), false, log);
    this.retries.settle('pod', podPassOutcome(route, r), log);
    return r.plan;
  }

  /** The waits of this pod pass's pods whose last event it read end, or go on, with what it wrote and found. */
  private settlePodPass(pods: readonly Pod[], mark: number, r: PodPassResult): void {
    const due: PodAt[] = [];
    for (const p of pods) if (this.clock.isDue(p.metadata.uid, mark)) due.push({ uid: p.metadata.uid, namespace: p.metadata.namespace ?? '', name: p.metadata.name });
    if (due.length === 0) return;
    const writes = podWrites(r.plan, r.applied);
    const holds = (key: string) => this.state.holdsKey(key) || r.alreadyRegisteredKeys.has(key) || writes.similarKeys.has(key);
    for (const [uid, standing] of standings(due, r.declared, holds)) this.clock.settle(uid, standing, writes);
  }

  /**
   * After a full pass's writes: the pods it wrote for after ClusterSPIFFEID
   * or Namespace changes are timed from the first of them, and the waits of
   * pods whose last event its snapshot held (but the pod pass in flight's)
   * end or go on. Those pods are declared again from the cache, where they
   * are as the snapshot had them (a later event would have a later mark):
   * a few pods, not a walk over the pass's declaration of every pod.
   */
  private async settleFullPass(result: EntryPassResult, at: NonNullable<FullPassTally['clock']>): Promise<void> {
    // Nothing is waiting on this pass most of the time: then its writes are not even looked at.
    if (at.selectionSince === undefined && !this.clock.anyDue(at.mark, this.podPassPods)) return;
    // SPIRE answered the pass's writes by now; what follows runs in slices (a ClusterSPIFFEID may select 100,000 pods).
    const ended = this.clock.now();
    const writes = await finishInSlices(podWritesInSteps(result.plan, result.applied), FULL_PASS_SLICE_MS);
    if (at.selectionSince !== undefined) await finishInSlices(this.clock.selectedInSteps(at.selectionSince, writes, ended), FULL_PASS_SLICE_MS);
    const due = this.clock.due(at.mark, this.podPassPods);
    if (due.length === 0) return;
    const pods: Pod[] = [];
    const found: PodAt[] = [];
    for (const p of due) {
      const pod = this.cache.get<Pod>('pods', p.name, p.namespace);
      // Not in the cache: deleted, and its delete event ends the wait.
      if (!pod || pod.metadata.uid !== p.uid) continue;
      pods.push(pod);
      found.push(p);
    }
    const declared = declarePods(pods, this.podLookup(), this.o.pass.settings);
    const holds = (key: string) => this.state.holdsKey(key) || writes.similarKeys.has(key);
    for (const [uid, standing] of standings(found, declared, holds)) this.clock.settle(uid, standing, writes);
  }

  /**
   * At start, pods arrive a page at a time for seconds (at 100,000 pods)
   * before the pod cache is synced. Once everything else is synced and SPIRE
   * answers, each batch of listed pods gets its entries written at once, by
   * the same pod pass as an event, while the rest are still being listed
   * (and the last batch just before the first full pass): creating and
   * updating only (a pod not listed yet is not known to be gone), with the
   * full pass after the sync as the check, the reporter and the only one
   * that deletes. False when the batch did not complete.
   */
  private async firstListBatch(pods: Pod[]): Promise<boolean> {
    const { state, reconciler } = this;
    const log = passLog(this.log);
    const signal = this.o.term();
    try {
      // The scheduler hands out first-list batches only while this replica leads.
      if (!signal) return false;
      await reconciler.probeServer(log);
      if (reconciler.probe.fields === undefined) return false;
      if (state.needsList()) await state.replaceFromPages(this.o.spire.entryPages());
      // Pods listed before a ClusterSPIFFEID came to read more of them: the wider list brings them again.
      if (!this.cache.podsCoverTemplates()) {
        this.scheduler.dropFirstList();
        return false;
      }
      const r = await this.writePodEntries(pods, [], signal, log);
      this.o.progress.writtenWhileListing(r.applied.created + r.applied.updated);
      log.debug({ pods: pods.length, created: r.applied.created, updated: r.applied.updated }, 'wrote entries for pods listed so far');
      if (writesOutcome(r.applied) === 'requeue') {
        state.invalidate();
        return false;
      }
      return true;
    } catch (err) {
      // The full pass after the sync starts over from a fresh list; nothing here is lost.
      state.invalidate();
      log.debug({ err }, 'writing entries for the pods listed so far failed');
      return false;
    } finally {
      this.passes++;
    }
  }

  /** The reconcile of every mode (probe, federation, entries), with pod passes going on beside it: list, snapshot, reconcile, report. */
  private async fullPass(signal: AbortSignal): Promise<void> {
    const log = passLog(this.log);
    const started = Date.now();
    const tally: FullPassTally = { work: [this.metrics?.upstream.take()] };
    this.listSeconds = 0;
    let ok = true;
    try {
      const { entries } = await this.reconciler.once({
        federation: this.cache.federatedTrustDomains(),
        federationUnknown: this.cache.notInstalled().includes('ClusterFederatedTrustDomain'),
        signal,
        log,
        onFederation: (fed) => {
          this.o.statuses.federation(fed.status);
          this.reports.problems('federation', federationPassProblems(fed), true, log);
        },
        snapshot: () => this.listAndSnapshot(tally),
      });
      // Ended before its entries (entries turned off, the term ended, pods listed again): nothing to retry.
      const outcome = entries ? this.reportFull(entries, signal, tally, started, log) : SUCCESS;
      this.retries.settle('full', outcome, log);
    } catch (err) {
      ok = false;
      // What it took of the selection changes, the next full pass writes.
      if (tally.clock?.selectionSince !== undefined) this.clock.returnSelection(tally.clock.selectionSince);
      this.retries.settle('full', { result: 'error', err }, log);
    } finally {
      this.scheduler.fullDone();
      this.passes++;
      for (const w of tally.work) w?.done(ok);
      // Pods left to this pass, and events that came meanwhile.
      this.podLane.trigger();
    }
  }

  /**
   * A full pass's objects: SPIRE's entries listed first if due, then the caches' snapshot, pod
   * passes going on beside both. Undefined: no entry pass this time.
   */
  private async listAndSnapshot(tally: FullPassTally): Promise<Snapshot | undefined> {
    const { config } = this.o;
    if (entriesOff(config)) return undefined;
    // Not while the pods are listed again with a field a ClusterSPIFFEID has come to read: a pass follows that list.
    if (!this.cache.podsCoverTemplates()) {
      this.scheduler.requestFull();
      return undefined;
    }
    const listing = performance.now();
    if (this.state.needsList() || (await this.driftFound())) await this.state.replaceFromPages(this.o.spire.entryPages());
    this.listSeconds += (performance.now() - listing) / 1000;
    // Read before the snapshot: a change landing in between makes the next pass recompute, never the reverse.
    const version = this.cacheVersion;
    const snapshot = this.cache.snapshot();
    this.scheduler.snapshotted();
    // Pods changed before the snapshot are the pod lane's still: it writes them between this pass's slices.
    if (this.scheduler.dirtyCount > 0) this.podLane.trigger();
    tally.clock = { mark: this.clock.mark, selectionSince: this.clock.takeSelection() };
    tally.work.push(this.metrics?.upstream.take());
    this.drainQueue();
    return { objects: switchedSnapshot(config, snapshot), version: String(version) };
  }

  /** The gcInterval's drift check, when one is due: whether SPIRE's entries must be listed. */
  private async driftFound(): Promise<boolean> {
    if (!this.drift || !this.driftCheckDue) return false;
    this.driftCheckDue = false;
    const found = await this.drift.check(this.o.spire);
    this.metrics?.driftChecked(found.drift === undefined ? 'none' : 'drift');
    if (found.drift === undefined) {
      this.log.debug({ pages: found.pages, listed: found.listed, cycleEnded: found.cycleEnded }, "SPIRE's entries checked for drift: none");
      return false;
    }
    this.log.info({ why: found.drift }, "SPIRE's entries are not as this controller holds them: listing them all");
    return true;
  }

  /**
   * The full pass's options, made once: the engine's, the state, its metrics and progress,
   * rendering and planning in slices, and its plan less what pod passes wrote meanwhile.
   */
  private fullPassOptions(): FullPassOptions {
    const { metrics } = this;
    return {
      ...this.o.pass,
      state: this.state,
      listedByCaller: true,
      // Without metrics, nothing is timed.
      onPhase: metrics ? (phase, seconds) => (phase === 'list' ? (this.listSeconds += seconds) : metrics.observePhase(phase, seconds)) : undefined,
      onWritten: (done, total) => this.o.progress.written('full pass', done, total),
      sliceMs: FULL_PASS_SLICE_MS,
      beforeApply: (plan) => {
        const writable = this.scheduler.planned(plan);
        // Pods left dirty while this pass decided them are the pod lane's again, but for those it now writes.
        this.podLane.trigger();
        return writable;
      },
    };
  }

  /** Statuses, problems, the log and the metrics of a full pass that reached its entries; returns its outcome. */
  private reportFull(result: EntryPassResult, signal: AbortSignal, tally: FullPassTally, started: number, log: Logger): PassOutcome {
    const { metrics } = this;
    metrics?.observePhase('list', this.listSeconds);
    // A status computed under a term that has ended may be stale for the new leader: do not write it.
    if (signal.aborted) return SUCCESS;
    const statusStarted = performance.now();
    this.o.statuses.entries(result.status);
    metrics?.observePhase('status', (performance.now() - statusStarted) / 1000);
    const seconds = (Date.now() - started) / 1000;
    this.reports.fullPass(result, seconds, log);
    this.o.onPass?.(result, seconds);
    // Beside the lanes, not in the pass: the pods this pass held are the pod lane's again as soon as it ends.
    if (tally.clock) void this.settleFullPass(result, tally.clock).catch((err: unknown) => log.warn({ err }, 'timing registrations after a full pass failed'));
    return result.applied && writesOutcome(result.applied) === 'requeue' ? { result: 'requeue' } : SUCCESS;
  }
}
