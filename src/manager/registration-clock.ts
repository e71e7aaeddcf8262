import { performance } from 'node:perf_hooks';
import type { KubernetesObject } from '@kubernetes/client-node';
import { type ApplyResult, finish, type PlannedCreate, type PlannedUpdate, type PodDeclaration, sliceCounter, type Steps } from '../entries/index.js';
import { rpcOutcome } from '../spire/index.js';

/**
 * How a pod's wait ended: its entry created or updated (SPIRE answered OK),
 * found on the server already (in this process's copy of SPIRE's entries,
 * or SPIRE answered ALREADY_EXISTS with a similar entry), or refused by
 * SPIRE (an answer that sending again cannot change).
 */
export const REGISTRATION_OUTCOMES = ['created', 'updated', 'already-registered', 'refused'] as const;
export type RegistrationOutcome = (typeof REGISTRATION_OUTCOMES)[number];

/**
 * What made the pod registrable, as this process saw it: `pod`, a watch
 * event of the pod itself (created on a node, bound to one, relabelled);
 * `selection`, a watch event of a ClusterSPIFFEID or a Namespace, timed from
 * the first such event the full pass that wrote the entry had in its
 * snapshot (an upper bound: a later one of those events may be the one that
 * selected the pod, within one pass's length).
 */
export const REGISTRATION_TRIGGERS = ['pod', 'selection'] as const;
export type RegistrationTrigger = (typeof REGISTRATION_TRIGGERS)[number];

type RegistrationObserver = (outcome: RegistrationOutcome, trigger: RegistrationTrigger, seconds: number) => void;

/**
 * Pods timed at once, at most. A pod event past it is not timed: the map
 * stays small (about 200 bytes a pod) whatever a burst or a template that
 * fails for every pod does, and the waits already timed, the longest among
 * them, are kept.
 */
export const PENDING_LIMIT = 10_000;

interface Waiting {
  /** performance.now() at the event that may have made the pod registrable: the first one not settled since. */
  since: number;
  /** The sequence number of the pod's last event: only a pass that read the pod at least that new settles it. */
  seq: number;
  namespace: string;
  name: string;
  /** Only its labels changed (it was on a node already): if its entries are found there, nothing waited. */
  relabelled: boolean;
}

/** What a pass's writes did, per pod UID. */
export interface PodWrites {
  created: ReadonlySet<string>;
  updated: ReadonlySet<string>;
  /** A create or update SPIRE refused for good (spire/errors.ts:rpcOutcome `refused`). */
  refused: ReadonlySet<string>;
  /** A write whose outcome is not known (transient, or unknown): the pass is retried, and the pod waits on. */
  unsure: ReadonlySet<string>;
  /** Keys of creates SPIRE answered ALREADY_EXISTS with a similar entry: it holds an entry under each. */
  similarKeys: ReadonlySet<string>;
}

type PlanWrites = { creates: readonly PlannedCreate[]; updates: readonly PlannedUpdate[] };

/**
 * The pods a pass's creates and updates were for, by what SPIRE answered.
 * A create answered ALREADY_EXISTS with a similar entry is none of these:
 * SPIRE holds the entry, which `standings` finds through the keys.
 */
export function podWrites(plan: PlanWrites, applied: Pick<ApplyResult, 'failures'> | undefined): PodWrites {
  return finish(podWritesInSteps(plan, applied));
}

/** podWrites as Steps (entries/time-slices.ts): a full pass may have written for 100,000 pods. */
export function* podWritesInSteps(plan: PlanWrites, applied: Pick<ApplyResult, 'failures'> | undefined): Steps<PodWrites> {
  const out = { created: new Set<string>(), updated: new Set<string>(), refused: new Set<string>(), unsure: new Set<string>(), similarKeys: new Set<string>() };
  // Nothing was sent for a pass that did not apply (a dry run, a pass that stopped).
  if (!applied) return out;
  const failed = new Map(applied.failures.filter((f) => f.op !== 'delete').map((f) => [f.id, f]));
  const sort = (w: { id: string; key: string; podUid?: string }, ok: Set<string>) => {
    const f = failed.get(w.id);
    if (f?.similarTo !== undefined) out.similarKeys.add(w.key);
    if (w.podUid === undefined) return;
    if (!f) ok.add(w.podUid);
    else if (f.similarTo === undefined) (rpcOutcome(f.codeName) === 'refused' ? out.refused : out.unsure).add(w.podUid);
  };
  const due = sliceCounter();
  for (const c of plan.creates) {
    sort(c, out.created);
    if (due()) yield;
  }
  for (const u of plan.updates) {
    sort(u, out.updated);
    if (due()) yield;
  }
  return out;
}

/**
 * Where a pass found a pod's entries: `none` declared (no ClusterSPIFFEID
 * selects it, it has finished, its namespace is ignored or not known yet),
 * `render-failed` (selected, but an entry could not be computed: it waits
 * on), `missing` (some declared entry is not on the server), `held` (every
 * declared entry is).
 */
type Standing = 'none' | 'render-failed' | 'missing' | 'held';

/** A pod by UID and name, as a pass settles it. */
export interface PodAt {
  uid: string;
  namespace: string;
  name: string;
}

/**
 * Where a pass's declaration (of these pods, or more) leaves each of these
 * pods; `holds` says whether SPIRE has an entry under a key. One walk over
 * the declaration, whatever the number of pods.
 */
export function standings(pods: readonly PodAt[], declared: Pick<PodDeclaration, 'entries' | 'renderFailures'>, holds: (key: string) => boolean): Map<string, Standing> {
  const keys = new Map<string, string[]>(pods.map((p) => [p.uid, []]));
  for (const d of declared.entries) if (d.podUid !== undefined) keys.get(d.podUid)?.push(d.key);
  const failed = new Set<string>();
  for (const f of declared.renderFailures) if (f.pod !== undefined) failed.add(f.pod);
  const out = new Map<string, Standing>();
  for (const p of pods) {
    const own = keys.get(p.uid)!;
    if (failed.has(`${p.namespace}/${p.name}`)) out.set(p.uid, 'render-failed');
    else if (own.length === 0) out.set(p.uid, 'none');
    else out.set(p.uid, own.every(holds) ? 'held' : 'missing');
  }
  return out;
}

/** Whether two label maps differ. */
function labelsDiffer(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = a ? Object.keys(a) : [];
  if (ka.length !== (b ? Object.keys(b).length : 0)) return true;
  return ka.some((k) => a![k] !== b?.[k]);
}

type PodLike = KubernetesObject & { spec?: { nodeName?: string }; status?: { phase?: string } };

/**
 * Whether a watch event can have made a pod registrable: it is on a node
 * and not finished, and it was just created, just bound to the node, or its
 * labels changed (which a podSelector reads). Other changes (its phase, a
 * field a template reads) change an entry it already has or had no way to.
 */
function registrableBy(kind: 'add' | 'update', obj: PodLike, previous: PodLike | undefined): boolean {
  if (!obj.spec?.nodeName) return false;
  const phase = obj.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (kind === 'add' || !previous) return true;
  return !previous.spec?.nodeName || labelsDiffer(previous.metadata?.labels, obj.metadata?.labels);
}

/**
 * The registration-latency SLO's clock: how long a pod waits, from the watch
 * event that made it registrable (on a node, and selected by a
 * ClusterSPIFFEID) as this process saw it, to SPIRE acknowledging its entry.
 *
 * A pod event starts a wait (podEvent); a pass that read the pod at least as
 * new as its last event settles it (settle): the pass's answer for its
 * writes, and where its declared entries stand after them. Only the leader
 * times (a standby writes nothing, so nothing it saw is answered by it), and
 * only watch events: pods a list brings (the first list, a relist) became
 * registrable at a time this process does not know. A full pass that wrote
 * entries after ClusterSPIFFEID or Namespace events times the pods no pod
 * event had already (selected).
 *
 * Per pod event: a map lookup and, for a pod not waiting, the checks of
 * registrableBy. Per pass: work in proportion to the pods it settles, and
 * to its writes for a full pass after a selection change.
 */
export class RegistrationClock {
  private readonly waiting = new Map<string, Waiting>();
  private seq = 0;
  private selectionSince: number | undefined;

  constructor(
    private readonly observe: RegistrationObserver,
    /** The clock's time (ms), for a caller that stamps an end to time from later. */
    readonly now: () => number = () => performance.now(),
    private readonly limit = PENDING_LIMIT,
  ) {}

  /** A pod's watch event, on the leader. */
  podEvent(kind: 'add' | 'update' | 'delete', obj: PodLike, previous: PodLike | undefined): void {
    const uid = obj.metadata?.uid;
    if (!uid) return;
    const w = this.waiting.get(uid);
    if (kind === 'delete') {
      this.waiting.delete(uid);
      return;
    }
    if (w) {
      // Still waiting since its first event; a pass must read it at least this new to settle it.
      w.seq = ++this.seq;
      return;
    }
    if (this.waiting.size >= this.limit || !registrableBy(kind, obj, previous)) return;
    const relabelled = kind === 'update' && !!previous?.spec?.nodeName;
    this.waiting.set(uid, { since: this.now(), seq: ++this.seq, namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '', relabelled });
  }

  /** A pod deleted, seen by any replica: it waits no more. */
  forget(uid: string): void {
    this.waiting.delete(uid);
  }

  /** A ClusterSPIFFEID or Namespace watch event on the leader: the pods it selects wait from now until the next full pass writes them. */
  selectionChanged(): void {
    this.selectionSince ??= this.now();
  }

  /** What a pass reading pods now has seen: every event up to this number. */
  get mark(): number {
    return this.seq;
  }

  /** A full pass took its snapshot: the selection changes so far are in it. Returns when the first of them came. */
  takeSelection(): number | undefined {
    const since = this.selectionSince;
    this.selectionSince = undefined;
    return since;
  }

  /** A full pass that took the selection changes stopped before its writes: the next one writes for them. */
  returnSelection(since: number): void {
    this.selectionSince = this.selectionSince === undefined ? since : Math.min(since, this.selectionSince);
  }

  /** Whether this pod waits and a pass that read pods at `mark` has seen its last event. */
  isDue(uid: string, mark: number): boolean {
    const w = this.waiting.get(uid);
    return w !== undefined && w.seq <= mark;
  }

  /** The waiting pods a pass that read pods at `mark` has seen, but those in `except` (a pod pass in flight settles them). */
  due(mark: number, except: ReadonlySet<string>): PodAt[] {
    const out: PodAt[] = [];
    for (const [uid, w] of this.waiting) if (w.seq <= mark && !except.has(uid)) out.push({ uid, namespace: w.namespace, name: w.name });
    return out;
  }

  /** Whether `due` would name any pod: stops at the first, building nothing (asked after every full pass). */
  anyDue(mark: number, except: ReadonlySet<string>): boolean {
    for (const [uid, w] of this.waiting) if (w.seq <= mark && !except.has(uid)) return true;
    return false;
  }

  /**
   * A pass that has seen the pod's last event is done with it. A refusal
   * ends the wait; a write of unknown outcome, a render failure or an entry
   * not there yet leaves it waiting (the pass is retried, or a later pass
   * writes it); a pod that declares nothing was not registrable after all.
   * Its entries all there ends the wait with the pass's own write for it, or
   * as already registered: unless only its labels changed, when they were
   * there before the change and nothing waited.
   */
  settle(uid: string, standing: Standing, writes: PodWrites): void {
    const w = this.waiting.get(uid);
    if (!w) return;
    if (writes.refused.has(uid)) return this.end(uid, w, 'refused');
    if (writes.unsure.has(uid) || standing === 'render-failed' || standing === 'missing') return;
    if (standing === 'none') {
      this.waiting.delete(uid);
      return;
    }
    const outcome: RegistrationOutcome = writes.created.has(uid) ? 'created' : writes.updated.has(uid) ? 'updated' : 'already-registered';
    if (outcome === 'already-registered' && w.relabelled) {
      this.waiting.delete(uid);
      return;
    }
    this.end(uid, w, outcome);
  }

  /**
   * A full pass's writes after ClusterSPIFFEID or Namespace changes that
   * began at `since`, for the pods no event of theirs keeps waiting: timed
   * from `since`. Refusals are not: a refused entry is sent again by every
   * full pass, and would be timed again by each one that follows a change.
   */
  selected(since: number, writes: PodWrites): void {
    finish(this.selectedInSteps(since, writes, this.now()));
  }

  /** selected as Steps (entries/time-slices.ts), up to `ended` (the pass's end, by `now`): a new ClusterSPIFFEID may select 100,000 pods. */
  *selectedInSteps(since: number, writes: PodWrites, ended: number): Steps<void> {
    const seconds = (ended - since) / 1000;
    const due = sliceCounter();
    for (const uid of writes.created) {
      if (!this.waiting.has(uid)) this.observe('created', 'selection', seconds);
      if (due()) yield;
    }
    for (const uid of writes.updated) {
      if (!this.waiting.has(uid) && !writes.created.has(uid)) this.observe('updated', 'selection', seconds);
      if (due()) yield;
    }
  }

  /** The term ended: what this replica waited on, the next leader answers. */
  clear(): void {
    this.waiting.clear();
    this.selectionSince = undefined;
  }

  /** Pods waiting, and how long the longest has (0 with none): waits that have not ended, which the histogram cannot show. */
  pending(): { pods: number; oldestSeconds: number } {
    // Waits are added in the order they begin and never moved, so the first is the oldest.
    const first = this.waiting.values().next();
    return { pods: this.waiting.size, oldestSeconds: first.done ? 0 : (this.now() - first.value.since) / 1000 };
  }

  private end(uid: string, w: Waiting, outcome: RegistrationOutcome): void {
    this.waiting.delete(uid);
    this.observe(outcome, 'pod', (this.now() - w.since) / 1000);
  }
}
