import type { ApplyResult } from './apply.js';
import type { CurrentEntry } from './model.js';
import type { Plan } from './plan.js';

/**
 * Per-item rejections after which SPIRE certainly holds nothing new for that
 * item. Anything else (a transport error, an outcome unknown, a similar
 * entry we did not know of) means our copy may be wrong.
 */
const DEFINITE = new Set(['INVALID_ARGUMENT', 'INTERNAL', 'NOT_FOUND', 'FAILED_PRECONDITION']);

/**
 * SPIRE's entries as this controller last saw them: a full list, corrected
 * by every write the controller makes, so a pass for one pod event does not
 * list every entry on the server. Listed again every `maxAgeMs` (gcInterval),
 * which also catches what others changed, and at once when a write's
 * outcome is uncertain.
 */
export class CurrentState {
  private entries = new Map<string, CurrentEntry>();
  private listedAt = Number.NEGATIVE_INFINITY;
  private uncertain = true;
  lists = 0;

  constructor(
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  needsList(): boolean {
    return this.uncertain || this.now() - this.listedAt >= this.maxAgeMs;
  }

  replace(listed: readonly CurrentEntry[]): void {
    this.entries = new Map(listed.map((e) => [e.id, e]));
    this.listedAt = this.now();
    this.uncertain = false;
    this.lists++;
  }

  values(): CurrentEntry[] {
    return [...this.entries.values()];
  }

  invalidate(): void {
    this.uncertain = true;
  }

  /** Applies what a pass wrote; an uncertain outcome forces a list on the next pass. */
  record(plan: Plan, applied: ApplyResult): void {
    const failed = new Set<string>();
    for (const f of applied.failures) {
      failed.add(`${f.op}\u0000${f.id}`);
      if (!DEFINITE.has(f.codeName)) this.uncertain = true;
    }
    const held = new Set(applied.heldBack.map((h) => h.id));
    for (const c of plan.creates) {
      if (!failed.has(`create\u0000${c.id}`)) this.entries.set(c.id, { id: c.id, key: c.key, spec: c.spec, ...(c.podUid !== undefined ? { podUid: c.podUid } : {}) });
    }
    for (const u of plan.updates) {
      if (!failed.has(`update\u0000${u.id}`)) this.entries.set(u.id, { id: u.id, key: u.key, spec: u.spec, ...(u.podUid !== undefined ? { podUid: u.podUid } : {}) });
    }
    for (const d of plan.deletes) {
      if (!held.has(d.id) && !failed.has(`delete\u0000${d.id}`)) this.entries.delete(d.id);
    }
  }
}
