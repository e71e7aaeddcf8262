/** What the HTTPS server needs to serve TLS, and what readiness reports on. */
export interface ServingCertificate {
  /** The chain, leaf first, as PEM CERTIFICATE blocks. */
  certPem: string;
  keyPem: string;
  notAfter: Date;
}

/** The three kinds this webhook validates. */
export type WebhookKind = 'ClusterSPIFFEID' | 'ClusterStaticEntry' | 'ClusterFederatedTrustDomain';

export const SPIRE_GROUP = 'spire.spiffe.io';

/**
 * URL path per kind. The first and last are spire-controller-manager's (its
 * kubebuilder-generated names), so an existing ValidatingWebhookConfiguration
 * keeps working; ClusterStaticEntry is ours (upstream has no webhook for it).
 */
export const WEBHOOK_PATHS: Readonly<Record<WebhookKind, string>> = {
  ClusterSPIFFEID: '/validate-spire-spiffe-io-v1alpha1-clusterspiffeid',
  ClusterStaticEntry: '/validate-spire-spiffe-io-v1alpha1-clusterstaticentry',
  ClusterFederatedTrustDomain: '/validate-spire-spiffe-io-v1alpha1-clusterfederatedtrustdomain',
};
