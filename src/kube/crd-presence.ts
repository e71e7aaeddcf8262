/**
 * Our CRDs as the API server serves them, or not: a cluster may have only
 * some installed (the ClusterSPIFFEID one alone is common, from older
 * manifests). A list of a resource the API server does not serve answers 404
 * NotFound. Upstream (v0.8.0, its pull request #727) then logs what to
 * install and stops its entry pass; it never takes the missing kind for "no
 * objects", which would delete the entries its objects made. Ours keeps the
 * missing kind unknown the same way, and reconciles the others meanwhile
 * (kube/cluster.ts). Here: what a missing CRD looks like, and the lines that
 * say it is missing and then installed.
 */
import type { OwnerKind } from '../api/index.js';
import { KubeApiError } from './rest.js';

/** The resource each CRD serves, and its file in this repository's crds/. */
const CRDS: Record<string, { kind: OwnerKind; plural: string; file: string }> = {
  clusterspiffeids: { kind: 'ClusterSPIFFEID', plural: 'ClusterSPIFFEIDs', file: 'spire.spiffe.io_clusterspiffeids.yaml' },
  clusterstaticentries: { kind: 'ClusterStaticEntry', plural: 'ClusterStaticEntries', file: 'spire.spiffe.io_clusterstaticentries.yaml' },
  clusterfederatedtrustdomains: { kind: 'ClusterFederatedTrustDomain', plural: 'ClusterFederatedTrustDomains', file: 'spire.spiffe.io_clusterfederatedtrustdomains.yaml' },
};

/** The kind whose CRD serves `resource` ("clusterstaticentries"), or undefined for a resource not ours. */
export function crdKind(resource: string): OwnerKind | undefined {
  return CRDS[resource]?.kind;
}

/** Whether a failed list of `resource` says its CRD is not installed: 404 for one of ours. */
export function isMissingCrd(resource: string, err: unknown): boolean {
  return CRDS[resource] !== undefined && err instanceof KubeApiError && err.statusCode === 404;
}

/** The one line for a CRD found missing: which, what it means, and how to install it. */
export function missingCrdMessage(resource: string): string {
  const crd = CRDS[resource];
  if (!crd) throw new Error(`${resource} is not one of our CRDs`);
  const kept = crd.kind === 'ClusterFederatedTrustDomain' ? 'federation relationships are left as they are' : 'the entries they made are kept';
  return (
    `the ${crd.kind} CRD is not installed (the API server serves no ${resource}.spire.spiffe.io): ${crd.plural} are not reconciled and ${kept}, ` +
    `while the other kinds reconcile; install it with \`kubectl apply -f crds/${crd.file}\` from this repository, or the SPIRE helm chart's spire-crds chart`
  );
}

/** The line for a CRD that was missing and is now served. */
export function installedCrdMessage(resource: string): string {
  const crd = CRDS[resource];
  return crd ? `the ${crd.kind} CRD is installed: reconciling ${crd.plural}` : `${resource} is served`;
}
