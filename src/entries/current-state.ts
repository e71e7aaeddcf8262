import type { ApplyResult } from './apply.js';
import type { EntryOut } from '../spire/index.js';
import { changedFields } from './compare.js';
import { type CurrentEntry, fromSpire } from './model.js';
import type { Plan } from './plan.js';

/**
 * Per-item rejections after which SPIRE certainly holds nothing new for that
 * item. Anything else (a transport error, an outcome unknown, a similar
 * entry we did not know of) means our copy may be wrong.
 */
const DEFINITE = new Set(['INVALID_ARGUMENT', 'INTERNAL', 'NOT_FOUND', 'FAILED_PRECONDITION']);

/**
 * A map from a key to the entry IDs under it. Nearly every key names one
 * entry, so one is stored as a bare string: a Set per pod and per key costs
 * about 30 MiB at 100,000 entries.
 */
class IdIndex {
  private readonly ids = new Map<string, string | Set<string>>();

  add(k: string, id: string): void {
    const at = this.ids.get(k);
    if (at === undefined) this.ids.set(k, id);
    else if (typeof at === 'string') {
      if (at !== id) this.ids.set(k, new Set([at, id]));
    } else at.add(id);
  }

  remove(k: string, id: string): void {
    const at = this.ids.get(k);
    if (at === id) this.ids.delete(k);
    else if (typeof at === 'object') {
      at.delete(id);
      if (at.size === 1) this.ids.set(k, at.values().next().value!);
    }
  }

  forEach(k: string, fn: (id: string) => void): void {
    const at = this.ids.get(k);
    if (typeof at === 'string') fn(at);
    else at?.forEach((id) => fn(id));
  }
}

/** The entries and their indexes, built whole by a list before they replace the old ones. */
class Entries {
  readonly byId = new Map<string, CurrentEntry>();
  /**
   * The revision SPIRE reported for each entry at the last list, so a resync
   * reuses the converted entry (and its SHA-256 key) when it did not change.
   * Entries we wrote since have none: SPIRE bumped it, so they are converted again.
   */
  readonly revisions = new Map<string, string>();
  // For planning a few pods: their entries, and who else holds a key.
  readonly byPod = new IdIndex();
  readonly byKey = new IdIndex();

  add(e: CurrentEntry): void {
    this.remove(e.id);
    this.byId.set(e.id, e);
    if (e.podUid !== undefined) this.byPod.add(e.podUid, e.id);
    this.byKey.add(e.key, e.id);
  }

  remove(id: string): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.byId.delete(id);
    this.revisions.delete(id);
    if (old.podUid !== undefined) this.byPod.remove(old.podUid, id);
    this.byKey.remove(old.key, id);
  }
}

/**
 * SPIRE's entries as this controller last saw them: a full list, corrected
 * by every write the controller makes, so a pass for one pod event does not
 * list every entry on the server. Listed again every `maxAgeMs` (gcInterval),
 * which also catches what others changed, and at once when a write's
 * outcome is uncertain.
 */
export class CurrentState {
  private state = new Entries();
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

  /** The entries tied to these pods, and every entry holding one of these keys. */
  related(podUids: Iterable<string>, keys: Iterable<string>): CurrentEntry[] {
    const ids = new Set<string>();
    const add = (id: string) => ids.add(id);
    for (const uid of podUids) this.state.byPod.forEach(uid, add);
    for (const key of keys) this.state.byKey.forEach(key, add);
    return [...ids].map((id) => this.state.byId.get(id)!);
  }

  /** Converts a full list, reusing what is unchanged since the last one, and replaces the state with it. */
  replaceFromList(listed: readonly EntryOut[]): CurrentEntry[] {
    const next = new Entries();
    const out = listed.map((raw) => this.adopt(raw, next));
    this.install(next);
    return out;
  }

  /**
   * As replaceFromList, one page at a time, so the raw pages are garbage as
   * soon as they are converted rather than all held at once (at 100,000
   * entries, the difference in peak heap is over 100 MiB). A list that fails
   * part way leaves the state as it was.
   */
  async replaceFromPages(pages: AsyncIterable<readonly EntryOut[]>): Promise<CurrentEntry[]> {
    const next = new Entries();
    const out: CurrentEntry[] = [];
    for await (const page of pages) for (const raw of page) out.push(this.adopt(raw, next));
    this.install(next);
    return out;
  }

  /**
   * The entry for a listed one: ours when SPIRE holds what we hold, so the
   * state shares its spec with the declaration that wrote it (one copy per
   * entry, not two), and a new conversion otherwise.
   */
  private adopt(raw: EntryOut, next: Entries): CurrentEntry {
    const held = this.state.byId.get(raw.id);
    let entry: CurrentEntry;
    if (held && this.state.revisions.get(raw.id) === raw.revision_number) entry = held;
    else {
      const converted = fromSpire(raw);
      entry = held && held.key === converted.key && changedFields(held.spec, converted.spec).length === 0 ? held : converted;
    }
    next.add(entry);
    next.revisions.set(raw.id, raw.revision_number);
    return entry;
  }

  private install(next: Entries): void {
    this.state = next;
    this.listedAt = this.now();
    this.uncertain = false;
    this.lists++;
  }

  replace(listed: readonly CurrentEntry[]): void {
    const next = new Entries();
    for (const e of listed) next.add(e);
    this.install(next);
  }

  values(): CurrentEntry[] {
    return [...this.state.byId.values()];
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
      if (!failed.has(`create\u0000${c.id}`)) this.state.add({ id: c.id, key: c.key, spec: c.spec, ...(c.podUid !== undefined ? { podUid: c.podUid } : {}) });
    }
    for (const u of plan.updates) {
      if (!failed.has(`update\u0000${u.id}`)) this.state.add({ id: u.id, key: u.key, spec: u.spec, ...(u.podUid !== undefined ? { podUid: u.podUid } : {}) });
    }
    for (const d of plan.deletes) {
      if (!held.has(d.id) && !failed.has(`delete\u0000${d.id}`)) this.state.remove(d.id);
    }
  }
}
