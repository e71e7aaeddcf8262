import type { ClusterFederatedTrustDomain } from '../api/index.js';
import { ownerOf } from '../entries/index.js';
import { parseTrustDomain } from '../spiffe/index.js';
import { parseSpiffeBundle } from './bundle.js';
import type { DeclaredRelationship } from './model.js';
import { type FieldProblem, validateFederatedTrustDomain } from './validate.js';

/** A ClusterFederatedTrustDomain as a relationship to set, or every problem with it (see validateFederatedTrustDomain for `ownTrustDomain`). */
export function parseFederatedTrustDomain(obj: ClusterFederatedTrustDomain, ownTrustDomain?: string): { relationship: DeclaredRelationship } | { problems: FieldProblem[] } {
  const spec = obj.spec ?? ({} as ClusterFederatedTrustDomain['spec']);
  const problems = validateFederatedTrustDomain(spec, ownTrustDomain);
  if (problems.length > 0) return { problems };
  const profile = spec.bundleEndpointProfile;
  return {
    relationship: {
      trustDomain: parseTrustDomain(spec.trustDomain),
      bundleEndpointUrl: spec.bundleEndpointURL,
      profile: profile.type === 'https_web' ? { type: 'https_web' } : { type: 'https_spiffe', endpointSpiffeId: profile.endpointSPIFFEID ?? '' },
      ...(spec.trustDomainBundle ? { bundle: parseSpiffeBundle(spec.trustDomainBundle) } : {}),
      owner: ownerOf('ClusterFederatedTrustDomain', obj),
    },
  };
}
