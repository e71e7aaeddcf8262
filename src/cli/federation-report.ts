import type { CurrentRelationship, DeclaredRelationship, FederationPassResult, Profile, TrustBundle } from '../federation/index.js';

export interface RelationshipView {
  trustDomain: string;
  bundleEndpointURL: string;
  bundleEndpointProfile: { type: string; endpointSPIFFEID?: string } | null;
  /** What the bundle holds, not its bytes. */
  trustDomainBundle?: { x509Authorities: number; jwtAuthorities: number; sequenceNumber: number };
}

function profileView(p: Profile | undefined): RelationshipView['bundleEndpointProfile'] {
  if (!p) return null;
  return p.type === 'https_web' ? { type: 'https_web' } : { type: 'https_spiffe', endpointSPIFFEID: p.endpointSpiffeId };
}

function bundleView(b: TrustBundle | undefined): RelationshipView['trustDomainBundle'] | undefined {
  return b && { x509Authorities: b.x509Authorities.length, jwtAuthorities: b.jwtAuthorities.length, sequenceNumber: b.sequenceNumber };
}

export function relationshipView(r: DeclaredRelationship | CurrentRelationship): RelationshipView {
  const bundle = bundleView(r.bundle);
  return { trustDomain: r.trustDomain, bundleEndpointURL: r.bundleEndpointUrl, bundleEndpointProfile: profileView(r.profile), trustDomainBundle: bundle };
}

/** The `federation` part of `plan --output json`. */
export function federationJson(f: FederationPassResult): object {
  return {
    create: f.plan.creates.map(relationshipView),
    update: f.plan.updates.map((u) => ({ relationship: relationshipView(u.relationship), changed: u.changed })),
    delete: f.plan.deletes.map(relationshipView),
    conflicts: f.plan.conflicts.map((c) => ({ object: `ClusterFederatedTrustDomain/${c.owner.name}`, trustDomain: c.trustDomain, heldBy: `ClusterFederatedTrustDomain/${c.heldBy.name}` })),
    invalid: f.plan.invalid.map((i) => ({ object: `ClusterFederatedTrustDomain/${i.owner.name}`, problems: i.problems.map((p) => `${p.field}: ${p.message}`) })),
    kept: f.plan.kept,
    failed: f.applied ? Object.fromEntries(f.applied.failed) : undefined,
  };
}
