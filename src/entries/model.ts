import { hash } from 'node:crypto';
import type { Entry, EntryMask, EntryOut } from '../spire/types.js';

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

export type OwnerKind = 'ClusterSPIFFEID' | 'ClusterStaticEntry' | 'ClusterFederatedTrustDomain';

/** The object that declared an entry: the unit that status and failures are counted against. */
export interface Owner {
  kind: OwnerKind;
  name: string;
  uid: string;
  creationTimestamp: string;
  deletionTimestamp?: string;
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
   * The revision SPIRE reported for the entry at the last list; undefined for
   * one written since (SPIRE bumped it). Kept on the entry (every literal
   * that makes one names it, so setting it adds no storage to the object)
   * rather than in a map of 100,000 IDs beside them.
   */
  revision?: string | undefined;
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
    x509SvidTtl: e.x509_svid_ttl,
    jwtSvidTtl: e.jwt_svid_ttl,
    federatesWith: e.federates_with,
    dnsNames: e.dns_names,
    admin: e.admin,
    downstream: e.downstream,
    storeSvid: e.store_svid,
    hint: e.hint,
  };
  const podUid = podUidOf(spec.selectors);
  return { id: e.id, key: entryKey(spec), spec, revision: e.revision_number, ...(podUid !== undefined ? { podUid } : {}) };
}

export function toSpire(spec: EntrySpec, id: string): Entry {
  return {
    id,
    spiffe_id: splitId(spec.spiffeId),
    parent_id: splitId(spec.parentId),
    selectors: spec.selectors,
    x509_svid_ttl: spec.x509SvidTtl,
    jwt_svid_ttl: spec.jwtSvidTtl,
    federates_with: spec.federatesWith,
    dns_names: spec.dnsNames,
    admin: spec.admin,
    downstream: spec.downstream,
    store_svid: spec.storeSvid,
    hint: spec.hint,
  };
}

/**
 * Updates write only the fields the controller manages. The key fields are
 * equal by construction, and fields we do not manage (expires_at,
 * additional_attributes) are left as whoever set them left them.
 */
export const UPDATE_MASK: EntryMask = {
  x509_svid_ttl: true,
  jwt_svid_ttl: true,
  federates_with: true,
  admin: true,
  downstream: true,
  dns_names: true,
  store_svid: true,
  hint: true,
};

/**
 * Writes ask SPIRE to echo back only each entry's ID: the engine reads the
 * per-item status and nothing else, and a full echo of every entry costs the
 * server encoding and us decoding (an all-false mask returns `{id}`).
 */
export const ID_ONLY_MASK: EntryMask = {};

export function isJoinTokenEntry(spec: EntrySpec): boolean {
  const path = splitId(spec.parentId).path;
  return path.startsWith('/spire/agent/join_token/') && spec.selectors.some((s) => s.type === 'spiffe_id');
}
