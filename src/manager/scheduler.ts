import type { Pod, PodName } from '../api/index.js';
import { type Plan, withoutWrites } from '../entries/index.js';

/** Pods per first-list batch (see PassScheduler.next). */
export const FIRST_LIST_BATCH = 5_000;

/** After a pod pass, a full pass follows once pod events have been quiet this long (statistics, and a check on the pod pass). */
export const FOLLOW_UP_FULL_PASS_MS = 2_000;

/**
 * Pods a replica that is not leading keeps as changed by watch events, the
 * most recently changed: at the start of its term they are the first whose
 * entries it creates (see PassScheduler.podChanged). Bounded, because a
 * standby may wait for days; the others are its first full pass's.
 */
export const STANDBY_PODS = 500;

/** Where a changed pod is: null once it is deleted. */
export type PodRef = PodName | null;

/** How a pod change arrived, and to whom. */
export interface PodChange {
  /** From a list (the first list, or a relist) rather than a watch event. */
  listed: boolean;
  /** This replica leads now. */
  leading: boolean;
}

/**
 * What the scheduler asks of the world when it routes: read at the moment
 * of the decision (the live wiring answers with getters, tests with plain
 * objects).
 */
export interface Conditions {
  /** This replica holds the lease (or leader election is off). */
  readonly leading: boolean;
  /** The SPIRE server has answered once. */
  readonly spireReady: boolean;
  /** reconcile.clusterSPIFFEIDs: with it off, no pod has entries. */
  readonly podEntries: boolean;
  /** The informers whose first list is not complete. */
  readonly unsynced: readonly string[];
  /** The in-memory SPIRE state holds every entry we wrote (no write of unknown outcome since the last list). */
  readonly stateCertain: boolean;
  /** The probe has said which entry fields SPIRE stores. */
  readonly probed: boolean;
  /** The pod cache keeps every field the templates read (false while the pods are listed again with more). */
  readonly podsCoverTemplates: boolean;
}

/** What pod passes took and wrote while a full pass rendered and planned: its plan must leave them alone. */
interface PodLaneWrites {
  /** Pods taken by pod passes (their entries, whatever the full pass decided for them). */
  readonly pods: Set<string>;
  /** Keys the pod passes' plans wrote (an entry may hold a key several pods declare). */
  readonly keys: Set<string>;
}

/** The pods a plan writes entries for. */
function podsWrittenBy(plan: Plan): Set<string> {
  const pods = new Set<string>();
  for (const w of [...plan.creates, ...plan.updates, ...plan.deletes]) if (w.podUid !== undefined) pods.add(w.podUid);
  return pods;
}

/** What the full lane does next. */
type FullLaneRoute =
  /** Write entries for these pods of the first list, before the caches are synced. */
  | { route: 'first-list'; pods: Pod[] }
  /** A full pass: snapshot, plan against SPIRE, write, statuses. */
  | { route: 'full' }
  /** No full pass is due: pod events are the pod lane's. */
  | { route: 'pod-lane' }
  /** Nothing now; a later event or trigger comes back. */
  | { route: 'wait'; why: 'caches not synced' | 'not leading' };

/** What the pod lane does next. */
export type PodLaneRoute =
  /** A pod pass over these changed pods (uid, where). */
  | { route: 'pod'; take: [uid: string, at: PodRef][] }
  /**
   * A pod pass over these changed pods that only creates the entries they
   * declare: no update, no delete. `no snapshot yet`: the term's first full
   * pass is due or under way and writes the rest. `state uncertain`: a full
   * pass from a fresh list must follow (the caller asks for one).
   */
  | { route: 'create-only'; why: 'no snapshot yet' | 'state uncertain'; take: [uid: string, at: PodRef][] }
  /** A pod pass is due but none of its pods may be written now; they stay dirty. */
  | { route: 'held'; why: 'full pass writes them' | 'pods relisted' }
  /** The pod lane cannot plan on its own: a full pass does this work (it probes first), and takes the dirty pods. */
  | { route: 'full'; why: 'not probed' }
  /** Nothing now; the full lane wakes this lane when it may go on. */
  | { route: 'wait'; why: 'no dirty pods' | 'not leading' | 'caches not synced' | 'no pod entries' };

/**
 * Which pass runs next, and over what: the routing rule of live mode, with
 * no timers, I/O or awaits, so every route is unit-tested.
 *
 * Two lanes run beside each other (each a CoalescingTrigger in live.ts):
 * the full lane (first-list batches, then full passes) and the pod lane
 * (pod passes). The contract follows client-go's workqueue:
 *
 * - `dirty` is the set of pods changed since a pod pass last took them (uid
 *   to where it is, null once deleted). A pod is in it at most once however
 *   often it changes; a pod pass takes the ones it writes for. A full pass's
 *   snapshot leaves them there: the pod lane writes them between the pass's
 *   slices rather than after its whole render, plan and writes, and the
 *   pass leaves them out of its plan (`planned`). A pod lane that cannot
 *   plan (SPIRE not probed) hands them to the full pass it asks for.
 * - `processing` is the set of pods the full pass in flight is writing for
 *   (its plan touches their entries). A pod pass leaves them dirty until the
 *   full pass is done, as workqueue never hands out an item being processed.
 * - `podLaneSinceSnapshot` is set while a full pass renders and plans (from
 *   its snapshot to its plan): the pods pod passes have taken since the
 *   snapshot (and the pods of the one in flight at it), and the keys they
 *   wrote. Pod passes go on meanwhile; the full pass takes their pods and
 *   keys out of its plan (`planned`), because it decided them from a
 *   snapshot and a state they have since changed.
 * - `inFlight`: the pods of the pod pass under way, if any.
 * - `fullRequested` is set by any change other than a pod's (and by
 *   gcInterval, a failed write, the follow-up after pod passes) and cleared
 *   when a full pass starts: many requests, one pass.
 * - `firstList` holds the pods the first list has brought and no pass has
 *   taken, written in batches while the rest are listed.
 * - `snapshotTaken`: a full pass of this term has taken its snapshot.
 *
 * The invariant: a pod pass never updates or deletes an entry a concurrent
 * full pass is deciding from what it has listed, and a full pass never
 * writes from a plan that a pod pass has made stale. Once the term's first
 * snapshot is taken and the in-memory state is certain, the pod lane plans
 * normally (route `pod`); `podLaneSinceSnapshot` keeps the full pass's plan
 * off what pod passes wrote while it planned, and `processing` keeps pod
 * passes off what that plan then writes (ARCHITECTURE.md has the argument).
 * Until then (a start, a takeover) and while the state is uncertain (after
 * a write of unknown outcome), a full pass is due or under
 * way and may plan from a list the pod lane has not seen, so the pod lane
 * only creates (route `create-only`, entries/pass.ts:runPodPass): the
 * entries its pods declare that the state does not hold, or all of them
 * when nothing can be read from the state yet. A create cannot change or
 * delete an entry, and SPIRE never creates one similar to an entry it holds
 * (same SPIFFE ID, parent and selectors: it answers ALREADY_EXISTS with
 * that entry, in the transaction that would create it), so it cannot
 * duplicate one either; what it does create, the state records and replays
 * onto a list in progress, so the full pass plans with it. Updates and
 * deletes, those pods' included, are the full pass's: at a start or
 * takeover it is pending already; when the state is uncertain the pod lane
 * asks for it.
 *
 * Before the term's first snapshot, pods changed by a list (the first list,
 * or a relist) are not dirty: that pass reads every listed pod (the first
 * list's are also written by first-list batches, after a full list of
 * SPIRE's entries: creating what a large cluster already holds again at
 * every start would cost far more). Pods changed by a watch event are dirty,
 * also while this replica does not lead (the STANDBY_PODS most recent), so
 * a pod made during a start or a takeover gets its entries from the pod
 * lane without waiting for the full pass.
 */
export class PassScheduler {
  private readonly dirty = new Map<string, PodRef>();
  private processing: ReadonlySet<string> = new Set();
  private podLaneSinceSnapshot: PodLaneWrites | undefined;
  private inFlight: readonly string[] = [];
  private fullRequested = true;
  private firstList: Pod[] = [];
  private snapshotTaken = false;

  /** Pods changed and not yet taken by a pass. */
  get dirtyCount(): number {
    return this.dirty.size;
  }

  /** Pods listed and not yet written. */
  get firstListCount(): number {
    return this.firstList.length;
  }

  /** A full pass is wanted; the caller wakes the full lane. */
  requestFull(): void {
    this.fullRequested = true;
  }

  /** A change that is not a pod's: it needs a full pass. Returns the lane to wake. */
  changed(): 'full' {
    this.fullRequested = true;
    return 'full';
  }

  /**
   * A pod was added, changed or deleted. Returns the lane to wake: the pod
   * lane, also while a full pass is due (it may be slow to come, and what it
   * finds already written is no work for it); before the term's first
   * snapshot, the full lane for a listed pod or a deleted one (that pass
   * writes them). See the class comment for who takes which pod when.
   */
  podChanged(uid: string, at: PodRef, how: PodChange): 'full' | 'pod' {
    if (this.snapshotTaken) {
      this.dirty.set(uid, at);
      return 'pod';
    }
    if (at === null) {
      this.dirty.delete(uid);
      return 'full';
    }
    if (how.listed) return 'full';
    if (how.leading) {
      this.dirty.set(uid, at);
      return 'pod';
    }
    // The most recent last: beyond the bound, the longest unchanged goes.
    this.dirty.delete(uid);
    this.dirty.set(uid, at);
    if (this.dirty.size > STANDBY_PODS) this.dirty.delete(this.dirty.keys().next().value!);
    return 'pod';
  }

  /** A page of the first pod list. */
  firstListPage(pods: readonly Pod[]): void {
    for (const p of pods) this.firstList.push(p);
  }

  /** The first list's pods are listed again with more fields: the full pass after the sync writes them. */
  dropFirstList(): void {
    this.firstList = [];
  }

  /**
   * The full lane's route. `batchFailed`: a first-list batch of this lane
   * run did not complete, so no other is tried before the next trigger.
   */
  next(c: Conditions, batchFailed = false): FullLaneRoute {
    if (this.firstList.length > 0 && !batchFailed) {
      // Bounded batches: a pass over tens of thousands of pods at once holds its whole plan and
      // every request it encodes at the same time, which raised the controller's peak memory.
      const pods = this.firstList.splice(0, FIRST_LIST_BATCH);
      if (!c.leading || !c.spireReady || !c.podEntries) {
        this.firstList = [];
      } else if (c.unsynced.some((u) => u !== 'pods')) {
        // Wait for everything else a pod's entries depend on.
        this.firstList = pods.concat(this.firstList);
      } else {
        return { route: 'first-list', pods };
      }
    }
    if (c.unsynced.length > 0) return { route: 'wait', why: 'caches not synced' };
    // The full pass that follows renders and plans every pod, the listed ones too.
    this.firstList = [];
    if (!c.leading) return { route: 'wait', why: 'not leading' };
    if (!this.fullRequested) return { route: 'pod-lane' };
    this.fullRequested = false;
    return { route: 'full' };
  }

  /** The pod lane's route; 'pod' and 'create-only' take their pods out of `dirty`, and 'full' hands them all to the full pass it asks for. */
  nextPod(c: Conditions): PodLaneRoute {
    if (this.dirty.size === 0) return { route: 'wait', why: 'no dirty pods' };
    if (!c.leading) return { route: 'wait', why: 'not leading' };
    if (c.unsynced.length > 0) return { route: 'wait', why: 'caches not synced' };
    if (!c.podEntries) return { route: 'wait', why: 'no pod entries' };
    if (!c.podsCoverTemplates) return { route: 'held', why: 'pods relisted' };
    const createOnly = !this.snapshotTaken ? 'no snapshot yet' : !c.stateCertain ? 'state uncertain' : undefined;
    // Creates need no probe (the pass plans them against no entries until it has answered).
    if (!createOnly && !c.probed) {
      // The full pass asked for writes them from a snapshot taken after their events; left dirty,
      // they would ask for one pass after another for as long as the probe fails.
      this.dirty.clear();
      return { route: 'full', why: 'not probed' };
    }
    const take: [string, PodRef][] = [];
    for (const [uid, at] of this.dirty) {
      if (this.processing.has(uid)) continue;
      take.push([uid, at]);
    }
    if (take.length === 0) return { route: 'held', why: 'full pass writes them' };
    for (const [uid] of take) this.dirty.delete(uid);
    this.inFlight = take.map(([uid]) => uid);
    for (const uid of this.inFlight) this.podLaneSinceSnapshot?.pods.add(uid);
    return createOnly ? { route: 'create-only', why: createOnly, take } : { route: 'pod', take };
  }

  /** The pod pass taken by the last nextPod is over (done or failed); `wroteKeys`: the keys its plan wrote. */
  podPassDone(wroteKeys: Iterable<string>): void {
    if (this.podLaneSinceSnapshot) for (const key of wroteKeys) this.podLaneSinceSnapshot.keys.add(key);
    this.inFlight = [];
  }

  /**
   * The full pass took its snapshot: every pod event so far is in it, and
   * from now until it has planned, what the pod lane takes and writes is
   * kept aside for `planned`, starting with the pod pass in flight. Dirty
   * pods stay dirty: the pod lane takes them in the pass's first turns, and
   * one it has not taken by `planned` the pass writes, after which the pod
   * lane finds it written.
   */
  snapshotted(): void {
    this.snapshotTaken = true;
    this.podLaneSinceSnapshot = { pods: new Set(this.inFlight), keys: new Set() };
  }

  /**
   * The full pass has planned: returns the plan it may write, less its
   * writes for the pods pod passes took and the keys they wrote since its
   * snapshot (it decided those from what they have since changed; the pod
   * passes wrote them from what is newer). From now until it is done, pod
   * passes go on for every pod but those that plan writes for.
   */
  planned(plan: Plan): Plan {
    const podLane = this.podLaneSinceSnapshot;
    this.podLaneSinceSnapshot = undefined;
    const writable = podLane ? withoutWrites(plan, (w) => (w.podUid !== undefined && podLane.pods.has(w.podUid)) || podLane.keys.has(w.key)) : plan;
    this.processing = podsWrittenBy(writable);
    return writable;
  }

  /** The full pass ended (done, failed or left early): the pods it held back are the pod lane's. */
  fullDone(): void {
    this.podLaneSinceSnapshot = undefined;
    this.processing = new Set();
  }

  /** The term ended: a later term starts from a full pass of its own. */
  termEnded(): void {
    this.dirty.clear();
    this.snapshotTaken = false;
    this.podLaneSinceSnapshot = undefined;
  }
}
