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
  masked: readonly DeclaredEntry[];
}

// Nearly every key has one declaration: they share this instead of an empty array each.
const NONE: readonly DeclaredEntry[] = Object.freeze([]);

/** Groups declared entries by key and picks each key's preferred declaration. */
export function groupDeclared(declared: readonly DeclaredEntry[]): Map<string, KeyState> {
  const out = new Map<string, KeyState>();
  const contested: KeyState[] = [];
  for (const d of declared) {
    const at = out.get(d.key);
    if (!at) out.set(d.key, { key: d.key, winner: d, masked: NONE });
    else if (at.masked === NONE) {
      at.masked = [d];
      contested.push(at);
    } else (at.masked as DeclaredEntry[]).push(d);
  }
  // In declaration order before sorting (a stable sort), so equal preferences keep the first declared.
  for (const at of contested) {
    const [winner, ...masked] = [at.winner, ...at.masked].sort((a, b) => comparePreference(a.owner, b.owner)) as [DeclaredEntry, ...DeclaredEntry[]];
    at.winner = winner;
    at.masked = masked;
  }
  return out;
}
