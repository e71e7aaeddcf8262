import type { KubeObject, LabelSelector } from './kube.js';

/** A status condition, as metav1.Condition (kubectl describe shows them). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export const GROUP_VERSION = 'spire.spiffe.io/v1alpha1';

interface ClusterSPIFFEIDSpec {
  spiffeIDTemplate: string;
  namespaceSelector?: LabelSelector;
  podSelector?: LabelSelector;
  /** Go duration string, e.g. "1h". */
  ttl?: string;
  jwtTtl?: string;
  dnsNameTemplates?: string[];
  workloadSelectorTemplates?: string[];
  federatesWith?: string[];
  admin?: boolean;
  downstream?: boolean;
  autoPopulateDNSNames?: boolean;
  className?: string;
  fallback?: boolean;
  hint?: string;
}

export interface ClusterSPIFFEIDStats {
  namespacesSelected: number;
  namespacesIgnored: number;
  podsSelected: number;
  podEntryRenderFailures: number;
  entriesMasked: number;
  entriesToSet: number;
  entryFailures: number;
  /** Ours: entries sent without some federatesWith trust domains (no bundle yet). */
  entriesWithoutFederation: number;
}

export interface ClusterSPIFFEID extends KubeObject {
  spec: ClusterSPIFFEIDSpec;
  status?: { stats?: Partial<ClusterSPIFFEIDStats>; conditions?: Condition[] };
}

interface ClusterStaticEntrySpec {
  spiffeID: string;
  parentID: string;
  selectors: string[];
  federatesWith?: string[];
  x509SVIDTTL?: string;
  jwtSVIDTTL?: string;
  dnsNames?: string[];
  hint?: string;
  admin?: boolean;
  downstream?: boolean;
  storeSVID?: boolean;
  className?: string;
}

export interface ClusterStaticEntryStatus {
  rendered: boolean;
  masked: boolean;
  set: boolean;
}

export interface ClusterStaticEntry extends KubeObject {
  spec: ClusterStaticEntrySpec;
  status?: Partial<ClusterStaticEntryStatus>;
}

interface BundleEndpointProfile {
  type: 'https_web' | 'https_spiffe';
  endpointSPIFFEID?: string;
}

interface ClusterFederatedTrustDomainSpec {
  trustDomain: string;
  bundleEndpointURL: string;
  bundleEndpointProfile: BundleEndpointProfile;
  /** SPIFFE bundle (JWKS) JSON. */
  trustDomainBundle?: string;
  className?: string;
}

export interface ClusterFederatedTrustDomain extends KubeObject {
  spec: ClusterFederatedTrustDomainSpec;
  status?: Record<string, unknown>;
}
