import { type Bundle, type FederationRelationship, type FederationRelationshipOut, rpcOutcome, type SpireClient } from '../spire/index.js';
import type { CurrentRelationship, DeclaredRelationship, TrustBundle } from './model.js';
import type { FederationPlan } from './relationship-plan.js';
import { describeInvalidTrustDomain, describeTrustDomainConflict } from './problems.js';

export function fromSpire(fr: FederationRelationshipOut): CurrentRelationship {
  const b = fr.trust_domain_bundle;
  return {
    trustDomain: fr.trust_domain,
    bundleEndpointUrl: fr.bundle_endpoint_url,
    profile:
      fr.bundle_endpoint_profile === 'https_web'
        ? { type: 'https_web' }
        : fr.bundle_endpoint_profile === 'https_spiffe'
          ? { type: 'https_spiffe', endpointSpiffeId: fr.https_spiffe?.endpoint_spiffe_id ?? '' }
          : undefined,
    bundle: b
      ? {
          x509Authorities: b.x509_authorities.map((a) => a.asn1),
          jwtAuthorities: b.jwt_authorities.map((k) => ({ keyId: k.key_id, publicKey: k.public_key, expiresAt: Number(k.expires_at) })),
          sequenceNumber: Number(b.sequence_number),
          refreshHintSeconds: Number(b.refresh_hint),
        }
      : undefined,
  };
}

function bundleToSpire(trustDomain: string, b: TrustBundle): Bundle {
  return {
    trust_domain: trustDomain,
    x509_authorities: b.x509Authorities.map((asn1) => ({ asn1 })),
    jwt_authorities: b.jwtAuthorities.map((k) => ({ key_id: k.keyId, public_key: k.publicKey, expires_at: String(k.expiresAt) })),
    sequence_number: String(b.sequenceNumber),
    refresh_hint: String(b.refreshHintSeconds),
  };
}

function toSpire(r: DeclaredRelationship, withBundle: boolean): FederationRelationship {
  return {
    trust_domain: r.trustDomain,
    bundle_endpoint_url: r.bundleEndpointUrl,
    // Absent, not undefined: the profile is a proto oneof (one member set), and a
    // relationship without trust_domain_bundle leaves the server's bundle alone.
    ...(r.profile.type === 'https_web' ? { https_web: {} } : { https_spiffe: { endpoint_spiffe_id: r.profile.endpointSpiffeId } }),
    ...(withBundle && r.bundle ? { trust_domain_bundle: bundleToSpire(r.trustDomain, r.bundle) } : {}),
  };
}

export interface FederationApplyResult {
  /** Errors by trust domain. */
  failed: Map<string, string>;
  created: number;
  updated: number;
  deleted: number;
}

/**
 * Executes the plan: creates, updates (writing the bundle only when the
 * plan says so), then deletes. `ours` learns what we set and forgets what we
 * deleted, so that only those may be deleted later under entryScope prefixed.
 */
export async function applyFederation(plan: FederationPlan, spire: SpireClient, ours: Set<string>, signal?: AbortSignal): Promise<FederationApplyResult> {
  const result: FederationApplyResult = { failed: new Map(), created: 0, updated: 0, deleted: 0 };
  if (signal?.aborted) return result;
  if (plan.creates.length > 0) {
    const out = await spire.createFederationRelationships(plan.creates.map((r) => toSpire(r, true)));
    out.results.forEach((res, i) => {
      const td = plan.creates[i]!.trustDomain;
      if (res.status.ok) {
        result.created++;
        ours.add(td);
      } else result.failed.set(td, `${res.status.codeName}: ${res.status.message}`);
    });
  }
  for (const u of plan.updates) {
    if (signal?.aborted) break;
    // One call per relationship: the input mask (whether the bundle is written) differs per item.
    const withBundle = u.changed.includes('trustDomainBundle');
    const out = await spire.updateFederationRelationships([toSpire(u.relationship, withBundle)], {
      inputMask: { bundle_endpoint_url: true, bundle_endpoint_profile: true, trust_domain_bundle: withBundle },
    });
    const res = out.results[0]!;
    if (res.status.ok) {
      result.updated++;
      ours.add(u.relationship.trustDomain);
    } else result.failed.set(u.relationship.trustDomain, `${res.status.codeName}: ${res.status.message}`);
  }
  if (plan.deletes.length > 0 && !signal?.aborted) {
    const out = await spire.deleteFederationRelationships(plan.deletes.map((d) => d.trustDomain));
    out.results.forEach((res, i) => {
      const td = plan.deletes[i]!.trustDomain;
      if (res.status.ok || rpcOutcome(res.status.codeName, 'delete') === 'done') {
        result.deleted++;
        ours.delete(td);
      } else result.failed.set(td, `${res.status.codeName}: ${res.status.message}`);
    });
  }
  return result;
}

/** ClusterFederatedTrustDomain status (upstream writes none: its issue #171). */
export interface FederationStatus {
  /** The relationship is on the SPIRE server as declared. */
  set: boolean;
  /** SPIRE holds a bundle for the trust domain (fetched from the endpoint, or the declared one). */
  bundleAvailable: boolean;
  /** Why it is not set: invalid, a conflict, or the last SPIRE error. */
  lastError: string;
}

/** Without an apply result (a plan) it says what the status will be if the plan succeeds. */
export function federationStatus(plan: FederationPlan, applied: FederationApplyResult | undefined, bundles: ReadonlySet<string>): Record<string, FederationStatus> {
  const out: Record<string, FederationStatus> = {};
  for (const inv of plan.invalid) {
    out[inv.owner.name] = { set: false, bundleAvailable: false, lastError: describeInvalidTrustDomain(inv) };
  }
  for (const c of plan.conflicts) {
    out[c.owner.name] = { set: false, bundleAvailable: bundles.has(c.trustDomain), lastError: describeTrustDomainConflict(c) };
  }
  for (const w of plan.winners) {
    const error = applied?.failed.get(w.trustDomain);
    out[w.owner.name] = {
      set: !error,
      bundleAvailable: bundles.has(w.trustDomain) || (!error && w.bundle !== undefined),
      lastError: error ?? '',
    };
  }
  return out;
}
