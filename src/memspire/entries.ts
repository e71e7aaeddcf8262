import { v4 as uuidv4 } from 'uuid';
import { formatSpiffeId, parseTrustDomain, type SpiffeId } from '../spiffe/index.js';
import type { EntryFilterOut, EntryMaskOut, EntryOut, Entry, SelectorOut } from '../spire/types.js';
import { dnsNameProblem } from '../spiffe/index.js';
import { checkId } from './ids.js';
import { Code, fail, ItemFailure, type ItemStatus, OK, RpcFailure, spireStatus } from './status.js';
import { type Page, RowTable } from './table.js';
import { errorMessage } from '../api/errors.js';

interface StoredSelector {
  type: string;
  value: string;
}

export interface StoredEntry {
  row: number;
  id: string;
  spiffeId: SpiffeId;
  parentId: SpiffeId;
  selectors: StoredSelector[];
  x509SvidTtl: number;
  jwtSvidTtl: number;
  federatesWith: string[];
  admin: boolean;
  downstream: boolean;
  storeSvid: boolean;
  expiresAt: string;
  dnsNames: string[];
  revision: number;
  createdAt: number;
  hint: string;
  attributes?: { disable_x509_svid_prefetch: boolean; jwt_svid_include_jti: boolean };
}

type MaskBits = Omit<EntryMaskOut, never>;

const ALL: MaskBits = {
  spiffe_id: true,
  parent_id: true,
  selectors: true,
  x509_svid_ttl: true,
  federates_with: true,
  admin: true,
  downstream: true,
  expires_at: true,
  dns_names: true,
  revision_number: true,
  store_svid: true,
  jwt_svid_ttl: true,
  hint: true,
  created_at: true,
  additional_attributes: true,
};

interface EntryResult {
  status: ItemStatus;
  entry?: Entry;
}

const CONVERT = 'failed to convert entry';
const CREATE = 'failed to create entry';
const UPDATE = 'failed to update entry';
const VALIDATION = 'datastore-validation: ';
const INVALID = 'datastore-validation: invalid registration entry: ';
const ID_CHARS = /^[A-Za-z0-9._-]*$/;

const selectorKey = (s: StoredSelector) => `${s.type}\u0000${s.value}`;

/** Parent, SPIFFE ID and the *set* of selectors: what SPIRE calls a similar entry. */
function similarityKey(parent: SpiffeId, spiffe: SpiffeId, selectors: StoredSelector[]): string {
  const set = [...new Set(selectors.map(selectorKey))].sort();
  return `${formatSpiffeId(parent)}\u0001${formatSpiffeId(spiffe)}\u0001${set.join('\u0001')}`;
}

function hasAttributes(e: EntryOut): boolean {
  return e._additional_attributes === 'additional_attributes' || e.additional_attributes != null;
}

/** The additional attributes a write stores: none unless one of them is set. */
function storedAttributes(e: EntryOut): StoredEntry['attributes'] {
  const attrs = hasAttributes(e) ? e.additional_attributes : null;
  if (!attrs || !(attrs.disable_x509_svid_prefetch || attrs.jwt_svid_include_jti)) return undefined;
  return { disable_x509_svid_prefetch: attrs.disable_x509_svid_prefetch, jwt_svid_include_jti: attrs.jwt_svid_include_jti };
}

/** A write's answer for an error thrown while it was checked: its own status for a refusal (fail), INTERNAL for anything else. */
function failedWrite(err: unknown, what: typeof CREATE | typeof UPDATE): EntryResult {
  if (err instanceof ItemFailure) return { status: err.status };
  return { status: spireStatus(Code.INTERNAL, what, errorMessage(err)) };
}

/** The A-checks (spire-semantics §2.2), for the fields the mask selects, in order. */
function convert(e: EntryOut, mask: MaskBits, td: string) {
  const out: { parentId?: SpiffeId; spiffeId?: SpiffeId; federatesWith?: string[] } = {};
  if (mask.parent_id) {
    const r = checkId(e.parent_id, td, 'member');
    if ('problem' in r) fail(Code.INVALID_ARGUMENT, CONVERT, `invalid parent ID: ${r.problem}`);
    out.parentId = r.id;
  }
  if (mask.spiffe_id) {
    const r = checkId(e.spiffe_id, td, 'workload');
    if ('problem' in r) fail(Code.INVALID_ARGUMENT, CONVERT, `invalid spiffe ID: ${r.problem}`);
    out.spiffeId = r.id;
  }
  if (mask.dns_names) {
    for (const name of e.dns_names) {
      const problem = dnsNameProblem(name);
      if (problem) fail(Code.INVALID_ARGUMENT, CONVERT, `invalid DNS name: ${problem}`);
    }
  }
  if (mask.federates_with) {
    const tds: string[] = [];
    for (const name of e.federates_with) {
      try {
        tds.push(parseTrustDomain(name));
      } catch (err) {
        fail(Code.INVALID_ARGUMENT, CONVERT, `invalid federated trust domain: ${errorMessage(err)}`);
      }
    }
    out.federatesWith = [...new Set(tds)];
  }
  if (mask.selectors) {
    const problem = selectorsProblem(e.selectors);
    if (problem) fail(Code.INVALID_ARGUMENT, CONVERT, problem);
  }
  if (mask.hint && Buffer.byteLength(e.hint) > 1024) {
    fail(Code.INVALID_ARGUMENT, CONVERT, 'hint is too long, max length is 1024 characters');
  }
  return out;
}

function selectorsProblem(selectors: SelectorOut[]): string | undefined {
  if (selectors.length === 0) return 'selector list is empty';
  for (const s of selectors) {
    if (s.type === '') return 'missing selector type';
    if (s.type.includes(':')) return "selector type contains ':'";
    if (s.value === '') return 'missing selector value';
  }
  return undefined;
}

function duplicateProblem(selectors: StoredSelector[], dnsNames: string[]): string | undefined {
  if (new Set(selectors.map(selectorKey)).size !== selectors.length) {
    return 'datastore-sql: UNIQUE constraint failed: selectors.registered_entry_id, selectors.type, selectors.value';
  }
  if (new Set(dnsNames).size !== dnsNames.length) {
    return 'datastore-sql: UNIQUE constraint failed: dns_names.registered_entry_id, dns_names.value';
  }
  return undefined;
}

function storeSvidSelectorProblem(storeSvid: boolean, selectors: StoredSelector[]): string | undefined {
  if (storeSvid && new Set(selectors.map((s) => s.type)).size > 1) {
    return `${INVALID}selector types must be the same when store SVID is enabled`;
  }
  return undefined;
}

function ttlProblem(e: EntryOut, mask: MaskBits): string | undefined {
  if (mask.x509_svid_ttl && e.x509_svid_ttl < 0) return `${INVALID}X509SvidTtl is not set`;
  if (mask.jwt_svid_ttl && e.jwt_svid_ttl < 0) return `${INVALID}JwtSvidTtl is not set`;
  return undefined;
}

function copySelectors(selectors: SelectorOut[]): StoredSelector[] {
  return selectors.map((s) => ({ type: s.type, value: s.value }));
}

interface ParsedFilter {
  spiffeId?: string;
  parentId?: string;
  selectors?: { set: Set<string>; match: string };
  federatesWith?: { set: Set<string>; match: string };
  hint?: string;
  downstreamOnly: boolean;
}

function setMatch(entrySet: Set<string>, filterSet: Set<string>, match: string, requireOverlapForSubset: boolean): boolean {
  const inFilter = [...entrySet].filter((x) => filterSet.has(x)).length;
  switch (match) {
    case 'MATCH_EXACT':
      return inFilter === entrySet.size && entrySet.size === filterSet.size;
    case 'MATCH_SUBSET':
      return inFilter === entrySet.size && (!requireOverlapForSubset || inFilter > 0);
    case 'MATCH_SUPERSET':
      return [...filterSet].every((x) => entrySet.has(x));
    case 'MATCH_ANY':
      return inFilter > 0;
    default:
      return false;
  }
}

interface EntryStoreOptions {
  trustDomain: string;
  hasBundle: (trustDomain: string) => boolean;
  now?: () => number;
  /** Fields this server drops on write, as SPIRE releases before they existed do. */
  droppedFields?: readonly DroppableField[];
  /** Generate every entry ID, as SPIRE before 1.8.0 did: a requested ID is neither checked nor kept. */
  ignoreRequestedIds?: boolean;
}

/** hint arrived in SPIRE 1.6.3, jwt_svid_ttl in 1.5.0, store_svid in 1.1.0. */
export type DroppableField = 'hint' | 'jwt_svid_ttl' | 'store_svid';

function dropFields(e: StoredEntry, dropped: ReadonlySet<DroppableField>): StoredEntry {
  if (dropped.size === 0) return e;
  return {
    ...e,
    // Absent, not undefined: each is spread over the stored entry, whose value an absent key keeps.
    ...(dropped.has('hint') ? { hint: '' } : {}),
    ...(dropped.has('jwt_svid_ttl') ? { jwtSvidTtl: 0 } : {}),
    ...(dropped.has('store_svid') ? { storeSvid: false } : {}),
  };
}

/** Registration entries with SPIRE's validation, similarity and paging rules. */
export class EntryStore {
  private readonly table = new RowTable<StoredEntry>();
  private readonly byId = new Map<string, StoredEntry>();
  private readonly bySimilarity = new Map<string, Set<StoredEntry>>();
  private readonly td: string;
  private readonly hasBundle: (td: string) => boolean;
  private readonly now: () => number;
  private readonly dropped: ReadonlySet<DroppableField>;
  private readonly ignoreRequestedIds: boolean;

  constructor(opts: EntryStoreOptions) {
    this.td = opts.trustDomain;
    this.hasBundle = opts.hasBundle;
    this.now = opts.now ?? Date.now;
    this.dropped = new Set(opts.droppedFields ?? []);
    this.ignoreRequestedIds = opts.ignoreRequestedIds ?? false;
  }

  get size(): number {
    return this.table.size;
  }

  get(id: string): StoredEntry | undefined {
    return this.byId.get(id);
  }

  all(): StoredEntry[] {
    return [...this.table.scan()].map(([, e]) => e);
  }

  /** Entries that federate with a trust domain (for bundle delete RESTRICT). */
  federatingWith(td: string): number {
    let n = 0;
    for (const [, e] of this.table.scan()) if (e.federatesWith.includes(td)) n++;
    return n;
  }

  /** Bundle delete in DELETE mode: the entries federating with it go too. */
  deleteFederatingWith(td: string): void {
    for (const [, e] of this.table.scan()) if (e.federatesWith.includes(td)) this.delete(e.id);
  }

  /** Bundle delete in DISSOCIATE mode: the trust domain leaves every entry's federates_with. */
  dissociate(td: string): void {
    for (const [, e] of this.table.scan()) if (e.federatesWith.includes(td)) e.federatesWith = e.federatesWith.filter((x) => x !== td);
  }

  private missingBundle(tds: string[]): string | undefined {
    return tds.find((td) => !this.hasBundle(td));
  }

  private index(e: StoredEntry): void {
    const key = similarityKey(e.parentId, e.spiffeId, e.selectors);
    let set = this.bySimilarity.get(key);
    if (!set) this.bySimilarity.set(key, (set = new Set()));
    set.add(e);
  }

  private unindex(e: StoredEntry): void {
    const key = similarityKey(e.parentId, e.spiffeId, e.selectors);
    const set = this.bySimilarity.get(key);
    set?.delete(e);
    if (set?.size === 0) this.bySimilarity.delete(key);
  }

  private firstSimilar(parent: SpiffeId, spiffe: SpiffeId, selectors: StoredSelector[]): StoredEntry | undefined {
    const set = this.bySimilarity.get(similarityKey(parent, spiffe, selectors));
    let first: StoredEntry | undefined;
    for (const e of set ?? []) if (!first || e.row < first.row) first = e;
    return first;
  }

  /** `seeding` keeps the requested ID even when the server ignores requested IDs: a seed is a past state, IDs included. */
  create(request: EntryOut, outputMask: EntryMaskOut | null, seeding = false): EntryResult {
    // Before 1.8.0 the ID field of a create was never read.
    const input = this.ignoreRequestedIds && !seeding ? { ...request, id: '' } : request;
    try {
      const conv = convert(input, ALL, this.td);
      const parentId = conv.parentId as SpiffeId;
      const spiffeId = conv.spiffeId as SpiffeId;
      const federatesWith = conv.federatesWith ?? [];
      const selectors = copySelectors(input.selectors);
      const attributes = storedAttributes(input);
      if (input.store_svid && attributes?.disable_x509_svid_prefetch) {
        fail(Code.INVALID_ARGUMENT, CREATE, `${VALIDATION}specifying cache behaviour is incompatible with storable SVIDs`);
      }
      const d2 = storeSvidSelectorProblem(input.store_svid, selectors);
      if (d2) fail(Code.INVALID_ARGUMENT, CREATE, d2);
      if (Buffer.byteLength(input.id) > 255) fail(Code.INVALID_ARGUMENT, CREATE, `${INVALID}entry ID too long`);
      if (!ID_CHARS.test(input.id)) fail(Code.INVALID_ARGUMENT, CREATE, `${INVALID}entry ID contains invalid characters`);
      const ttl = ttlProblem(input, ALL);
      if (ttl) fail(Code.INVALID_ARGUMENT, CREATE, ttl);

      // Similarity wins over everything below, including a free custom ID (spire-semantics §2.3).
      const similar = this.firstSimilar(parentId, spiffeId, selectors);
      if (similar) {
        return { status: { code: Code.ALREADY_EXISTS, message: 'similar entry already exists' }, entry: toProto(similar, outputMask) };
      }
      if (input.id !== '' && this.byId.has(input.id)) {
        fail(Code.ALREADY_EXISTS, CREATE, 'datastore-sql: UNIQUE constraint failed: registered_entries.entry_id');
      }
      const missing = this.missingBundle(federatesWith);
      if (missing !== undefined) fail(Code.INTERNAL, CREATE, `unable to find federated bundle "spiffe://${missing}"`);
      const dup = duplicateProblem(selectors, input.dns_names);
      if (dup) fail(Code.ALREADY_EXISTS, CREATE, dup);

      const stored: StoredEntry = {
        row: 0,
        id: input.id === '' ? uuidv4() : input.id,
        spiffeId,
        parentId,
        selectors,
        x509SvidTtl: input.x509_svid_ttl,
        jwtSvidTtl: input.jwt_svid_ttl,
        federatesWith,
        admin: input.admin,
        downstream: input.downstream,
        storeSvid: input.store_svid,
        expiresAt: String(input.expires_at ?? '0'),
        dnsNames: [...input.dns_names],
        revision: 0,
        createdAt: Math.round(this.now() / 1000),
        hint: input.hint,
        attributes,
      };
      return this.store(stored, outputMask);
    } catch (err) {
      return failedWrite(err, CREATE);
    }
  }

  update(input: EntryOut, inputMask: EntryMaskOut | null, outputMask: EntryMaskOut | null): EntryResult {
    const mask = inputMask ?? ALL;
    try {
      const conv = convert(input, mask, this.td);
      const ttl = ttlProblem(input, mask);
      if (ttl) fail(Code.INVALID_ARGUMENT, UPDATE, ttl);
      const existing = this.byId.get(input.id);
      if (!existing) fail(Code.NOT_FOUND, UPDATE);
      const selectors = mask.selectors ? copySelectors(input.selectors) : existing.selectors;
      const dnsNames = mask.dns_names ? [...input.dns_names] : existing.dnsNames;
      const storeSvid = mask.store_svid ? input.store_svid : existing.storeSvid;
      if (mask.selectors) {
        const d2 = storeSvidSelectorProblem(storeSvid, selectors);
        if (d2) fail(Code.INVALID_ARGUMENT, UPDATE, d2);
      }
      const dup = duplicateProblem(mask.selectors ? selectors : [], mask.dns_names ? dnsNames : []);
      if (dup) fail(Code.ALREADY_EXISTS, UPDATE, dup);
      if (conv.federatesWith) {
        const missing = this.missingBundle(conv.federatesWith);
        if (missing !== undefined) fail(Code.INTERNAL, UPDATE, `unable to find federated bundle "spiffe://${missing}"`);
      }

      const updated: StoredEntry = {
        ...existing,
        spiffeId: conv.spiffeId ?? existing.spiffeId,
        parentId: conv.parentId ?? existing.parentId,
        selectors,
        x509SvidTtl: mask.x509_svid_ttl ? input.x509_svid_ttl : existing.x509SvidTtl,
        jwtSvidTtl: mask.jwt_svid_ttl ? input.jwt_svid_ttl : existing.jwtSvidTtl,
        federatesWith: conv.federatesWith ?? existing.federatesWith,
        admin: mask.admin ? input.admin : existing.admin,
        downstream: mask.downstream ? input.downstream : existing.downstream,
        storeSvid,
        expiresAt: mask.expires_at ? String(input.expires_at ?? '0') : existing.expiresAt,
        dnsNames,
        hint: mask.hint ? input.hint : existing.hint,
        revision: existing.revision + 1,
      };
      if (mask.additional_attributes) {
        delete updated.attributes;
        const attributes = storedAttributes(input);
        if (attributes) updated.attributes = attributes;
      }
      return this.store(updated, outputMask, existing);
    } catch (err) {
      return failedWrite(err, UPDATE);
    }
  }

  /** Stores a created entry, or an updated one in place of `replaced`, less the fields this server drops, and answers with it. */
  private store(entry: StoredEntry, outputMask: EntryMaskOut | null, replaced?: StoredEntry): EntryResult {
    Object.assign(entry, dropFields(entry, this.dropped));
    if (replaced) {
      this.unindex(replaced);
      this.table.replace(replaced.row, entry);
    } else {
      entry.row = this.table.insert(entry);
    }
    this.byId.set(entry.id, entry);
    this.index(entry);
    return { status: OK, entry: writtenToProto(entry, outputMask) };
  }

  delete(id: string): ItemStatus {
    if (id === '') return { code: Code.INVALID_ARGUMENT, message: 'missing entry ID' };
    const existing = this.byId.get(id);
    if (!existing) return { code: Code.NOT_FOUND, message: 'entry not found' };
    this.unindex(existing);
    this.table.delete(existing.row);
    this.byId.delete(id);
    return OK;
  }

  list(filter: EntryFilterOut | null, pageSize: number, pageToken: string): Page<StoredEntry> {
    const f = this.parseFilter(filter);
    const { pre, post } = compileFilter(f);
    return this.table.page(pageSize, pageToken, 'entries', pre, post);
  }

  count(filter: EntryFilterOut | null): number {
    // Unfiltered, SPIRE counts the table's rows without reading them (SELECT COUNT(*)).
    if (!filter || Object.values(filter).every((v) => v === null || v === undefined)) return this.table.size;
    return this.list(filter, 0, '').items.length;
  }

  private parseFilter(filter: EntryFilterOut | null): ParsedFilter {
    const out: ParsedFilter = { downstreamOnly: false };
    if (!filter) return out;
    if (filter.by_spiffe_id) {
      const r = checkId(filter.by_spiffe_id, this.td, 'workload');
      if ('problem' in r) throw new RpcFailure(Code.INVALID_ARGUMENT, `malformed SPIFFE ID filter: ${r.problem}`);
      out.spiffeId = formatSpiffeId(r.id);
    }
    if (filter.by_parent_id) {
      const r = checkId(filter.by_parent_id, this.td, 'member');
      if ('problem' in r) throw new RpcFailure(Code.INVALID_ARGUMENT, `malformed parent ID filter: ${r.problem}`);
      out.parentId = formatSpiffeId(r.id);
    }
    if (filter.by_selectors) {
      const sels = filter.by_selectors.selectors;
      if (sels.length === 0) throw new RpcFailure(Code.INVALID_ARGUMENT, 'malformed selectors filter: empty selector set');
      const problem = selectorsProblem(sels);
      if (problem) throw new RpcFailure(Code.INVALID_ARGUMENT, `malformed selectors filter: ${problem}`);
      out.selectors = { set: new Set(sels.map(selectorKey)), match: filter.by_selectors.match };
    }
    if (filter.by_federates_with) {
      const tds = filter.by_federates_with.trust_domains;
      if (tds.length === 0) {
        throw new RpcFailure(Code.INVALID_ARGUMENT, 'malformed federates with filter: empty trust domain set');
      }
      const set = new Set<string>();
      for (const td of tds) {
        try {
          set.add(parseTrustDomain(td));
        } catch (err) {
          throw new RpcFailure(Code.INVALID_ARGUMENT, `malformed federates with filter: ${errorMessage(err)}`);
        }
      }
      out.federatesWith = { set, match: filter.by_federates_with.match };
    }
    if (filter.by_hint && filter.by_hint.value !== '') out.hint = filter.by_hint.value;
    if (filter.by_downstream?.value === true) out.downstreamOnly = true;
    return out;
  }
}

/**
 * Splits a filter into what SPIRE's SQL applies before LIMIT and what it
 * applies after reading a page (EXACT and SUBSET selector matches).
 */
function compileFilter(f: ParsedFilter): { pre: (e: StoredEntry) => boolean; post?: (e: StoredEntry) => boolean } {
  const selectorPost = f.selectors && (f.selectors.match === 'MATCH_EXACT' || f.selectors.match === 'MATCH_SUBSET');
  const pre = (e: StoredEntry): boolean => {
    if (f.spiffeId !== undefined && formatSpiffeId(e.spiffeId) !== f.spiffeId) return false;
    if (f.parentId !== undefined && formatSpiffeId(e.parentId) !== f.parentId) return false;
    if (f.hint !== undefined && e.hint !== f.hint) return false;
    if (f.downstreamOnly && !e.downstream) return false;
    if (f.federatesWith) {
      if (e.federatesWith.length === 0) return false;
      if (!setMatch(new Set(e.federatesWith), f.federatesWith.set, f.federatesWith.match, true)) return false;
    }
    if (f.selectors) {
      const entrySet = new Set(e.selectors.map(selectorKey));
      // Candidates for a post-filtered match share at least one selector with the filter.
      if (selectorPost) return setMatch(entrySet, f.selectors.set, 'MATCH_ANY', false);
      return setMatch(entrySet, f.selectors.set, f.selectors.match, false);
    }
    return true;
  };
  if (!selectorPost || !f.selectors) return { pre };
  const sel = f.selectors;
  return { pre, post: (e) => setMatch(new Set(e.selectors.map(selectorKey)), sel.set, sel.match, false) };
}

/** Renders a stored entry as the API returns it, honouring an output mask. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * An entry as a successful create or update answers it: SPIRE reads the new row back with
 * its selectors and DNS names in the order of the sqlite indexes on them, sorted by
 * (type, value) and by value, while GetEntry and ListEntries keep the order they were
 * written in (seen on SPIRE v1.15.3).
 */
function writtenToProto(e: StoredEntry, mask: EntryMaskOut | null): Entry {
  const sorted: StoredEntry = {
    ...e,
    selectors: [...e.selectors].sort((a, b) => byBytes(a.type, b.type) || byBytes(a.value, b.value)),
    dnsNames: [...e.dnsNames].sort(byBytes),
  };
  return toProto(sorted, mask);
}

export function toProto(e: StoredEntry, mask: EntryMaskOut | null): Entry {
  const m = mask ?? ALL;
  const out: Entry = { id: e.id };
  if (m.spiffe_id) out.spiffe_id = { trust_domain: e.spiffeId.trustDomain, path: e.spiffeId.path };
  if (m.parent_id) out.parent_id = { trust_domain: e.parentId.trustDomain, path: e.parentId.path };
  if (m.selectors) out.selectors = e.selectors.map((s) => ({ ...s }));
  if (m.x509_svid_ttl) out.x509_svid_ttl = e.x509SvidTtl;
  if (m.jwt_svid_ttl) out.jwt_svid_ttl = e.jwtSvidTtl;
  if (m.federates_with) out.federates_with = [...e.federatesWith];
  if (m.admin) out.admin = e.admin;
  if (m.downstream) out.downstream = e.downstream;
  if (m.expires_at) out.expires_at = e.expiresAt;
  if (m.dns_names) out.dns_names = [...e.dnsNames];
  if (m.revision_number) out.revision_number = String(e.revision);
  if (m.store_svid) out.store_svid = e.storeSvid;
  if (m.hint) out.hint = e.hint;
  if (m.created_at) out.created_at = String(e.createdAt);
  if (m.additional_attributes && e.attributes) out.additional_attributes = { ...e.attributes };
  return out;
}
