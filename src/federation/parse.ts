import type { ClusterFederatedTrustDomain } from '../api/index.js';
import { type FieldProblem, ownerOf } from '../api/index.js';
import type { DeclaredRelationship } from './model.js';
import { checkFederatedTrustDomain } from './validate.js';

/** A ClusterFederatedTrustDomain as a relationship to set, or every problem with it (see validateFederatedTrustDomain for `ownTrustDomain`). */
export function parseFederatedTrustDomain(obj: ClusterFederatedTrustDomain, ownTrustDomain?: string): { relationship: DeclaredRelationship } | { problems: FieldProblem[] } {
  const spec = obj.spec ?? ({} as ClusterFederatedTrustDomain['spec']);
  const { problems, trustDomain, bundle } = checkFederatedTrustDomain(spec, ownTrustDomain);
  if (problems.length > 0 || trustDomain === undefined) return { problems };
  const profile = spec.bundleEndpointProfile;
  return {
    relationship: {
      trustDomain,
      bundleEndpointUrl: spec.bundleEndpointURL,
      profile: profile.type === 'https_web' ? { type: 'https_web' } : { type: 'https_spiffe', endpointSpiffeId: profile.endpointSPIFFEID ?? '' },
      bundle,
      owner: ownerOf('ClusterFederatedTrustDomain', obj),
    },
  };
}
