import type { Owner } from '../api/index.js';

export type Profile = { type: 'https_web' } | { type: 'https_spiffe'; endpointSpiffeId: string };

/** A trust bundle as SPIRE stores it: DER X.509 authorities and PKIX JWT keys. */
export interface TrustBundle {
  x509Authorities: Buffer[];
  jwtAuthorities: { keyId: string; publicKey: Buffer; expiresAt: number }[];
  sequenceNumber: number;
  refreshHintSeconds: number;
}

export interface DeclaredRelationship {
  trustDomain: string;
  bundleEndpointUrl: string;
  profile: Profile;
  bundle?: TrustBundle;
  owner: Owner;
}

export interface CurrentRelationship {
  trustDomain: string;
  bundleEndpointUrl: string;
  profile: Profile | undefined;
  /** The bundle SPIRE holds for this trust domain, if any. */
  bundle?: TrustBundle;
}
