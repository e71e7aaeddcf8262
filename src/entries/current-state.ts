import type { ApplyResult } from './apply.js';
import type { EntryOut } from '../spire/index.js';
import { type CurrentEntry, fromSpire } from './model.js';
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
  /**
   * The revision SPIRE reported for each entry at the last list, so a resync
   * reuses the converted entry (and its SHA-256 key) when it did not change.
   * Entries we wrote since have none: SPIRE bumped it, so they are converted again.
   */
  private revisions = new Map<string, string>();
  // Indexes for planning a few pods: their entries, and who else holds a key.
  private readonly byPod = new Map<string, Set<string>>();
  private readonly byKey = new Map<string, Set<string>>();
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

  private add(e: CurrentEntry): void {
    this.remove(e.id);
    this.entries.set(e.id, e);
    if (e.podUid !== undefined) addTo(this.byPod, e.podUid, e.id);
    addTo(this.byKey, e.key, e.id);
  }

  private remove(id: string): void {
    const old = this.entries.get(id);
    if (!old) return;
    this.entries.delete(id);
    this.revisions.delete(id);
    if (old.podUid !== undefined) removeFrom(this.byPod, old.podUid, id);
    removeFrom(this.byKey, old.key, id);
  }

  /** The entries tied to these pods, and every entry holding one of these keys. */
  related(podUids: Iterable<string>, keys: Iterable<string>): CurrentEntry[] {
    const ids = new Set<string>();
    for (const uid of podUids) for (const id of this.byPod.get(uid) ?? []) ids.add(id);
    for (const key of keys) for (const id of this.byKey.get(key) ?? []) ids.add(id);
    return [...ids].map((id) => this.entries.get(id)!);
  }

  /** Converts a full list, reusing what is unchanged since the last one, and replaces the state with it. */
  replaceFromList(listed: readonly EntryOut[]): CurrentEntry[] {
    const out: CurrentEntry[] = [];
    const revisions = new Map<string, string>();
    for (const raw of listed) {
      const known = this.revisions.get(raw.id) === raw.revision_number ? this.entries.get(raw.id) : undefined;
      out.push(known ?? fromSpire(raw));
      revisions.set(raw.id, raw.revision_number);
    }
    this.replace(out);
    this.revisions = revisions;
    return out;
  }

  replace(listed: readonly CurrentEntry[]): void {
    this.entries = new Map();
    this.byPod.clear();
    this.byKey.clear();
    this.revisions.clear();
    for (const e of listed) this.add(e);
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
      if (!failed.has(`create\u0000${c.id}`)) this.add({ id: c.id, key: c.key, spec: c.spec, ...(c.podUid !== undefined ? { podUid: c.podUid } : {}) });
    }
    for (const u of plan.updates) {
      if (!failed.has(`update\u0000${u.id}`)) this.add({ id: u.id, key: u.key, spec: u.spec, ...(u.podUid !== undefined ? { podUid: u.podUid } : {}) });
    }
    for (const d of plan.deletes) {
      if (!held.has(d.id) && !failed.has(`delete\u0000${d.id}`)) this.remove(d.id);
    }
  }
}

function addTo(m: Map<string, Set<string>>, k: string, v: string): void {
  let set = m.get(k);
  if (!set) m.set(k, (set = new Set()));
  set.add(v);
}

function removeFrom(m: Map<string, Set<string>>, k: string, v: string): void {
  const set = m.get(k);
  set?.delete(v);
  if (set?.size === 0) m.delete(k);
}
