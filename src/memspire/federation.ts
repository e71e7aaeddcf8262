import { parseSpiffeId, parseTrustDomain } from '../spiffe/index.js';
import type { FederationRelationship, FederationRelationshipMaskOut, FederationRelationshipOut } from '../spire/types.js';
import { type BundleStore, bundleToProto, convertBundle, type StoredBundle } from './bundles.js';
import { Code, fail, ItemFailure, type ItemStatus, OK } from './status.js';
import { type Page, RowTable } from './table.js';
import { errorMessage } from '../api/errors.js';

type StoredProfile = { kind: 'https_web' } | { kind: 'https_spiffe'; endpointSpiffeId: string };

interface StoredRelationship {
  trustDomain: string;
  bundleEndpointUrl: string;
  profile: StoredProfile;
}

interface Converted extends StoredRelationship {
  bundle?: StoredBundle;
}

interface RelationshipResult {
  status: ItemStatus;
  relationship?: FederationRelationship;
}

const CONVERT = 'failed to convert federation relationship';

/**
 * The part of Go's url.Parse that SPIRE's checks depend on: the scheme, user
 * info and host, plus the two parse failures a controller can plausibly send
 * (control characters, no scheme). Other malformed URLs (bad escapes, bad
 * ports) are accepted here where Go would refuse them; the controller
 * validates URLs itself before sending. Returns the URL with its scheme
 * lowercased, as Go re-serialises it.
 */
function checkBundleEndpointUrl(raw: string): string {
  // JSON quoting matches Go's %q for the characters that can reach this message.
  const quoted = JSON.stringify(raw);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) {
    fail(Code.INVALID_ARGUMENT, CONVERT, `failed to parse bundle endpoint URL: parse ${quoted}: net/url: invalid control character in URL`);
  }
  if (raw.startsWith(':')) {
    fail(Code.INVALID_ARGUMENT, CONVERT, `failed to parse bundle endpoint URL: parse ${quoted}: missing protocol scheme`);
  }
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(raw);
  const scheme = m?.[1]?.toLowerCase() ?? '';
  const rest = m?.[2] ?? raw;
  if (scheme !== 'https') fail(Code.INVALID_ARGUMENT, CONVERT, 'bundle endpoint URL must use the https scheme');
  let authority = '';
  if (rest.startsWith('//')) authority = /^\/\/([^/?#]*)/.exec(rest)?.[1] ?? '';
  const at = authority.lastIndexOf('@');
  const host = at === -1 ? authority : authority.slice(at + 1);
  if (host === '') fail(Code.INVALID_ARGUMENT, CONVERT, 'bundle endpoint URL must specify the host');
  if (at !== -1) fail(Code.INVALID_ARGUMENT, CONVERT, 'bundle endpoint URL must not contain user info');
  return `${scheme}:${rest}`;
}

/** Conversion shared by create and update (spire-semantics §3.2); throws ItemFailure. */
function convert(fr: FederationRelationshipOut): Converted {
  let trustDomain: string;
  try {
    trustDomain = parseTrustDomain(fr.trust_domain);
  } catch (err) {
    return fail(Code.INVALID_ARGUMENT, CONVERT, `failed to parse trust domain: ${errorMessage(err)}`);
  }
  const bundleEndpointUrl = checkBundleEndpointUrl(fr.bundle_endpoint_url);
  let profile: StoredProfile;
  if (fr.bundle_endpoint_profile === 'https_web') {
    profile = { kind: 'https_web' };
  } else if (fr.bundle_endpoint_profile === 'https_spiffe') {
    const endpoint = fr.https_spiffe?.endpoint_spiffe_id ?? '';
    try {
      parseSpiffeId(endpoint);
    } catch (err) {
      return fail(Code.INVALID_ARGUMENT, CONVERT, `failed to parse endpoint SPIFFE ID: ${errorMessage(err)}`);
    }
    profile = { kind: 'https_spiffe', endpointSpiffeId: endpoint };
  } else {
    return fail(Code.INVALID_ARGUMENT, CONVERT, 'unsupported bundle endpoint profile type: <nil>');
  }
  const out: Converted = { trustDomain, bundleEndpointUrl, profile };
  if (fr.trust_domain_bundle) {
    const sent = fr.trust_domain_bundle.trust_domain;
    let bundleTd: string;
    try {
      bundleTd = parseTrustDomain(sent);
      out.bundle = convertBundle(fr.trust_domain_bundle, bundleTd);
    } catch (err) {
      return fail(Code.INVALID_ARGUMENT, CONVERT, `failed to parse bundle: ${errorMessage(err)}`);
    }
    if (bundleTd !== trustDomain) {
      fail(
        Code.INVALID_ARGUMENT,
        CONVERT,
        `trust domain bundle ("${sent}") must match the trust domain of the federation relationship ("${trustDomain}")`,
      );
    }
  }
  return out;
}

function toProto(fr: StoredRelationship, bundle: StoredBundle | undefined, mask: FederationRelationshipMaskOut | null): FederationRelationship {
  const out: FederationRelationship = { trust_domain: fr.trustDomain };
  if (!mask || mask.bundle_endpoint_url) out.bundle_endpoint_url = fr.bundleEndpointUrl;
  if (!mask || mask.bundle_endpoint_profile) {
    if (fr.profile.kind === 'https_web') out.https_web = {};
    else out.https_spiffe = { endpoint_spiffe_id: fr.profile.endpointSpiffeId };
  }
  if (bundle && (!mask || mask.trust_domain_bundle)) out.trust_domain_bundle = bundleToProto(bundle, null);
  return out;
}

/** Federation relationships, at most one per trust domain, beside the bundle store. */
export class RelationshipStore {
  private readonly table = new RowTable<StoredRelationship>();
  private readonly byTd = new Map<string, { row: number; fr: StoredRelationship }>();

  constructor(
    private readonly ownTrustDomain: string,
    private readonly bundles: BundleStore,
  ) {}

  get size(): number {
    return this.table.size;
  }

  create(input: FederationRelationshipOut, mask: FederationRelationshipMaskOut | null): RelationshipResult {
    try {
      const conv = convert(input);
      if (conv.trustDomain === this.ownTrustDomain) {
        fail(Code.INVALID_ARGUMENT, 'unable to create federation relationship for server trust domain');
      }
      if (this.byTd.has(conv.trustDomain)) {
        fail(
          Code.INTERNAL,
          'failed to create federation relationship',
          'datastore-sql: UNIQUE constraint failed: federated_trust_domains.trust_domain',
        );
      }
      const fr: StoredRelationship = { trustDomain: conv.trustDomain, bundleEndpointUrl: conv.bundleEndpointUrl, profile: conv.profile };
      this.byTd.set(fr.trustDomain, { row: this.table.insert(fr), fr });
      if (conv.bundle) this.bundles.put(conv.bundle);
      // Create echoes the request: a bundle stored earlier is not read back here.
      return { status: OK, relationship: toProto(fr, conv.bundle, mask) };
    } catch (err) {
      if (err instanceof ItemFailure) return { status: err.status };
      throw err;
    }
  }

  update(
    input: FederationRelationshipOut,
    inputMask: FederationRelationshipMaskOut | null,
    outputMask: FederationRelationshipMaskOut | null,
  ): RelationshipResult {
    try {
      const conv = convert(input);
      const current = this.byTd.get(conv.trustDomain);
      if (!current) {
        fail(Code.INTERNAL, 'failed to update federation relationship', 'unable to fetch federation relationship: record not found');
      }
      const m = inputMask ?? { bundle_endpoint_url: true, bundle_endpoint_profile: true, trust_domain_bundle: true };
      const fr: StoredRelationship = {
        trustDomain: current.fr.trustDomain,
        bundleEndpointUrl: m.bundle_endpoint_url ? conv.bundleEndpointUrl : current.fr.bundleEndpointUrl,
        profile: m.bundle_endpoint_profile ? conv.profile : current.fr.profile,
      };
      this.table.replace(current.row, fr);
      current.fr = fr;
      if (m.trust_domain_bundle && conv.bundle) this.bundles.put(conv.bundle);
      return { status: OK, relationship: toProto(fr, this.bundles.get(fr.trustDomain), outputMask) };
    } catch (err) {
      if (err instanceof ItemFailure) return { status: err.status };
      throw err;
    }
  }

  delete(raw: string): { status: ItemStatus; trust_domain: string } {
    if (raw === '') return { status: { code: Code.INVALID_ARGUMENT, message: 'missing trust domain' }, trust_domain: '' };
    let td: string;
    try {
      td = parseTrustDomain(raw);
    } catch (err) {
      return { status: { code: Code.INVALID_ARGUMENT, message: `failed to parse trust domain: ${errorMessage(err)}` }, trust_domain: raw };
    }
    const current = this.byTd.get(td);
    if (!current) return { status: { code: Code.NOT_FOUND, message: 'federation relationship not found' }, trust_domain: td };
    this.table.delete(current.row);
    this.byTd.delete(td);
    return { status: OK, trust_domain: td };
  }

  get(td: string, mask: FederationRelationshipMaskOut | null): FederationRelationship | undefined {
    const current = this.byTd.get(td);
    return current && toProto(current.fr, this.bundles.get(td), mask);
  }

  list(pageSize: number, token: string, mask: FederationRelationshipMaskOut | null): Page<FederationRelationship> {
    const page = this.table.page(pageSize, token, 'federation relationships', () => true);
    return { items: page.items.map((fr) => toProto(fr, this.bundles.get(fr.trustDomain), mask)), nextPageToken: page.nextPageToken };
  }
}
