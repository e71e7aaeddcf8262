import { type CurrentRelationship, type DeclaredRelationship, describeInvalidTrustDomain, describeTrustDomainConflict, type FederationPassResult, type Profile, type TrustBundle } from '../federation/index.js';

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
  return { trustDomain: r.trustDomain, bundleEndpointURL: r.bundleEndpointUrl, bundleEndpointProfile: profileView(r.profile), ...(bundle ? { trustDomainBundle: bundle } : {}) };
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
    ...(f.applied ? { failed: Object.fromEntries(f.applied.failed) } : {}),
  };
}

const line = (r: RelationshipView) =>
  `${r.trustDomain}  ${r.bundleEndpointURL}  ${r.bundleEndpointProfile?.type ?? 'no profile'}${r.bundleEndpointProfile?.endpointSPIFFEID ? ` (${r.bundleEndpointProfile.endpointSPIFFEID})` : ''}${r.trustDomainBundle ? `  bundle: ${r.trustDomainBundle.x509Authorities} X.509, ${r.trustDomainBundle.jwtAuthorities} JWT, sequence ${r.trustDomainBundle.sequenceNumber}` : ''}`;

/** The federation sections of the table output. */
export function federationTable(f: FederationPassResult): string {
  const out: string[] = [];
  const p = f.plan;
  out.push('', `Federation relationships: create ${p.creates.length}, update ${p.updates.length}, delete ${p.deletes.length}`);
  for (const c of p.creates) out.push(`  + ${line(relationshipView(c))}  [ClusterFederatedTrustDomain/${c.owner.name}]`);
  for (const u of p.updates) out.push(`  ~ ${u.relationship.trustDomain}: ${u.changed.join(', ')}  [ClusterFederatedTrustDomain/${u.relationship.owner.name}]`);
  for (const d of p.deletes) out.push(`  - ${line(relationshipView(d))}`);
  for (const c of p.conflicts) out.push(`  ! ClusterFederatedTrustDomain/${c.owner.name}: ${describeTrustDomainConflict(c)}`);
  for (const i of p.invalid) out.push(`  ! ClusterFederatedTrustDomain/${i.owner.name}: ${describeInvalidTrustDomain(i)}`);
  for (const k of p.kept) out.push(`  = ${k.trustDomain}: ${k.detail}`);
  for (const [td, error] of f.applied?.failed ?? []) out.push(`  ! ${td}: ${error}`);
  return out.join('\n');
}
