import type { EntryOut } from '../spire/index.js';
import type { CurrentState } from './current-state.js';
import type { CurrentEntry } from './model.js';
import { holds } from './spire-holds.js';
import { runSteps, sliceCounter, type Steps } from './time-slices.js';

/** What a drift check calls on SPIRE: CountEntries and one ListEntries page. */
export interface DriftScanSpire {
  countEntries(): Promise<number>;
  entryPage(token: string): Promise<{ entries: EntryOut[]; next: string }>;
}

/** What one check found: `drift` says why the state is no longer SPIRE's, undefined when nothing was found. */
export interface DriftCheck {
  drift: string | undefined;
  /** ListEntries calls it made. */
  pages: number;
  /** Entries those pages held. */
  listed: number;
  /** It ended a whole cycle: every entry held at the cycle's start was looked at since. */
  cycleEnded: boolean;
}

/**
 * Why a listed page is not what the state holds, or undefined; each entry the
 * state holds as listed is marked as seen in this cycle. An entry at a new
 * revision that still says what is held takes that revision, as a full list
 * does (CurrentState's ListMerge).
 */
export function pageDrift(page: readonly EntryOut[], held: (id: string) => CurrentEntry | undefined, cycle: number): string | undefined {
  for (const raw of page) {
    const known = held(raw.id);
    if (!known) return `entry ${raw.id} is on the server but not held`;
    if (known.revision !== raw.revision_number) {
      if (!holds(raw, known.spec)) return `entry ${raw.id} was changed on the server`;
      known.revision = raw.revision_number;
    }
    known.scanned = cycle;
  }
  return undefined;
}

/** The first entry held that this cycle has not seen, if any: one gone from the server (or written after the cycle's last page). */
export function* unseenInCycle(entries: Iterable<CurrentEntry>, cycle: number): Steps<CurrentEntry | undefined> {
  const due = sliceCounter();
  for (const e of entries) {
    if (e.scanned !== cycle) return e;
    if (due()) yield;
  }
  return undefined;
}

/**
 * The safety net against what others do to SPIRE's entries, in work that
 * does not grow with them. Each check (one per gcInterval in live mode):
 * 1. CountEntries against the number held: SPIRE restarted empty, entries
 *    deleted or created behind our back are found at once.
 * 2. The next `pagesPerCheck` pages of a walk over every entry, its page
 *    token carried from check to check. Each listed entry is compared with
 *    the one held (revision, else every compared field): one changed or
 *    unknown is drift.
 * 3. When the walk reaches its end, every entry held that it did not list is
 *    gone from the server: drift too.
 * SPIRE's page tokens are row IDs, ascending, never reused, kept by updates
 * (spire-semantics §1.4): a walk resumed later lists every row after its
 * token as it is then, so an entry that stays on the server is listed once
 * per cycle however long the cycle takes, and one created meanwhile has a
 * row past every other and is listed before the cycle ends.
 *
 * What was read while a write of ours was landing (CurrentState.writeMark)
 * may differ by that write: a count is then left to the walk, and a page
 * that differs is read again at the next check.
 *
 * Drift is only reported: the caller lists every entry and plans from that,
 * as a full resync does, so nothing is written from a partial view and no
 * entry is deleted because a check found it missing. A full list starts a
 * new cycle (it compared everything); so does drift.
 */
export class DriftScan {
  private token = '';
  private cycle = 0;
  // The state's lists when this cycle began: a list since then starts a new one.
  private listsAtStart = -1;

  constructor(
    private readonly state: CurrentState,
    private readonly pagesPerCheck: number,
    private readonly sliceMs?: number,
  ) {}

  async check(spire: DriftScanSpire): Promise<DriftCheck> {
    if (this.listsAtStart !== this.state.lists) this.startCycle();
    const found: DriftCheck = { drift: undefined, pages: 0, listed: 0, cycleEnded: false };
    let mark = this.state.writeMark();
    const held = this.state.size;
    const count = await spire.countEntries();
    // Counted while a write of ours was landing: the numbers may differ by it, so the walk alone decides this time.
    const settled = () => mark !== undefined && mark === this.state.writeMark();
    if (count !== held && settled()) return this.drifted(found, `SPIRE holds ${count} entries, ${held} expected`);
    const get = (id: string) => this.state.get(id);
    while (found.pages < this.pagesPerCheck) {
      mark = this.state.writeMark();
      const { entries, next } = await spire.entryPage(this.token);
      found.pages++;
      found.listed += entries.length;
      const drift = pageDrift(entries, get, this.cycle);
      // A difference read while a write of ours was landing may be that write: the page is read again next time.
      if (drift && !settled()) return found;
      if (drift) return this.drifted(found, drift);
      // The walk's end: an empty page (spire-semantics §1.4), or a server that ends it early.
      if (next === '' || entries.length === 0) {
        found.cycleEnded = true;
        const unseen = await runSteps(unseenInCycle(this.state.entries(), this.cycle), this.sliceMs);
        this.startCycle();
        if (unseen) return { ...found, drift: `entry ${unseen.id} is held but no longer on the server` };
        return found;
      }
      this.token = next;
    }
    return found;
  }

  private drifted(found: DriftCheck, why: string): DriftCheck {
    this.startCycle();
    return { ...found, drift: why };
  }

  private startCycle(): void {
    this.token = '';
    this.cycle++;
    this.listsAtStart = this.state.lists;
  }
}
