import { classifyEntry, type CurrentEntry, type EntryPassResult, objectName, type Ownership, type Owner } from '../entries/index.js';
import { changedValues, type EntryView, FIELD_NAMES } from './report.js';

/**
 * Where a declared entry stands on the SPIRE server, as the plan sees it:
 * - registered: on the server as declared (with its ID);
 * - outdated: on the server, but some fields differ; the next pass updates them;
 * - waiting: not on the server yet; the next pass creates it;
 * - conflict: an entry outside entryScope holds it, so it is never created;
 * - masked: another object declares the same entry and wins (`by`); `winner` is where that entry stands;
 * - kept: on the server but not changed (policy create-only).
 */
export type SpireSide =
  | { state: 'registered'; id: string }
  | { state: 'outdated'; id: string; changed: (keyof EntryView)[]; old: Partial<EntryView>; new: Partial<EntryView> }
  | { state: 'waiting'; detail: string }
  | { state: 'conflict'; heldBy: string[] }
  | { state: 'masked'; by: string; winner: SpireSide }
  | { state: 'kept'; id: string; detail: string };

/** What a plan says about the entries of one key, indexed once for many look-ups. */
export class PlanIndex {
  private readonly creates = new Set<string>();
  private readonly updates = new Map<string, EntryPassResult['plan']['updates'][number]>();
  private readonly conflicts = new Map<string, string[]>();
  private readonly managedByKey = new Map<string, CurrentEntry>();
  private readonly kept = new Map<string, string>();
  private readonly deletes = new Map<string, string>();
  readonly omissions = new Map<string, string[]>();

  constructor(
    private readonly result: Pick<EntryPassResult, 'plan' | 'declared' | 'current'>,
    private readonly ownership: Ownership,
  ) {
    const { plan } = result;
    for (const c of plan.creates) this.creates.add(c.key);
    for (const u of plan.updates) this.updates.set(u.key, u);
    for (const c of plan.conflicts) this.conflicts.set(c.key, c.foreignIds);
    for (const k of plan.kept) this.kept.set(k.id, k.detail);
    for (const d of plan.deletes) this.deletes.set(d.id, d.reason);
    // Ours by ID, or adopted this pass (an entry whose ID does not say so, holding a key we declare).
    const adopted = new Set(plan.adopted);
    for (const e of result.current ?? []) {
      if ((classifyEntry(e, ownership) === 'managed' || adopted.has(e.id)) && !this.managedByKey.has(e.key)) this.managedByKey.set(e.key, e);
    }
    for (const o of result.declared.federationOmissions) this.omissions.set(`${o.owner.uid}\u0000${o.spiffeId}`, o.missing);
  }

  /** Where the entry `owner` declares under `key` stands. */
  side(key: string, owner: Owner): SpireSide {
    const winner = this.result.plan.keys.get(key)?.winner.owner;
    if (winner && winner.uid !== owner.uid) return { state: 'masked', by: objectName(winner), winner: this.side(key, winner) };
    const heldBy = this.conflicts.get(key);
    if (heldBy) return { state: 'conflict', heldBy };
    if (this.creates.has(key)) return { state: 'waiting', detail: 'not on the server yet: the next reconcile creates it' };
    const u = this.updates.get(key);
    if (u) return { state: 'outdated', id: u.id, changed: u.changed.map((f) => FIELD_NAMES[f]), ...changedValues(u.current, u.spec, u.changed) };
    const current = this.managedByKey.get(key);
    if (!current) return { state: 'waiting', detail: 'not on the server' };
    const kept = this.kept.get(current.id);
    return kept ? { state: 'kept', id: current.id, detail: kept } : { state: 'registered', id: current.id };
  }

  /** What happens to a current entry no declaration matched: deleted (why), kept (why), or left alone (outside entryScope). */
  fate(entry: CurrentEntry): { state: 'to-delete'; reason: string } | { state: 'kept'; detail: string } | { state: 'outside-scope' } | undefined {
    const reason = this.deletes.get(entry.id);
    if (reason) return { state: 'to-delete', reason };
    const kept = this.kept.get(entry.id);
    if (kept) return { state: 'kept', detail: kept };
    if (classifyEntry(entry, this.ownership) === 'foreign') return { state: 'outside-scope' };
    return undefined;
  }
}

/** One line for a table. */
export function describeSide(s: SpireSide): string {
  switch (s.state) {
    case 'registered':
      return `registered as ${s.id}`;
    case 'outdated':
      return `on the server as ${s.id}, but ${s.changed.map((f) => `${f} ${JSON.stringify(s.old[f])} -> ${JSON.stringify(s.new[f])}`).join(', ')}: the next reconcile updates it`;
    case 'waiting':
      return `waiting: ${s.detail}`;
    case 'conflict':
      return `conflict: held by ${s.heldBy.join(', ')} outside entryScope, so never created`;
    case 'masked':
      return `masked: ${s.by} declares the same entry and wins (${describeSide(s.winner)})`;
    case 'kept':
      return `kept as ${s.id}: ${s.detail}`;
  }
}

/** Whether the entry is on the server as declared (directly or through the object that masks it). */
export function isRegistered(s: SpireSide): boolean {
  return s.state === 'registered' || (s.state === 'masked' && isRegistered(s.winner));
}
