import type { EntryOut } from '../spire/index.js';
import { changedFields, comparedFromSpire } from './compare.js';
import type { EntrySpec } from './model.js';

// Compared in place: no string is built per entry.
function sameId(id: EntryOut['spiffe_id'], text: string): boolean {
  if (!id) return text === '';
  const td = id.trust_domain;
  return text.length === 9 + td.length + id.path.length && text.startsWith('spiffe://') && text.startsWith(td, 9) && text.endsWith(id.path);
}

function sameSelectors(a: EntryOut['selectors'], b: EntrySpec['selectors']): boolean {
  if (a.length !== b.length) return false;
  if (a.every((s, i) => s.type === b[i]!.type && s.value === b[i]!.value)) return true;
  const key = (s: { type: string; value: string }) => `${s.type}\u0000${s.value}`;
  const sorted = (xs: readonly { type: string; value: string }[]) => xs.map(key).sort().join('\u0001');
  return sorted(a) === sorted(b);
}

/**
 * Whether SPIRE's entry says what the held spec says: the ID, parent and
 * selectors (so the key too) and every compared field. Checked on the raw
 * entry, so that a resync that finds many revisions new to us (another
 * client's writes, ours whose answer was not recorded) does not convert and
 * hash 100,000 entries only to throw them away.
 */
export function holds(raw: EntryOut, spec: EntrySpec): boolean {
  return (
    sameId(raw.spiffe_id, spec.spiffeId) &&
    sameId(raw.parent_id, spec.parentId) &&
    sameSelectors(raw.selectors, spec.selectors) &&
    changedFields(spec, { ...spec, ...comparedFromSpire(raw) }).length === 0
  );
}
