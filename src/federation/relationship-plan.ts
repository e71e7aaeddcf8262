import type { ClusterFederatedTrustDomain } from '../api/index.js';
import { comparePreference, type FieldProblem, isOurClass, type Owner } from '../api/index.js';
import { bundleNeedsWrite } from './bundle.js';
import type { CurrentRelationship, DeclaredRelationship, Profile } from './model.js';
import { parseFederatedTrustDomain } from './parse.js';

type RelationshipField = 'bundleEndpointURL' | 'bundleEndpointProfile' | 'trustDomainBundle';

export interface FederationPlan {
  creates: DeclaredRelationship[];
  updates: { relationship: DeclaredRelationship; current: CurrentRelationship; changed: RelationshipField[] }[];
  deletes: CurrentRelationship[];
  /** A later object naming a trust domain an older one already declares. */
  conflicts: { owner: Owner; trustDomain: string; heldBy: Owner }[];
  invalid: { owner: Owner; problems: FieldProblem[] }[];
  /** Relationships a sync would otherwise delete or change, and why they stay. */
  kept: { trustDomain: string; detail: string }[];
  /** The winning declaration per trust domain (for status). */
  winners: DeclaredRelationship[];
}

export interface FederationPlanInput {
  objects: readonly ClusterFederatedTrustDomain[];
  current: readonly CurrentRelationship[];
  ownTrustDomain: string;
  className: string;
  watchClassless: boolean;
  /**
   * `all`: every relationship on the server is ours (upstream's behaviour,
   * which also deletes relationships set in server.conf). `prefixed`: only
   * those this process knows it set, since a relationship has no ID to carry
   * a prefix.
   */
  scope: 'prefixed' | 'all';
  knownOurs: ReadonlySet<string>;
  policy: 'sync' | 'upsert-only' | 'create-only';
}

function sameProfile(a: Profile | undefined, b: Profile): boolean {
  if (!a || a.type !== b.type) return false;
  return a.type === 'https_web' || a.endpointSpiffeId === (b as { endpointSpiffeId: string }).endpointSpiffeId;
}

/** ClusterFederatedTrustDomains against SPIRE's federation relationships, keyed by trust domain. */
export function planFederation(input: FederationPlanInput): FederationPlan {
  const plan: FederationPlan = { creates: [], updates: [], deletes: [], conflicts: [], invalid: [], kept: [], winners: [] };
  const valid: DeclaredRelationship[] = [];
  for (const obj of input.objects) {
    if (!isOurClass(obj.spec?.className, input)) continue;
    const r = parseFederatedTrustDomain(obj, input.ownTrustDomain);
    if ('problems' in r) {
      plan.invalid.push({ owner: { kind: 'ClusterFederatedTrustDomain', name: obj.metadata.name, uid: obj.metadata.uid, creationTimestamp: obj.metadata.creationTimestamp ?? '' }, problems: r.problems });
    } else {
      valid.push(r.relationship);
    }
  }
  valid.sort((a, b) => comparePreference(a.owner, b.owner));
  const declared = new Map<string, DeclaredRelationship>();
  for (const r of valid) {
    const held = declared.get(r.trustDomain);
    if (held) plan.conflicts.push({ owner: r.owner, trustDomain: r.trustDomain, heldBy: held.owner });
    else declared.set(r.trustDomain, r);
  }
  plan.winners = [...declared.values()];

  const current = new Map(input.current.map((c) => [c.trustDomain, c]));
  for (const r of declared.values()) {
    const cur = current.get(r.trustDomain);
    if (!cur) {
      plan.creates.push(r);
      continue;
    }
    const changed: RelationshipField[] = [];
    if (cur.bundleEndpointUrl !== r.bundleEndpointUrl) changed.push('bundleEndpointURL');
    if (!sameProfile(cur.profile, r.profile)) changed.push('bundleEndpointProfile');
    if (r.bundle && bundleNeedsWrite(r.bundle, cur.bundle)) changed.push('trustDomainBundle');
    if (changed.length === 0) continue;
    if (input.policy === 'create-only') plan.kept.push({ trustDomain: r.trustDomain, detail: `policy create-only never updates (${changed.join(', ')} differ)` });
    else plan.updates.push({ relationship: r, current: cur, changed });
  }
  for (const cur of input.current) {
    if (declared.has(cur.trustDomain)) continue;
    let why: string | undefined;
    if (input.scope === 'prefixed' && !input.knownOurs.has(cur.trustDomain)) why = 'not known to be set by this controller (entryScope: prefixed)';
    else if (plan.invalid.length > 0) why = `a ClusterFederatedTrustDomain is invalid, so what it declares is unknown (${plan.invalid[0]!.owner.name})`;
    else if (input.policy !== 'sync') why = `policy ${input.policy} never deletes`;
    if (why) plan.kept.push({ trustDomain: cur.trustDomain, detail: why });
    else plan.deletes.push(cur);
  }
  return plan;
}
