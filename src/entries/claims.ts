import type { ApplyResult } from './apply.js';
import type { Plan } from './plan.js';

/**
 * Entries this process knows to be its own although their IDs do not say
 * so: those a SPIRE server older than 1.8.0 stored under an ID of its own
 * choosing, and those adopted because they held a key we declare (see
 * Ownership). Remembered while the process runs, so such an entry is still
 * deleted when nothing declares it any more. Lost at restart: then only
 * what classifyEntry can tell from the entry itself applies.
 */
export class ClaimedIds {
  private readonly set = new Set<string>();

  get ids(): ReadonlySet<string> {
    return this.set;
  }

  /** After an apply: what was created under another ID or adopted is claimed; what was deleted is forgotten. */
  record(plan: Pick<Plan, 'adopted' | 'deletes'>, applied: Pick<ApplyResult, 'assigned' | 'failures' | 'heldBack'>): void {
    for (const id of plan.adopted) this.set.add(id);
    for (const id of applied.assigned.values()) this.set.add(id);
    const kept = new Set([...applied.failures.filter((f) => f.op === 'delete').map((f) => f.id), ...applied.heldBack.map((h) => h.id)]);
    for (const d of plan.deletes) if (!kept.has(d.id)) this.set.delete(d.id);
  }
}
