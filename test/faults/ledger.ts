/**
 * The fault suite's bookkeeping: what SPIRE held before a fault, what it
 * holds after, and the promises every scenario must keep. An entry that
 * must survive the fault is protected: entry IDs are never reused (new ones
 * are `scm-` + a UUID), so a protected ID missing afterwards was deleted,
 * even if something with the same SPIFFE ID took its place. Foreign entries
 * (IDs outside the controller's prefix) are seeded at the start and compared
 * field by field at the end.
 */
import type { MemorySpireServer } from '../../src/memspire/index.js';
import type { StoredEntry } from '../../src/memspire/entries.js';

export interface FaultReport {
  scenario: string;
  /** Entries on the server when the fault started, and when the scenario ended. */
  entriesBefore: number;
  entriesAfter: number;
  /** Protected entries deleted (must be 0). */
  wrongDeletes: number;
  /** Foreign entries changed or deleted (must be 0). */
  foreignTouched: number;
  /** Entries beyond the first with the same SPIFFE ID and selector set (must be 0). */
  duplicates: number;
  /** From the fault (or its end) until the expected state held. */
  convergeMs: number;
}

const TD = 'example.org';

const FOREIGN = [
  { id: 'operator-made-1', path: '/hand/made/one', selector: 'unix:uid:501' },
  { id: 'operator-made-2', path: '/hand/made/two', selector: 'unix:uid:502' },
];

function identity(e: StoredEntry): string {
  const selectors = e.selectors.map((s) => `${s.type}:${s.value}`).sort();
  return `${e.spiffeId.trustDomain}${e.spiffeId.path}\u0000${selectors.join('\u0001')}`;
}

export class FaultLedger {
  private readonly protectedIds = new Set<string>();
  private readonly foreign = new Map<string, string>();
  private before = 0;
  private started = 0;
  private convergedAt: number | undefined;

  constructor(
    readonly scenario: string,
    private readonly spire: MemorySpireServer,
  ) {}

  /** Entries an operator made by hand (IDs without the controller's prefix): nothing may touch them. */
  seedForeign(): void {
    this.spire.seed({
      entries: FOREIGN.map((f) => {
        const [type, ...value] = f.selector.split(':');
        return {
          id: f.id,
          spiffe_id: { trust_domain: TD, path: f.path },
          parent_id: { trust_domain: TD, path: '/spire/agent/hand' },
          selectors: [{ type: type!, value: value.join(':') }],
        };
      }),
    });
    for (const f of FOREIGN) this.foreign.set(f.id, JSON.stringify(this.spire.entries.get(f.id)));
  }

  /** The fault starts now: counts what is there, and protects the entries `keep` picks (default: all). */
  start(keep: (e: StoredEntry) => boolean = () => true): void {
    const all = this.spire.entries.all();
    this.before = all.length;
    for (const e of all) if (keep(e)) this.protectedIds.add(e.id);
    this.started = Date.now();
  }

  /** Protects these entries from now on as well. */
  protect(ids: Iterable<string>): void {
    for (const id of ids) this.protectedIds.add(id);
  }

  /** Entries that may now go (their replacement exists): no longer counted as wrong deletes. */
  release(ids: Iterable<string>): void {
    for (const id of ids) this.protectedIds.delete(id);
  }

  /** Convergence is timed from now (e.g. from the end of the fault, or from the fix). */
  clockFrom(): void {
    this.started = Date.now();
    this.convergedAt = undefined;
  }

  /** The expected state holds now. */
  converged(): void {
    this.convergedAt ??= Date.now();
  }

  report(): FaultReport {
    const all = this.spire.entries.all();
    const ids = new Set(all.map((e) => e.id));
    const seen = new Map<string, number>();
    for (const e of all) seen.set(identity(e), (seen.get(identity(e)) ?? 0) + 1);
    const report: FaultReport = {
      scenario: this.scenario,
      entriesBefore: this.before,
      entriesAfter: all.length,
      wrongDeletes: [...this.protectedIds].filter((id) => !ids.has(id)).length,
      foreignTouched: [...this.foreign].filter(([id, json]) => JSON.stringify(this.spire.entries.get(id)) !== json).length,
      duplicates: [...seen.values()].reduce((n, c) => n + c - 1, 0),
      convergeMs: (this.convergedAt ?? Date.now()) - this.started,
    };
    // One line per scenario, in the test output: the figures docs/reliability.md quotes.
    console.log(`fault scenario: ${JSON.stringify(report)}`);
    return report;
  }
}

/** The three promises every scenario keeps, as one assertion (the counts are in the message when it fails). */
export function expectPromisesKept(r: FaultReport): { wrongDeletes: number; foreignTouched: number; duplicates: number } {
  return { wrongDeletes: r.wrongDeletes, foreignTouched: r.foreignTouched, duplicates: r.duplicates };
}

export const PROMISES_KEPT = { wrongDeletes: 0, foreignTouched: 0, duplicates: 0 };
