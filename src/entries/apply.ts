import { type EntryMask, type EntryOut, rpcOutcome, type SpireClient } from '../spire/index.js';
import { ENTRY_FIELDS, sameField } from './compare.js';
import { type EntrySpec, type Owner, toSpire, UPDATE_MASK } from './model.js';
import type { KeptEntry, Plan, PlannedCreate } from './plan.js';

export interface ApplyFailure {
  op: 'create' | 'update' | 'delete';
  id: string;
  key: string;
  /** The entry's SPIFFE ID: what names a failed create, whose ID was new to this pass (the next pass asks for another). */
  spiffeId: string;
  owner?: Owner;
  codeName: string;
  message: string;
  /**
   * A create SPIRE refused because it holds a similar entry (the same SPIFFE
   * ID, parent ID and selectors): the ID of that entry, which it answered
   * with. Absent for any other failure, ALREADY_EXISTS for another reason
   * included (a taken entry ID, a DNS name given twice).
   */
  similarTo?: string;
}

export interface ApplyResult {
  created: number;
  updated: number;
  deleted: number;
  failures: ApplyFailure[];
  /** Keys whose create or update failed: their preferred entry is not (fully) on the server. */
  failedKeys: Set<string>;
  /** Deletes held back because the same pod's replacement entry failed to be written. */
  heldBack: KeptEntry[];
  /**
   * Creates that SPIRE stored under another ID than the one requested (a
   * server older than 1.8.0 ignores requested IDs): requested to stored.
   */
  assigned: Map<string, string>;
  /**
   * Creates and updates SPIRE answered with every compared field as sent:
   * requested ID to the revision SPIRE stored the entry under. Recorded with
   * the entry, it lets the next list find the entry unchanged. A write not
   * here (absent when nothing was written) is compared again on that list.
   */
  revisions?: Map<string, string>;
}

/**
 * What a create or update asks SPIRE to answer with: the stored entry's
 * revision and the fields the controller compares, so the entry can be
 * recorded as SPIRE holds it. SPIRE always adds the ID. The SPIFFE ID, parent
 * ID and selectors are left out: SPIRE stores them as sent or refuses the
 * write.
 */
export const WRITE_MASK: EntryMask = { ...UPDATE_MASK, revision_number: true };

function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  // As sent, in the same order: the common answer, told without sorting copies.
  if (a.every((x, i) => x === b[i])) return true;
  const sa = [...a].sort();
  const sb = [...b].sort();
  return sa.every((x, i) => x === sb[i]);
}

/**
 * Whether SPIRE's answer to a write shows it stored every compared field of
 * `spec`. A server that does not know a field (older releases) answers it
 * empty, so a value it dropped shows. The answer lists DNS names sorted (SPIRE
 * reads the written row back through its index) while the entry keeps them in
 * the order sent, so here their order is not compared.
 */
export function storedAsSent(spec: EntrySpec, answer: EntryOut): boolean {
  // Field by field, without building the answer's fields into a spec: this runs once per entry written.
  for (const r of ENTRY_FIELDS) {
    const stored = answer[r.wire];
    const sent = spec[r.field];
    if (r.field === 'dnsNames' ? !sameMembers(stored as string[], sent as string[]) : !sameField(r.compare, stored, sent)) return false;
  }
  return true;
}

/** Notes the revision of a write SPIRE answered with the entry as sent. */
function noteRevision(result: ApplyResult, id: string, spec: EntrySpec, answer: EntryOut | null): void {
  if (answer && storedAsSent(spec, answer)) (result.revisions ??= new Map()).set(id, answer.revision_number);
}

/** Told, at the start (0) and after each batch, how many of the plan's writes have been answered, of how many. */
export type WriteProgress = (done: number, total: number) => void;

interface Sending {
  signal?: AbortSignal;
  onBatchDone?: (items: number) => void;
}

function sending(signal: AbortSignal | undefined, plan: Plan, onWritten: WriteProgress | undefined): Sending {
  if (!onWritten) return { signal };
  const total = plan.creates.length + plan.updates.length + plan.deletes.length;
  if (total > 0) onWritten(0, total);
  let done = 0;
  return { signal, onBatchDone: (items) => onWritten((done += items), total) };
}

/**
 * The workload an entry serves, for holding back a delete while the entry
 * meant to replace it failed. A pod entry's workload is its pod. Nothing ties
 * an entry not made for a pod to the object that declared it (a
 * ClusterStaticEntry edit that changes its SPIFFE ID, parent or selectors
 * leaves an undeclared entry that could be any static entry's old one), so
 * all of them are one workload: a failed one holds back every such delete.
 */
function workloadOf(e: { podUid?: string }): string {
  return e.podUid === undefined ? NOT_A_POD : `pod ${e.podUid}`;
}

const NOT_A_POD = 'entries not tied to a pod';

function heldBackDetail(workload: string): string {
  return workload === NOT_A_POD ? 'kept until every new entry not tied to a pod is written' : `kept until the new entry for ${workload} is written`;
}

/** A create or update SPIRE refused: a failure against its object, and its key not (fully) on the server. */
function failed(op: 'create' | 'update', w: { id: string; key: string; owner: Owner; spec: { spiffeId: string } }, status: { codeName: string; message: string }, result: ApplyResult, similarTo?: string): void {
  result.failures.push({ op, id: w.id, key: w.key, spiffeId: w.spec.spiffeId, owner: w.owner, codeName: status.codeName, message: status.message, similarTo });
  result.failedKeys.add(w.key);
}

async function create(creates: readonly PlannedCreate[], spire: SpireClient, result: ApplyResult, failedWorkloads: Set<string>, send: Sending): Promise<void> {
  if (creates.length === 0) return;
  const outcome = await spire.createEntries(creates.map((c) => toSpire(c.spec, c.id)), { outputMask: WRITE_MASK, ...send });
  outcome.results.forEach((r, i) => {
    const c = creates[i]!;
    if (r.status.ok) {
      result.created++;
      // The entry exists under the ID SPIRE reports, whatever we asked for: an ID taken for ours that is not would leak it.
      if (r.entry?.id && r.entry.id !== c.id) result.assigned.set(c.id, r.entry.id);
      noteRevision(result, c.id, c.spec, r.entry);
      return;
    }
    // SPIRE answers a similar entry's ALREADY_EXISTS with that entry (and only then with one).
    failed('create', c, r.status, result, r.status.codeName === 'ALREADY_EXISTS' && r.entry?.id ? r.entry.id : undefined);
    failedWorkloads.add(workloadOf(c));
  });
}

/**
 * Executes exactly the plan: creates and updates first, then deletes, so a
 * workload whose entry key changed always has an entry; and a workload whose
 * new entry failed keeps its old one (see workloadOf), for pod entries and
 * static entries alike. The exception is a create replacing an entry of the
 * cleanup prefix with the same key: SPIRE refuses similar entries, so it
 * follows the deletes. A per-item failure is recorded against the declaring
 * object and does not stop the rest.
 */
export async function applyPlan(plan: Plan, spire: SpireClient, signal?: AbortSignal, onWritten?: WriteProgress): Promise<ApplyResult> {
  const result: ApplyResult = { created: 0, updated: 0, deleted: 0, failures: [], failedKeys: new Set(), heldBack: [], assigned: new Map() };
  const failedWorkloads = new Set<string>();
  const send = sending(signal, plan, onWritten);

  await create(
    plan.creates.filter((c) => !c.replaces),
    spire,
    result,
    failedWorkloads,
    send,
  );
  if (plan.updates.length > 0) {
    const outcome = await spire.updateEntries(
      plan.updates.map((u) => toSpire(u.spec, u.id)),
      { inputMask: UPDATE_MASK, outputMask: WRITE_MASK, ...send },
    );
    outcome.results.forEach((r, i) => {
      const u = plan.updates[i]!;
      if (r.status.ok) {
        result.updated++;
        return void noteRevision(result, u.id, u.spec, r.entry);
      }
      failed('update', u, r.status, result);
      // An entry that failed to update still exists: only a pod's own deletes wait for it (its
      // other entries); one static entry's failed update says nothing of another's removal.
      if (u.podUid !== undefined) failedWorkloads.add(workloadOf(u));
    });
  }

  // A replaced entry must go for its replacement to be created, whatever else failed.
  const replaced = new Set(plan.creates.flatMap((c) => c.replaces ?? []));
  const deletes = plan.deletes.filter((d) => {
    const workload = workloadOf(d);
    if (replaced.has(d.id) || !failedWorkloads.has(workload)) return true;
    result.heldBack.push({ id: d.id, reason: 'replacement-failed', detail: heldBackDetail(workload), podUid: d.podUid });
    return false;
  });
  if (deletes.length > 0) {
    const outcome = await spire.deleteEntries(
      deletes.map((d) => d.id),
      send,
    );
    outcome.results.forEach((r, i) => {
      const d = deletes[i]!;
      // Already gone is what we wanted.
      if (r.status.ok || rpcOutcome(r.status.codeName, 'delete') === 'done') return void result.deleted++;
      result.failures.push({ op: 'delete', id: d.id, key: d.key, spiffeId: d.current.spiffeId, codeName: r.status.codeName, message: r.status.message });
    });
  }
  await create(
    plan.creates.filter((c) => c.replaces),
    spire,
    result,
    failedWorkloads,
    send,
  );
  return result;
}
