import type { DeclaredEntry, Owner } from './model.js';

/**
 * Preference among objects declaring the same entry: the oldest object wins;
 * then one not being deleted; between two being deleted, the later deletion;
 * then the lowest UID. The same order as spire-controller-manager, so a
 * migration does not flip which object owns an entry.
 */
export function comparePreference(a: Owner, b: Owner): number {
  const created = time(a.creationTimestamp) - time(b.creationTimestamp);
  if (created !== 0) return created;
  const da = a.deletionTimestamp;
  const db = b.deletionTimestamp;
  if (da === undefined && db !== undefined) return -1;
  if (da !== undefined && db === undefined) return 1;
  if (da !== undefined && db !== undefined) {
    const deleted = time(db) - time(da);
    if (deleted !== 0) return deleted;
  }
  if (a.uid !== b.uid) return a.uid < b.uid ? -1 : 1;
  return 0;
}

function time(ts: string | undefined): number {
  const t = ts ? Date.parse(ts) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

export interface KeyState {
  key: string;
  winner: DeclaredEntry;
  masked: DeclaredEntry[];
}

/** Groups declared entries by key and picks each key's preferred declaration. */
export function groupDeclared(declared: readonly DeclaredEntry[]): Map<string, KeyState> {
  const byKey = new Map<string, DeclaredEntry[]>();
  for (const d of declared) {
    const list = byKey.get(d.key);
    if (list) list.push(d);
    else byKey.set(d.key, [d]);
  }
  const out = new Map<string, KeyState>();
  for (const [key, list] of byKey) {
    if (list.length > 1) list.sort((a, b) => comparePreference(a.owner, b.owner));
    const [winner, ...masked] = list as [DeclaredEntry, ...DeclaredEntry[]];
    out.set(key, { key, winner, masked });
  }
  return out;
}
