import type { ClusterFederatedTrustDomain, ControllerConfig } from '../api/index.js';
import type { SpireClient } from '../spire/index.js';
import { applyFederation, type FederationApplyResult, federationStatus, type FederationStatus, fromSpire } from './apply.js';
import { type FederationPlan, type FederationPlanInput, planFederation } from './relationship-plan.js';

/** What a federation pass takes from the controller config. */
type FederationSettings = Pick<FederationPlanInput, 'ownTrustDomain' | 'className' | 'watchClassless' | 'scope' | 'policy'>;

/** What runFederationPass takes besides the objects and the client. */
interface FederationPassOptions extends FederationSettings {
  /** The relationships this process set, carried between passes (see FederationPlanInput.scope); the pass adds and removes. */
  ours: Set<string>;
  dryRun?: boolean;
  signal?: AbortSignal;
}

/** The pass options a controller config implies (everything but the objects and what is ours). */
export function federationOptions(config: ControllerConfig): FederationSettings {
  return {
    ownTrustDomain: config.trustDomain,
    className: config.className,
    watchClassless: config.watchClassless,
    scope: config.entryScope,
    policy: config.policy,
  };
}

export interface FederationPassResult {
  plan: FederationPlan;
  applied?: FederationApplyResult;
  status: Record<string, FederationStatus>;
  /**
   * Trust domains SPIRE holds a bundle for after the pass, or would hold after
   * it for a dry run (federatesWith may name these): the entry pass that follows
   * takes them instead of listing the bundles again.
   */
  bundles: Set<string>;
}

/**
 * One federation reconcile: list relationships and federated bundles, plan,
 * and unless `dryRun`, apply. `ours` carries what this process set between
 * passes (see FederationPlanInput.scope).
 */
export async function runFederationPass(
  objects: readonly ClusterFederatedTrustDomain[],
  spire: SpireClient,
  opts: FederationPassOptions,
): Promise<FederationPassResult> {
  const current = (await spire.listFederationRelationships()).map(fromSpire);
  const bundles = new Set((await spire.listFederatedBundles()).map((b) => b.trust_domain));
  const plan = planFederation({ ...opts, objects, current, knownOurs: opts.ours });
  // A dry run counts the bundles it would set, so that `plan` shows the entries a reconcile would write.
  const applied = opts.dryRun ? undefined : await applyFederation(plan, spire, opts.ours, opts.signal);
  for (const r of plan.creates.concat(plan.updates.map((u) => u.relationship))) {
    if (r.bundle && !applied?.failed.has(r.trustDomain)) bundles.add(r.trustDomain);
  }
  return { plan, applied, status: federationStatus(plan, applied, bundles), bundles };
}
