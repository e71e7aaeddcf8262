import type { ManifestSet } from './types.js';
import { GROUP_VERSION as SPIRE } from '../api/crds.js';

/** The kinds that carry a CRD schema of ours, validated before use. */
export type SpireKind = 'ClusterSPIFFEID' | 'ClusterStaticEntry' | 'ClusterFederatedTrustDomain';

type Bucket = Exclude<keyof ManifestSet, 'problems' | 'files'>;

export interface KindInfo {
  bucket: Bucket;
  /** Namespaced objects get `default` when a file leaves the namespace out, as kubectl does. */
  namespaced: boolean;
  crd?: SpireKind;
}

/** Keyed by `<apiVersion> <kind>`; anything else in a file is not ours and is skipped. */
const KINDS: ReadonlyMap<string, KindInfo> = new Map<string, KindInfo>([
  [`${SPIRE} ClusterSPIFFEID`, { bucket: 'clusterSPIFFEIDs', namespaced: false, crd: 'ClusterSPIFFEID' }],
  [`${SPIRE} ClusterStaticEntry`, { bucket: 'clusterStaticEntries', namespaced: false, crd: 'ClusterStaticEntry' }],
  [
    `${SPIRE} ClusterFederatedTrustDomain`,
    { bucket: 'clusterFederatedTrustDomains', namespaced: false, crd: 'ClusterFederatedTrustDomain' },
  ],
  ['v1 Namespace', { bucket: 'namespaces', namespaced: false }],
  ['v1 Node', { bucket: 'nodes', namespaced: false }],
  ['v1 Pod', { bucket: 'pods', namespaced: true }],
  ['v1 Endpoints', { bucket: 'endpoints', namespaced: true }],
  ['discovery.k8s.io/v1 EndpointSlice', { bucket: 'endpointSlices', namespaced: true }],
]);

export function lookupKind(apiVersion: string, kind: string): KindInfo | undefined {
  return KINDS.get(`${apiVersion} ${kind}`);
}
