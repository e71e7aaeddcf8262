import type { EntryMask, EntryOut } from '../spire/types.js';
import type { EntrySpec } from './model.js';

/**
 * The entry fields the controller compares and updates, once: their name in
 * EntrySpec, on the wire, in `plan` output, how two values compare, and
 * whether an older SPIRE server may not store it (found by the probe in
 * unsupported.ts). Adding a SPIRE entry field is one row here (and its
 * place in EntrySpec and the plan's EntryView, which the compiler asks for).
 * The identity fields (SPIFFE ID, parent ID, selectors) are the entry's key,
 * not compared: see entryKey.
 */
export const ENTRY_FIELDS = [
  { field: 'x509SvidTtl', wire: 'x509_svid_ttl', view: 'x509SVIDTTL', compare: 'value', optional: false },
  { field: 'jwtSvidTtl', wire: 'jwt_svid_ttl', view: 'jwtSVIDTTL', compare: 'value', optional: true },
  // A set: SPIRE returns it in no particular order.
  { field: 'federatesWith', wire: 'federates_with', view: 'federatesWith', compare: 'set', optional: false },
  { field: 'admin', wire: 'admin', view: 'admin', compare: 'value', optional: false },
  { field: 'downstream', wire: 'downstream', view: 'downstream', compare: 'value', optional: false },
  // In order: the first one becomes the SVID's common name, so a reorder is a change.
  { field: 'dnsNames', wire: 'dns_names', view: 'dnsNames', compare: 'list', optional: false },
  { field: 'hint', wire: 'hint', view: 'hint', compare: 'value', optional: true },
  { field: 'storeSvid', wire: 'store_svid', view: 'storeSVID', compare: 'value', optional: true },
] as const satisfies readonly { field: keyof EntrySpec; wire: keyof EntryOut & keyof EntryMask; view: string; compare: 'value' | 'set' | 'list'; optional: boolean }[];

type Row = (typeof ENTRY_FIELDS)[number];

export type ComparedField = Row['field'];

/** Fields a SPIRE server may not store (older servers), found by the probe in unsupported.ts. */
export type OptionalField = Extract<Row, { optional: true }>['field'];

/** Each compared field's name in `plan` output. */
export const FIELD_VIEW_NAMES = Object.fromEntries(ENTRY_FIELDS.map((r) => [r.field, r.view])) as { [R in Row as R['field']]: R['view'] };

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

/** Whether two values of a compared field are equal, as that field compares (its row's `compare`). */
export function sameField(compare: Row['compare'], a: unknown, b: unknown): boolean {
  return compare === 'set' ? sameSet(a as string[], b as string[]) : compare === 'list' ? sameList(a as string[], b as string[]) : a === b;
}

const NONE: ReadonlySet<OptionalField> = new Set();

/**
 * The fields on which `current` differs from `declared`, in ENTRY_FIELDS
 * order. Fields the server does not support are skipped, or they would
 * differ forever.
 */
export function changedFields(current: EntrySpec, declared: EntrySpec, unsupported: ReadonlySet<OptionalField> = NONE): ComparedField[] {
  const out: ComparedField[] = [];
  for (const r of ENTRY_FIELDS) {
    if (r.optional && unsupported.has(r.field)) continue;
    if (!sameField(r.compare, current[r.field], declared[r.field])) out.push(r.field);
  }
  return out;
}

/** The compared fields of an entry as SPIRE sent it. */
export function comparedFromSpire(e: EntryOut): Pick<EntrySpec, ComparedField> {
  const out: Record<string, unknown> = {};
  for (const r of ENTRY_FIELDS) out[r.field] = e[r.wire];
  return out as Pick<EntrySpec, ComparedField>;
}

/** The compared fields of a spec as SPIRE takes them. */
export function comparedToSpire(spec: EntrySpec): { [R in Row as R['wire']]: EntrySpec[R['field']] } {
  const out: Record<string, unknown> = {};
  for (const r of ENTRY_FIELDS) out[r.wire] = spec[r.field];
  return out as { [R in Row as R['wire']]: EntrySpec[R['field']] };
}

/**
 * Updates write only the fields the controller manages. The key fields are
 * equal by construction, and fields we do not manage (expires_at,
 * additional_attributes) are left as whoever set them left them.
 */
export const UPDATE_MASK: EntryMask = Object.fromEntries(ENTRY_FIELDS.map((r) => [r.wire, true]));
