import { errorMessage, type FieldProblem } from '../api/index.js';
import { parseSpiffeId, parseTrustDomain } from '../spiffe/index.js';
import { parseSpiffeBundle } from './bundle.js';
import { bundleEndpointUrlProblems } from './bundle-url.js';
import type { TrustBundle } from './model.js';

/** The fields of a ClusterFederatedTrustDomain spec this module checks. */
interface FederatedTrustDomainSpec {
  trustDomain?: string;
  bundleEndpointURL?: string;
  bundleEndpointProfile?: { type?: string; endpointSPIFFEID?: string };
  trustDomainBundle?: string;
}

/**
 * The checks spire-controller-manager's webhook makes on a
 * ClusterFederatedTrustDomain, reported all at once with their fields. With
 * `ownTrustDomain` (the SPIRE server's), federating with it is a problem too:
 * SPIRE refuses a relationship with its own trust domain.
 */
export function validateFederatedTrustDomain(spec: FederatedTrustDomainSpec, ownTrustDomain?: string): FieldProblem[] {
  return checkFederatedTrustDomain(spec, ownTrustDomain).problems;
}

/**
 * validateFederatedTrustDomain, also handing back what the checks parsed:
 * reading a bundle means parsing its X.509 certificates and JWKs, too much
 * work to do a second time for the relationship.
 */
export function checkFederatedTrustDomain(
  spec: FederatedTrustDomainSpec,
  ownTrustDomain?: string,
): { problems: FieldProblem[]; trustDomain?: string; bundle?: TrustBundle } {
  const problems: FieldProblem[] = [];
  const add = (field: string, message: string) => problems.push({ field: `spec.${field}`, message });
  let trustDomain: string | undefined;
  let bundle: TrustBundle | undefined;
  try {
    trustDomain = parseTrustDomain(spec.trustDomain ?? '');
    if (trustDomain === ownTrustDomain) add('trustDomain', `"${trustDomain}" is the SPIRE server's own trust domain`);
  } catch (err) {
    add('trustDomain', errorMessage(err));
  }
  for (const problem of bundleEndpointUrlProblems(spec.bundleEndpointURL ?? '')) add('bundleEndpointURL', problem);
  const profile = spec.bundleEndpointProfile;
  if (profile?.type === 'https_web') {
    if (profile.endpointSPIFFEID) add('bundleEndpointProfile.endpointSPIFFEID', 'not applicable to the "https_web" profile');
  } else if (profile?.type === 'https_spiffe') {
    try {
      parseSpiffeId(profile.endpointSPIFFEID ?? '');
    } catch (err) {
      add('bundleEndpointProfile.endpointSPIFFEID', errorMessage(err));
    }
  } else {
    add('bundleEndpointProfile.type', `must be https_web or https_spiffe, got ${JSON.stringify(profile?.type ?? null)}`);
  }
  if (spec.trustDomainBundle) {
    try {
      bundle = parseSpiffeBundle(spec.trustDomainBundle);
    } catch (err) {
      add('trustDomainBundle', errorMessage(err));
    }
  }
  return { problems, trustDomain, bundle };
}
