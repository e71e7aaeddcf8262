/** Declared entries grouped by their key, and which declaration of each key wins (the rest are masked). */
import { comparePreference } from '../api/index.js';
import type { DeclaredEntry } from './model.js';
import { sliceCounter, type Steps } from './time-slices.js';

export interface KeyState {
  key: string;
  winner: DeclaredEntry;
  masked: readonly DeclaredEntry[];
}

// Nearly every key has one declaration: they share this instead of an empty array each.
const NONE: readonly DeclaredEntry[] = Object.freeze([]);

/** Groups declared entries by key and picks each key's preferred declaration, yielding between entries (entries/time-slices.ts). */
export function* groupDeclaredInSteps(declared: readonly DeclaredEntry[]): Steps<Map<string, KeyState>> {
  const due = sliceCounter();
  const out = new Map<string, KeyState>();
  const contested: KeyState[] = [];
  for (const d of declared) {
    const at = out.get(d.key);
    if (!at) out.set(d.key, { key: d.key, winner: d, masked: NONE });
    else if (at.masked === NONE) {
      at.masked = [d];
      contested.push(at);
    } else (at.masked as DeclaredEntry[]).push(d);
    if (due()) yield;
  }
  // In declaration order before sorting (a stable sort), so equal preferences keep the first declared.
  for (const at of contested) {
    const [winner, ...masked] = [at.winner, ...at.masked].sort((a, b) => comparePreference(a.owner, b.owner)) as [DeclaredEntry, ...DeclaredEntry[]];
    at.winner = winner;
    at.masked = masked;
  }
  return out;
}
