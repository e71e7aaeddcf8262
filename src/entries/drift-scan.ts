import type { EntryMask, EntryOut } from '../spire/index.js';
import type { CurrentState } from './current-state.js';
import type { CurrentEntry } from './model.js';
import { runSteps, sliceCounter, type Steps } from './time-slices.js';

/** What a drift check calls on SPIRE: CountEntries and one ListEntries page. */
export interface DriftScanSpire {
  countEntries(): Promise<number>;
  entryPage(token: string, opts: { outputMask: EntryMask; pageSize: number }): Promise<{ entries: EntryOut[]; next: string }>;
}

/**
 * The walk reads each entry's ID and revision only (SPIRE always answers the
 * ID). SPIRE moves an entry's revision on every update, so an entry listed at
 * the revision held is as held, and an ID and a number decode in a fraction
 * of a whole entry's time.
 */
const REVISIONS_ONLY: EntryMask = { revision_number: true };

/**
 * Entries per page of the walk. A page of IDs and revisions is about 60
 * bytes an entry, so 1,000 are 60 KB; at 100,000 entries they took 150 CPU-ms
 * of the client to walk in pages of 1,000, 480 in pages of 200 (the calls'
 * own cost), against 700 to 1,050 for whole entries in pages of 200.
 */
export const DRIFT_SCAN_PAGE = 1000;

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
 * Why a page of IDs and revisions is not what the state holds, or undefined;
 * each entry held at the revision listed is marked as seen in this cycle. An
 * entry at another revision is drift even if an update left its fields as
 * they were: the full list that follows tells, and takes its revision.
 */
function pageDrift(page: readonly EntryOut[], held: (id: string) => CurrentEntry | undefined, cycle: number): string | undefined {
  for (const raw of page) {
    const known = held(raw.id);
    if (!known) return `entry ${raw.id} is on the server but not held`;
    if (known.revision !== raw.revision_number) return `entry ${raw.id} is at revision ${raw.revision_number} on the server, ${known.revision ?? 'unknown'} held`;
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
 * 2. The next pages of a walk over every entry, their IDs and revisions
 *    only, its page token carried from check to check. An entry listed at a
 *    revision other than the one held, or not held at all, is drift.
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

  private readonly pageSize: number;
  private readonly pagesPerCheck: number;
  private readonly sliceMs: number | undefined;

  /**
   * `entriesPerCheck`: how many entries each check lists at most, in whole
   * pages of `pageSize` (DRIFT_SCAN_PAGE); `sliceMs`: the end of a cycle looks
   * at the entries held in stretches of about this long (live mode).
   */
  constructor(
    private readonly state: CurrentState,
    opts: { entriesPerCheck: number; pageSize?: number; sliceMs?: number },
  ) {
    this.pageSize = opts.pageSize ?? DRIFT_SCAN_PAGE;
    this.pagesPerCheck = Math.max(1, Math.ceil(opts.entriesPerCheck / this.pageSize));
    this.sliceMs = opts.sliceMs;
  }

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
      const { entries, next } = await spire.entryPage(this.token, { outputMask: REVISIONS_ONLY, pageSize: this.pageSize });
      found.pages++;
      found.listed += entries.length;
      const drift = pageDrift(entries, get, this.cycle);
      // A difference read while a write of ours was landing may be that write: the page is read again next time.
      if (drift && !settled()) return found;
      if (drift) return this.drifted(found, drift);
      // The walk's end: a page short of the size asked. Unfiltered, SPIRE fills a page while rows
      // remain past the token (spire-semantics §1.4); the empty page ends a walk of whole pages.
      if (next === '' || entries.length < this.pageSize) {
        found.cycleEnded = true;
        const unseen = await runSteps(unseenInCycle(this.state.entries(), this.cycle), this.sliceMs);
        this.startCycle();
        // One of ours written since the page was read may be unseen: the next cycle looks again.
        if (unseen && settled()) return { ...found, drift: `entry ${unseen.id} is held but no longer on the server` };
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
