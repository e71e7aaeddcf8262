import { hash } from 'node:crypto';
import type { Owner } from '../api/index.js';
import type { Entry, EntryOut } from '../spire/types.js';
import { comparedFromSpire, comparedToSpire } from './compare.js';

export type { Owner } from '../api/index.js';

export interface Selector {
  type: string;
  value: string;
}

/** What an entry says, in the form the engine compares and SPIRE stores. */
export interface EntrySpec {
  spiffeId: string;
  parentId: string;
  selectors: Selector[];
  x509SvidTtl: number;
  jwtSvidTtl: number;
  federatesWith: string[];
  dnsNames: string[];
  admin: boolean;
  downstream: boolean;
  storeSvid: boolean;
  hint: string;
}

export interface DeclaredEntry {
  key: string;
  spec: EntrySpec;
  owner: Owner;
  /** The pod this entry is for; absent for static entries. */
  podUid?: string;
}

export interface CurrentEntry {
  id: string;
  key: string;
  spec: EntrySpec;
  /** The pod named by a `k8s:pod-uid:<uid>` selector, if any. */
  podUid?: string;
  /**
   * The revision SPIRE reported for the entry: at the last list, or in its
   * answer to our write since; undefined when that answer did not show the
   * entry as sent (entries/apply.ts:storedAsSent). Kept on the entry (every literal
   * that makes one names it, so setting it adds no storage to the object)
   * rather than in a map of 100,000 IDs beside them.
   */
  revision?: string | undefined;
  /**
   * The cycle of the rolling drift scan (entries/drift-scan.ts) that last
   * listed the entry, or undefined. Named by every literal that makes an
   * entry, as `revision` is.
   */
  scanned?: number | undefined;
  /**
   * Dry runs only (plan, explain, which read it): when SPIRE created the
   * entry, in Unix seconds by its clock (SPIRE 1.6.3 and later report it;
   * absent when it answers 0). Live mode leaves it out: nothing there reads
   * it, and 100,000 entries would carry it.
   */
  createdAt?: number;
}

export const POD_UID_SELECTOR_PREFIX = 'pod-uid:';

function compareSelectors(a: Selector, b: Selector): number {
  if (a.type !== b.type) return a.type < b.type ? -1 : 1;
  if (a.value !== b.value) return a.value < b.value ? -1 : 1;
  return 0;
}

/**
 * SHA-256 over SPIFFE ID, parent ID and the sorted selectors. Unlike
 * upstream's key, the parts are separated by bytes that cannot occur in IDs
 * or selectors, so `A`+`BC` and `AB`+`C` never collide.
 */
export function entryKey(spec: Pick<EntrySpec, 'spiffeId' | 'parentId' | 'selectors'>): string {
  let selectors = spec.selectors;
  for (let i = 1; i < selectors.length; i++) {
    if (compareSelectors(selectors[i - 1]!, selectors[i]!) > 0) {
      selectors = [...selectors].sort(compareSelectors);
      break;
    }
  }
  // One string hashed at once: a Hash object fed part by part cost three times as much per entry.
  let text = `${spec.spiffeId}\u0000${spec.parentId}`;
  for (const s of selectors) text += `\u0000${s.type}\u0001${s.value}`;
  return hash('sha256', text, 'base64');
}

export function podUidOf(selectors: readonly Selector[]): string | undefined {
  const s = selectors.find((x) => x.type === 'k8s' && x.value.startsWith(POD_UID_SELECTOR_PREFIX));
  return s?.value.slice(POD_UID_SELECTOR_PREFIX.length);
}

function splitId(id: string): { trust_domain: string; path: string } {
  const rest = id.slice('spiffe://'.length);
  const slash = rest.indexOf('/');
  return slash === -1 ? { trust_domain: rest, path: '' } : { trust_domain: rest.slice(0, slash), path: rest.slice(slash) };
}

export function fromSpire(e: EntryOut): CurrentEntry {
  const spec: EntrySpec = {
    spiffeId: e.spiffe_id ? `spiffe://${e.spiffe_id.trust_domain}${e.spiffe_id.path}` : '',
    parentId: e.parent_id ? `spiffe://${e.parent_id.trust_domain}${e.parent_id.path}` : '',
    selectors: e.selectors.map((s) => ({ type: s.type, value: s.value })),
    ...comparedFromSpire(e),
  };
  const podUid = podUidOf(spec.selectors);
  return { id: e.id, key: entryKey(spec), spec, revision: e.revision_number, scanned: undefined, podUid };
}

/** fromSpire with the entry's creation time, for the dry runs that show it (CurrentEntry.createdAt). */
export function fromSpireWithCreation(e: EntryOut): CurrentEntry {
  const entry = fromSpire(e);
  const createdAt = Number(e.created_at);
  if (createdAt > 0) entry.createdAt = createdAt;
  return entry;
}

export function toSpire(spec: EntrySpec, id: string): Entry {
  return {
    id,
    spiffe_id: splitId(spec.spiffeId),
    parent_id: splitId(spec.parentId),
    selectors: spec.selectors,
    ...comparedToSpire(spec),
  };
}

export { UPDATE_MASK } from './compare.js';

export function isJoinTokenEntry(spec: EntrySpec): boolean {
  const path = splitId(spec.parentId).path;
  return path.startsWith('/spire/agent/join_token/') && spec.selectors.some((s) => s.type === 'spiffe_id');
}
