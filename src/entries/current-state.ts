import type { ApplyResult } from './apply.js';
import { type EntryOut, rpcOutcome } from '../spire/index.js';
import { type CurrentEntry, fromSpire } from './model.js';
import type { Plan } from './plan.js';
import { runSteps, sliceCounter, type Steps } from './time-slices.js';
import { holds } from './spire-holds.js';


/**
 * A map from a key to the entry IDs under it. Nearly every key names one
 * entry, so one is stored as a bare string, and a Set only where a key
 * names several: a Set for every key would be most of the index's memory.
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

  has(k: string): boolean {
    return this.ids.has(k);
  }

  forEach(k: string, fn: (id: string) => void): void {
    const at = this.ids.get(k);
    if (typeof at === 'string') fn(at);
    else at?.forEach((id) => fn(id));
  }
}

/** The entries and their indexes, built whole by a list before they replace the old ones. */
class Entries {
  /**
   * By ID. An entry's `revision` lets a resync reuse it (and its SHA-256 key)
   * when SPIRE's is unchanged. An entry we wrote holds the revision SPIRE
   * answered the write with; one whose answer did not show every field as
   * sent holds none, so it is compared again.
   */
  readonly byId = new Map<string, CurrentEntry>();
  // For planning a few pods: their entries, and who else holds a key.
  readonly byPod = new IdIndex();
  readonly byKey = new IdIndex();

  /**
   * A set of these entries, as adding each in turn makes it (a later entry
   * replaces an earlier one with its ID). Index by index: every map doubles
   * its table at the same sizes, and building them side by side would copy
   * all three tables in one step.
   */
  static *of(entries: readonly CurrentEntry[]): Steps<Entries> {
    const due = sliceCounter();
    const set = new Entries();
    for (const e of entries) {
      // Deleted first, as remove does: the later entry takes the end of the order.
      set.byId.delete(e.id);
      set.byId.set(e.id, e);
      if (due()) yield;
    }
    for (const e of entries) {
      if (e.podUid !== undefined && set.byId.get(e.id) === e) set.byPod.add(e.podUid, e.id);
      if (due()) yield;
    }
    for (const e of entries) {
      if (set.byId.get(e.id) === e) set.byKey.add(e.key, e.id);
      if (due()) yield;
    }
    return set;
  }

  add(e: CurrentEntry): void {
    // A write keeps the entry's row on the server, so what the rolling scan saw of it stands.
    e.scanned ??= this.byId.get(e.id)?.scanned;
    this.remove(e.id);
    this.byId.set(e.id, e);
    if (e.podUid !== undefined) this.byPod.add(e.podUid, e.id);
    this.byKey.add(e.key, e.id);
  }

  remove(id: string): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.byId.delete(id);
    if (old.podUid !== undefined) this.byPod.remove(old.podUid, id);
    this.byKey.remove(old.key, id);
  }
}

/**
 * Reads a full list against the entries held. While every listed entry has
 * the revision held, nothing is built (an idle resync at 100,000 entries
 * costs lookups, not new maps); from the first difference on, each entry is
 * converted unless it is a held entry SPIRE still holds as it is, which is
 * reused so that it keeps sharing its spec with the declaration that wrote
 * it, and at the end a new set of entries is built from them. Its loops are
 * Steps (entries/time-slices.ts), which live mode runs with the event loop
 * turning, pod passes recording writes meanwhile (CurrentState's journal).
 */
class ListMerge {
  readonly listed: CurrentEntry[] = [];
  // An entry listed so far was not held at its revision: the list builds a new set.
  private differs = false;

  constructor(private readonly held: Entries) {}

  *take(page: readonly EntryOut[]): Steps<void> {
    const due = sliceCounter();
    for (const raw of page) {
      const known = this.held.byId.get(raw.id);
      const sameRevision = known !== undefined && known.revision === raw.revision_number;
      if (!sameRevision) this.differs = true;
      if (!this.differs) this.listed.push(known!);
      else {
        const entry = sameRevision || (known && holds(raw, known.spec)) ? known! : fromSpire(raw);
        // A held entry SPIRE still holds as it is takes SPIRE's revision (true whether or not this list completes).
        entry.revision = raw.revision_number;
        this.listed.push(entry);
      }
      if (due()) yield;
    }
  }

  /**
   * The new entries; whether they differ from those held (anything but
   * revisions); and whether they are a new set with indexes built afresh
   * (the held set is kept when every entry listed is held at its revision).
   */
  *finish(): Steps<{ entries: Entries; changed: boolean; built: boolean }> {
    const sameCount = this.listed.length === this.held.byId.size;
    if (!this.differs && sameCount) return { entries: this.held, changed: false, built: false };
    const changed = !sameCount || (yield* this.anyNotHeld());
    return { entries: yield* Entries.of(this.listed), changed, built: true };
  }

  private *anyNotHeld(): Steps<boolean> {
    const due = sliceCounter();
    for (const e of this.listed) {
      if (this.held.byId.get(e.id) !== e) return true;
      if (due()) yield;
    }
    return false;
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
  /**
   * Writes recorded while a list is in progress, replayed onto the listed
   * entries: the list may have read a page before or after each of them.
   * (Pod passes go on while a full pass lists; see live mode.)
   */
  private journal: { plan: Plan; applied: ApplyResult }[] | undefined;
  /** Set when a write recorded during the list left the state uncertain: the list does not make it certain. */
  private uncertainDuringList = false;
  /**
   * Changes whenever the entries held change: a write recorded, or a list
   * that found anything (other than a revision) not as held. Equal versions
   * mean equal entries, which lets a resync that finds nothing changed skip
   * planning (see runEntryPass).
   */
  version = 0;
  /**
   * Lists that built a new set of entries and indexes (one add per entry)
   * rather than keeping the one held: what a list costs beyond its lookups.
   */
  indexBuilds = 0;
  /** Full lists installed: a rolling scan (entries/drift-scan.ts) starts over after one. */
  lists = 0;
  // Passes whose writes are on their way (see whileSending, writeMark).
  private sendingWrites = 0;

  /**
   * `sliceMs`: read each page and install the list in stretches of about this
   * many milliseconds, the event loop turning between them (live mode: pod
   * passes go on meanwhile, their writes journaled); without it, each page
   * and the install run in one synchronous step.
   */
  constructor(
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
    private readonly sliceMs?: number,
  ) {}

  needsList(): boolean {
    return this.uncertain || this.now() - this.listedAt >= this.maxAgeMs;
  }

  /**
   * Whether every write since the last list is known to have landed as
   * recorded. An older state that is certain still plans a few pods soundly
   * (it misses only what others changed, which the next list finds); an
   * uncertain one may not hold an entry we wrote.
   */
  isCertain(): boolean {
    return !this.uncertain;
  }

  /** The entries tied to these pods, and every entry holding one of these keys. */
  related(podUids: Iterable<string>, keys: Iterable<string>): CurrentEntry[] {
    const ids = new Set<string>();
    const add = (id: string) => ids.add(id);
    for (const uid of podUids) this.state.byPod.forEach(uid, add);
    for (const key of keys) this.state.byKey.forEach(key, add);
    return [...ids].map((id) => this.state.byId.get(id)!);
  }

  /**
   * Whether an entry under this key (the same SPIFFE ID, parent ID and
   * selectors) is held, ours or not: SPIRE serves such an entry whoever made
   * it. One index lookup (the registration clock asks it per pod settled).
   */
  holdsKey(key: string): boolean {
    return this.state.byKey.has(key);
  }

  /**
   * Converts a full list, reusing what is unchanged since the last one, and
   * replaces the state with it. Page by page, so the raw pages are garbage as
   * soon as they are converted rather than all held at once, which would
   * be a second copy of the whole list at the peak. A list that fails
   * part way leaves the state as it was.
   */
  async replaceFromPages(pages: AsyncIterable<readonly EntryOut[]>): Promise<CurrentEntry[]> {
    const outer = this.journal === undefined;
    if (outer) {
      this.journal = [];
      this.uncertainDuringList = false;
    }
    try {
      const merge = new ListMerge(this.state);
      for await (const page of pages) await runSteps(merge.take(page), this.sliceMs);
      // Awaited here: the journal stays on until the install is done.
      return await this.install(merge);
    } finally {
      if (outer) this.journal = undefined;
    }
  }

  private async install(merge: ListMerge): Promise<CurrentEntry[]> {
    const { entries, changed, built } = await runSteps(merge.finish(), this.sliceMs);
    // From here on in one step: the new set replaces the old one with every write journaled so far replayed onto it, and none in between.
    if (changed) this.version++;
    if (built) this.indexBuilds++;
    this.state = entries;
    this.lists++;
    this.listedAt = this.now();
    this.uncertain = this.uncertainDuringList;
    const journaled = this.journal ?? [];
    for (const { plan, applied } of journaled) applyRecord(this.state, plan, applied);
    // The entries handed back include what was written meanwhile, as the state does.
    return journaled.length === 0 ? merge.listed : this.values();
  }

  /** Entries held: what SPIRE's CountEntries answers while the state is right. */
  get size(): number {
    return this.state.byId.size;
  }

  /** The entry held under this ID. */
  get(id: string): CurrentEntry | undefined {
    return this.state.byId.get(id);
  }

  /** The entries held, without copying them (a write meanwhile may or may not show). */
  entries(): IterableIterator<CurrentEntry> {
    return this.state.byId.values();
  }

  values(): CurrentEntry[] {
    return [...this.state.byId.values()];
  }

  /** The state may not hold what SPIRE holds: the next pass lists. A list in progress may have read its pages before the cause, so it does not make the state certain either. */
  invalidate(): void {
    this.uncertain = true;
    if (this.journal) this.uncertainDuringList = true;
  }

  /** Due for a list now, as if it had aged past maxAgeMs: still certain (see isCertain). */
  expire(): void {
    this.listedAt = Number.NEGATIVE_INFINITY;
  }

  /**
   * Sends a pass's writes: while `send` runs, writeMark says a write of ours
   * may be landing. `send` resolves once their answers are in, before the
   * caller records them.
   */
  async whileSending<T>(send: () => Promise<T>): Promise<T> {
    this.sendingWrites++;
    try {
      return await send();
    } finally {
      this.sendingWrites--;
    }
  }

  /**
   * The state's version when no write of ours is on its way to SPIRE, else
   * undefined. Equal marks before and after reading SPIRE mean none of our
   * writes landed in between unrecorded: what was read differs from the
   * state only by what others did.
   */
  writeMark(): number | undefined {
    return this.sendingWrites === 0 ? this.version : undefined;
  }

  /** Applies what a pass wrote; an uncertain outcome forces a list on the next pass. */
  record(plan: Plan, applied: ApplyResult): void {
    // Only a refusal leaves our copy right (spire/errors.ts:rpcOutcome).
    if (applied.failures.some((f) => rpcOutcome(f.codeName) !== 'refused')) {
      this.uncertain = true;
      if (this.journal) this.uncertainDuringList = true;
    }
    if (plan.creates.length + plan.updates.length + plan.deletes.length > 0) this.version++;
    applyRecord(this.state, plan, applied);
    this.journal?.push({ plan, applied });
  }
}

/**
 * What a pass wrote, as it landed: creates, updates and deletes that did not
 * fail (or were held back). A create or update holds the revision SPIRE
 * answered it with when the answer showed the entry as sent (see
 * ApplyResult.revisions), so the next list finds it unchanged.
 */
function applyRecord(state: Entries, plan: Plan, applied: ApplyResult): void {
  const failed = new Set<string>();
  for (const f of applied.failures) failed.add(`${f.op}\u0000${f.id}`);
  const held = new Set(applied.heldBack.map((h) => h.id));
  const revision = (id: string) => applied.revisions?.get(id);
  for (const c of plan.creates) {
    // Under the ID SPIRE stored it with (an older server ignores the one we asked for).
    const id = applied.assigned.get(c.id) ?? c.id;
    if (!failed.has(`create\u0000${c.id}`)) state.add({ id, key: c.key, spec: c.spec, revision: revision(c.id), scanned: undefined, podUid: c.podUid });
  }
  for (const u of plan.updates) {
    if (!failed.has(`update\u0000${u.id}`)) state.add({ id: u.id, key: u.key, spec: u.spec, revision: revision(u.id), scanned: undefined, podUid: u.podUid });
  }
  for (const d of plan.deletes) {
    if (!held.has(d.id) && !failed.has(`delete\u0000${d.id}`)) state.remove(d.id);
  }
}
