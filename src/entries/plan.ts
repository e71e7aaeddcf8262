import { changedFields, type ComparedField, type OptionalField } from './compare.js';
import { type CurrentEntry, type DeclaredEntry, type EntrySpec, isJoinTokenEntry, type Owner } from './model.js';
import { classifyEntry, matchesCleanup, otherClusterOf, type Ownership, type Policy } from './ownership.js';
import { groupDeclaredInSteps, type KeyState } from './keys.js';
import { newEntryId } from './ids.js';
import { finish, sliceCounter, type Steps } from './time-slices.js';

export interface PlannedCreate {
  id: string;
  key: string;
  spec: EntrySpec;
  owner: Owner;
  podUid?: string;
  /**
   * Entries of the cleanup prefix with the same key. SPIRE refuses a create
   * while a similar entry exists, so this create must follow their deletion.
   */
  replaces?: string[];
}

export interface PlannedUpdate {
  id: string;
  key: string;
  spec: EntrySpec;
  current: EntrySpec;
  changed: ComparedField[];
  owner: Owner;
  podUid?: string;
}

type DeleteReason = 'undeclared' | 'duplicate' | 'cleanup';

interface PlannedDelete {
  id: string;
  key: string;
  current: EntrySpec;
  reason: DeleteReason;
  podUid?: string;
}

/** A declared entry that a foreign entry (outside our scope) already holds: reported, never created. */
interface Conflict {
  key: string;
  spec: EntrySpec;
  owner: Owner;
  foreignIds: string[];
}

type KeepReason = 'join-token' | 'other-cluster' | 'render-unknown' | 'deletes-suppressed' | 'policy' | 'replacement-failed';

export interface KeptEntry {
  id: string;
  reason: KeepReason;
  detail: string;
  /** The pod the entry is for, when it is a pod's (reports name the pod). */
  podUid?: string;
}

export interface Plan {
  creates: PlannedCreate[];
  updates: PlannedUpdate[];
  deletes: PlannedDelete[];
  conflicts: Conflict[];
  /** Current entries a sync would otherwise delete or change, and why they stay. */
  kept: KeptEntry[];
  /** Per key: the preferred declaration and the masked ones (for status). */
  keys: Map<string, KeyState>;
  /**
   * IDs of entries whose ID does not show they are ours, taken as ours this
   * pass because they hold a key we declare (see Ownership: the former
   * prefix, a server that ignores requested IDs). Kept and updated in place.
   */
  adopted: string[];
  /** Current entries outside entryScope (not ours, and not of the cleanup prefix): left alone. */
  outsideScope: number;
}

export interface PlanInput {
  declared: readonly DeclaredEntry[];
  current: readonly CurrentEntry[];
  ownership: Ownership;
  policy: Policy;
  unsupportedFields?: ReadonlySet<OptionalField>;
  /**
   * Pods whose declared entries could not be computed this pass: their
   * current entries are kept, because unknown is not absent.
   */
  unknownPods?: ReadonlySet<string>;
  /** Keep every pod entry (a selector could not be evaluated, so any pod may be affected). */
  keepAllPodEntries?: string;
  /** Keep every entry not tied to a pod (a static entry failed to render). */
  keepNonPodEntries?: string;
  /** No deletes at all this pass, with the reason (e.g. a list call failed). */
  suppressDeletes?: string;
  newId?: () => string;
}

const NO_ENTRIES: readonly CurrentEntry[] = Object.freeze([]);

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/**
 * Three-way state to plan: what to create, update and delete so that SPIRE
 * holds exactly the preferred declared entries, within our ownership scope
 * and policy. No I/O and no state: the same inputs give the same plan, but
 * for the IDs of new entries (input.newId, a fresh UUID by default).
 *
 * The case table, written here only (ARCHITECTURE.md explains it, and
 * lists what decides this function's inputs and what acts on its plan):
 *
 *   declared key, current entries (classifyEntry)     -> result
 *   ------------------------------------------------------------------------
 *   no entry of ours, none adoptable, none foreign    -> create, ID <entryIDPrefix><uuid> (after the cleanup entries of that key go)
 *   no entry of ours, an adoptable one                -> adopt it, update in place (Ownership says which are adoptable)
 *   only a foreign entry                              -> conflict (reported, not created)
 *   an entry of ours, compared fields differ          -> update those fields (changedFields; fields SPIRE does not store left out)
 *   several entries of ours                           -> keep one, delete the rest ('duplicate')
 *   undeclared entry of ours                          -> delete ('undeclared')
 *   entry of the cleanup prefix                       -> delete ('cleanup')
 *   foreign, or adoptable and not adopted             -> left alone
 *
 *   a delete is kept instead (keepReason, in this order)   set by
 *   ------------------------------------------------------------------------
 *   join-token entry                                  -> 'join-token'
 *   parent names another cluster's agents             -> 'other-cluster'      ownership.ts:otherClusterOf
 *   suppressDeletes                                   -> 'deletes-suppressed' cli/inputs.ts (manifest problems, entries off)
 *   (cleanup deletes stop here: they go)
 *   pod entry, keepAllPodEntries                      -> 'render-unknown'     declare.ts:reportInvalid, or its CRD not installed
 *   pod entry, its pod in unknownPods                 -> 'render-unknown'     declare.ts (render failed, node/namespace unknown;
 *                                                                              in a pod pass, any invalid ClusterSPIFFEID)
 *   non-pod entry, keepNonPodEntries                  -> 'render-unknown'     declare.ts (a static entry failed, or its CRD
 *                                                                              is not installed)
 *   policy upsert-only/create-only                    -> 'policy' (create-only keeps updates too)
 *
 * After the plan, applyPlan holds back a workload's deletes while its
 * replacement failed ('replacement-failed') and counts NOT_FOUND as deleted.
 */
export function planEntries(input: PlanInput): Plan {
  return finish(planEntriesInSteps(input));
}

/** planEntries as Steps: the same plan, yielding between entries (entries/time-slices.ts). */
export function* planEntriesInSteps(input: PlanInput): Steps<Plan> {
  const due = sliceCounter();
  const newId = input.newId ?? (() => newEntryId(input.ownership.entryIDPrefix));
  const keys = yield* groupDeclaredInSteps(input.declared);
  const plan: Plan = { creates: [], updates: [], deletes: [], conflicts: [], kept: [], keys, adopted: [], outsideScope: 0 };
  const sorted = yield* sortCurrentInSteps(input.current, input.ownership, plan, due);

  for (const [key, state] of keys) {
    planKey(key, state, sorted, input, plan, newId);
    if (due()) yield;
  }
  for (const [key, currents] of sorted.managed) {
    if (!keys.has(key)) for (const cur of currents) sorted.candidates.push(deletion(cur, 'undeclared'));
    if (due()) yield;
  }
  // Not adopted: left alone, unless the cleanup prefix names them.
  for (const currents of sorted.adoptable.values()) for (const cur of currents) if (matchesCleanup(cur.id, input.ownership)) cleanUp(sorted, cur);

  for (const d of sorted.candidates) {
    const reason = keepReason(d, input);
    if (reason) plan.kept.push({ id: d.id, ...reason, ...pod(d.podUid) });
    else plan.deletes.push(d);
    if (due()) yield;
  }
  applyPolicy(plan, input.policy);
  return plan;
}

/** SPIRE's current entries by key, sorted by how they stand to us (classifyEntry), and the deletes found so far. */
interface SortedCurrent {
  managed: Map<string, CurrentEntry[]>;
  foreign: Map<string, CurrentEntry[]>;
  adoptable: Map<string, CurrentEntry[]>;
  /** Entries of the cleanup prefix: each is also a delete candidate. */
  cleanup: Map<string, CurrentEntry[]>;
  candidates: PlannedDelete[];
}

function cleanUp(sorted: SortedCurrent, cur: CurrentEntry): void {
  push(sorted.cleanup, cur.key, cur);
  sorted.candidates.push(deletion(cur, 'cleanup'));
}

function* sortCurrentInSteps(current: readonly CurrentEntry[], ownership: Ownership, plan: Plan, due: () => boolean): Steps<SortedCurrent> {
  const sorted: SortedCurrent = { managed: new Map(), foreign: new Map(), adoptable: new Map(), cleanup: new Map(), candidates: [] };
  for (const cur of current) {
    const cls = classifyEntry(cur, ownership);
    if (cls === 'managed') push(sorted.managed, cur.key, cur);
    else if (cls === 'foreign') {
      push(sorted.foreign, cur.key, cur);
      plan.outsideScope++;
    } else if (cls === 'adoptable') push(sorted.adoptable, cur.key, cur);
    else cleanUp(sorted, cur);
    if (due()) yield;
  }
  return sorted;
}

/**
 * One declared key against the entries that hold it: adopt one if none of
 * ours does, then create (or report the conflict), or update the one kept
 * and delete its duplicates.
 */
function planKey(key: string, state: KeyState, sorted: SortedCurrent, input: PlanInput, plan: Plan, newId: () => string): void {
  const { winner } = state;
  let currents = sorted.managed.get(key) ?? NO_ENTRIES;
  if (currents.length === 0) {
    const adopt = sorted.adoptable.get(key)?.[0];
    if (adopt) {
      sorted.adoptable.delete(key);
      plan.adopted.push(adopt.id);
      currents = [adopt];
    }
  }
  const keep = currents[0];
  if (!keep) {
    const held = sorted.foreign.get(key);
    if (held) {
      plan.conflicts.push({ key, spec: winner.spec, owner: winner.owner, foreignIds: held.map((c) => c.id) });
    } else {
      const replaced = sorted.cleanup.get(key)?.map((c) => c.id);
      plan.creates.push({ id: newId(), key, spec: winner.spec, owner: winner.owner, ...pod(winner.podUid), replaces: replaced });
    }
    return;
  }
  const changed = changedFields(keep.spec, winner.spec, input.unsupportedFields);
  if (changed.length > 0) {
    plan.updates.push({ id: keep.id, key, spec: winner.spec, current: keep.spec, changed, owner: winner.owner, ...pod(winner.podUid) });
  }
  for (let i = 1; i < currents.length; i++) sorted.candidates.push(deletion(currents[i]!, 'duplicate'));
}

/** What the policy forbids is kept instead: upsert-only never deletes, create-only never deletes nor updates. */
function applyPolicy(plan: Plan, policy: Policy): void {
  if (policy !== 'sync') {
    for (const d of plan.deletes) plan.kept.push({ id: d.id, reason: 'policy', detail: `policy ${policy} never deletes`, ...pod(d.podUid) });
    plan.deletes = [];
  }
  if (policy === 'create-only') {
    for (const u of plan.updates) plan.kept.push({ id: u.id, reason: 'policy', detail: `policy create-only never updates (${u.changed.join(', ')} differ)`, ...pod(u.podUid) });
    plan.updates = [];
  }
}

/**
 * The plan's creates alone, less those that must follow the deletion of a
 * cleanup-prefix entry holding their key: writes that can neither change nor
 * remove an entry SPIRE holds. SPIRE creates an entry only when no entry
 * with the same SPIFFE ID, parent ID and selectors exists (it answers
 * ALREADY_EXISTS with that entry otherwise, in the same transaction), so
 * these cannot duplicate one either, whatever the plan was made against.
 * Conflicts stay, to be reported; updates, deletes, adoptions and keeps go.
 */
export function createsOnly(plan: Plan): Plan {
  return { ...plan, creates: plan.creates.filter((c) => !c.replaces), updates: [], deletes: [], kept: [], adopted: [] };
}

/**
 * The plan less the creates, updates and deletes `drop` picks (a create that
 * replaces cleanup entries goes with them: they share its key). What it
 * decided about the rest, conflicts and keeps included, stands.
 */
export function withoutWrites(plan: Plan, drop: (w: { podUid?: string; key: string }) => boolean): Plan {
  const keep = <W extends { podUid?: string; key: string }>(ws: W[]) => ws.filter((w) => !drop(w));
  return { ...plan, creates: keep(plan.creates), updates: keep(plan.updates), deletes: keep(plan.deletes) };
}

function pod(podUid: string | undefined): { podUid?: string } {
  return podUid === undefined ? {} : { podUid };
}

function deletion(cur: CurrentEntry, reason: PlannedDelete['reason']): PlannedDelete {
  return { id: cur.id, key: cur.key, current: cur.spec, reason, ...pod(cur.podUid) };
}

function keepReason(d: PlannedDelete, input: PlanInput): Omit<KeptEntry, 'id'> | undefined {
  if (isJoinTokenEntry(d.current)) return { reason: 'join-token', detail: 'join-token entries are never deleted' };
  const other = otherClusterOf({ id: d.id, spec: d.current }, input.ownership);
  if (other !== undefined) return { reason: 'other-cluster', detail: `its parent ID names an agent of cluster ${other}, and its ID does not show it is ours` };
  if (input.suppressDeletes) return { reason: 'deletes-suppressed', detail: input.suppressDeletes };
  if (d.reason === 'cleanup') return undefined;
  if (d.podUid !== undefined) {
    if (input.keepAllPodEntries) return { reason: 'render-unknown', detail: input.keepAllPodEntries };
    if (input.unknownPods?.has(d.podUid)) {
      return { reason: 'render-unknown', detail: `the declared entries of pod ${d.podUid} could not be computed this pass` };
    }
  } else if (input.keepNonPodEntries) {
    return { reason: 'render-unknown', detail: input.keepNonPodEntries };
  }
  return undefined;
}
