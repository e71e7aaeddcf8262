import { parseSpiffeId, parseTrustDomain } from '../spiffe/index.js';
import { parseSpiffeBundle } from './bundle.js';

/** The fields of a ClusterFederatedTrustDomain spec this module checks. */
export interface FederatedTrustDomainSpec {
  trustDomain?: string;
  bundleEndpointURL?: string;
  bundleEndpointProfile?: { type?: string; endpointSPIFFEID?: string };
  trustDomainBundle?: string;
}

export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * The checks spire-controller-manager's webhook makes on a
 * ClusterFederatedTrustDomain, reported all at once with their fields. With
 * `ownTrustDomain` (the SPIRE server's), federating with it is a problem too:
 * SPIRE refuses a relationship with its own trust domain.
 */
export function validateFederatedTrustDomain(spec: FederatedTrustDomainSpec, ownTrustDomain?: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (field: string, message: string) => problems.push({ field: `spec.${field}`, message });
  try {
    const td = parseTrustDomain(spec.trustDomain ?? '');
    if (td === ownTrustDomain) add('trustDomain', `"${td}" is the SPIRE server's own trust domain`);
  } catch (err) {
    add('trustDomain', (err as Error).message);
  }
  const url = spec.bundleEndpointURL ?? '';
  if (url === '') add('bundleEndpointURL', 'bundle endpoint URL is missing');
  else {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      add('bundleEndpointURL', `"${url}" is not a URL`);
    }
    if (parsed) {
      if (parsed.protocol !== 'https:') add('bundleEndpointURL', 'scheme must be https');
      else if (parsed.hostname === '') add('bundleEndpointURL', 'host must be specified');
      if (parsed.username !== '' || parsed.password !== '') add('bundleEndpointURL', 'cannot contain userinfo');
    }
  }
  const profile = spec.bundleEndpointProfile;
  if (profile?.type === 'https_web') {
    if (profile.endpointSPIFFEID) add('bundleEndpointProfile.endpointSPIFFEID', 'not applicable to the "https_web" profile');
  } else if (profile?.type === 'https_spiffe') {
    try {
      parseSpiffeId(profile.endpointSPIFFEID ?? '');
    } catch (err) {
      add('bundleEndpointProfile.endpointSPIFFEID', (err as Error).message);
    }
  } else {
    add('bundleEndpointProfile.type', `must be https_web or https_spiffe, got ${JSON.stringify(profile?.type ?? null)}`);
  }
  if (spec.trustDomainBundle) {
    try {
      parseSpiffeBundle(spec.trustDomainBundle);
    } catch (err) {
      add('trustDomainBundle', (err as Error).message);
    }
  }
  return problems;
}
