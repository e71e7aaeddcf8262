import type { EntrySpec } from './model.js';

/** Fields a SPIRE server may not store (older servers), found by the probe in unsupported.ts. */
export type OptionalField = 'jwtSvidTtl' | 'hint' | 'storeSvid';

export type ComparedField = 'x509SvidTtl' | 'jwtSvidTtl' | 'federatesWith' | 'admin' | 'downstream' | 'dnsNames' | 'hint' | 'storeSvid';

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  // The common cases (both empty, or the same order) without building sets: this runs per entry per pass.
  if (a.length === b.length && a.every((x, i) => x === b[i])) return true;
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The fields on which `current` differs from `declared`. federatesWith is a
 * set (SPIRE returns it in no particular order). dnsNames keep their order:
 * the first one becomes the SVID's common name, so a reorder is a change.
 * Fields the server does not support are skipped, or they would differ forever.
 */
export function changedFields(current: EntrySpec, declared: EntrySpec, unsupported: ReadonlySet<OptionalField> = new Set()): ComparedField[] {
  const out: ComparedField[] = [];
  if (current.x509SvidTtl !== declared.x509SvidTtl) out.push('x509SvidTtl');
  if (!unsupported.has('jwtSvidTtl') && current.jwtSvidTtl !== declared.jwtSvidTtl) out.push('jwtSvidTtl');
  if (!sameSet(current.federatesWith, declared.federatesWith)) out.push('federatesWith');
  if (current.admin !== declared.admin) out.push('admin');
  if (current.downstream !== declared.downstream) out.push('downstream');
  if (!sameList(current.dnsNames, declared.dnsNames)) out.push('dnsNames');
  if (!unsupported.has('hint') && current.hint !== declared.hint) out.push('hint');
  if (!unsupported.has('storeSvid') && current.storeSvid !== declared.storeSvid) out.push('storeSvid');
  return out;
}
