import type { Pod } from '../api/index.js';

/** Pods per first-list batch (see PassScheduler.next). */
export const FIRST_LIST_BATCH = 5_000;

/** After a pod pass, a full pass follows once pod events have been quiet this long (statistics, and a check on the pod pass). */
export const FOLLOW_UP_FULL_PASS_MS = 2_000;

/** Where a changed pod is: null once it is deleted. */
export type PodRef = { namespace: string; name: string } | null;

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

/** What the full lane does next. */
export type FullLaneRoute =
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
  /** A pod pass is due but none of its pods may be written now; they stay dirty. */
  | { route: 'held'; why: 'full pass writes them' | 'pods relisted' }
  /** The pod lane cannot plan on its own: a full pass does this work (it lists SPIRE first, and probes). */
  | { route: 'full'; why: 'state uncertain' | 'not probed' }
  /** Nothing now; the full lane wakes this lane when it may go on. */
  | { route: 'wait'; why: 'no dirty pods' | 'full pass planning' | 'not leading' | 'caches not synced' | 'no pod entries' };

/**
 * Which pass runs next, and over what: the routing rule of live mode, with
 * no timers, I/O or awaits, so every route is unit-tested.
 *
 * Two lanes run beside each other (each a CoalescingTrigger in live.ts):
 * the full lane (first-list batches, then full passes) and the pod lane
 * (pod passes). The contract follows client-go's workqueue:
 *
 * - `dirty` is the set of pods changed since a pass last took them (uid to
 *   where it is, null once deleted). A pod is in it at most once however
 *   often it changes; a pod pass takes the ones it writes for, and a full
 *   pass's snapshot takes them all.
 * - `processing` is the set of pods the full pass in flight is writing for
 *   (its plan touches their entries). A pod pass leaves them dirty until the
 *   full pass is done, as workqueue never hands out an item being processed.
 * - `planning` is true while a full pass takes its snapshot and plans: no
 *   pod pass starts (the snapshot must hold every pod a pod pass wrote for).
 * - `fullRequested` is set by any change other than a pod's (and by
 *   gcInterval, a failed write, the follow-up after pod passes) and cleared
 *   when a full pass starts: many requests, one pass.
 * - `firstList` holds the pods the first list has brought and no pass has
 *   taken, written in batches while the rest are listed.
 * - Until a full pass has taken a snapshot of the synced caches
 *   (`snapshotTaken`), pod events are that first pass's to write.
 */
export class PassScheduler {
  private readonly dirty = new Map<string, PodRef>();
  private processing: ReadonlySet<string> = new Set();
  private planning = false;
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
   * A pod was added, changed or deleted. Returns the lane to wake: before the
   * first full pass's snapshot, the full lane (that pass writes every pod);
   * after it, the pod lane, also while a full pass is due (it may be slow to
   * come, and what it finds already written is no work for it).
   */
  podChanged(uid: string, at: PodRef): 'full' | 'pod' {
    if (!this.snapshotTaken) return 'full';
    this.dirty.set(uid, at);
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

  /** The pod lane's route; 'pod' takes its pods out of `dirty`. */
  nextPod(c: Conditions): PodLaneRoute {
    if (this.dirty.size === 0) return { route: 'wait', why: 'no dirty pods' };
    if (this.planning) return { route: 'wait', why: 'full pass planning' };
    if (!c.leading) return { route: 'wait', why: 'not leading' };
    if (c.unsynced.length > 0) return { route: 'wait', why: 'caches not synced' };
    if (!c.podEntries) return { route: 'wait', why: 'no pod entries' };
    if (!c.stateCertain) return { route: 'full', why: 'state uncertain' };
    if (!c.probed) return { route: 'full', why: 'not probed' };
    if (!c.podsCoverTemplates) return { route: 'held', why: 'pods relisted' };
    const take: [string, PodRef][] = [];
    for (const [uid, at] of this.dirty) {
      if (this.processing.has(uid)) continue;
      take.push([uid, at]);
    }
    if (take.length === 0) return { route: 'held', why: 'full pass writes them' };
    for (const [uid] of take) this.dirty.delete(uid);
    return { route: 'pod', take };
  }

  /** The full pass takes its snapshot and plans next: no pod pass may start. */
  planningStarted(): void {
    this.planning = true;
  }

  /** The full pass took its snapshot: every pod event so far is in it. */
  snapshotted(): void {
    this.dirty.clear();
    this.snapshotTaken = true;
  }

  /** The full pass has planned: pod passes resume for every pod but these. */
  planned(writes: ReadonlySet<string>): void {
    this.processing = writes;
    this.planning = false;
  }

  /** The full pass ended (done, failed or left early): the pods it held back are the pod lane's. */
  fullDone(): void {
    this.planning = false;
    this.processing = new Set();
  }

  /** The term ended: a later term starts from a full pass of its own. */
  termEnded(): void {
    this.dirty.clear();
    this.snapshotTaken = false;
  }
}
