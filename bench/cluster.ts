/**
 * The synthetic cluster every benchmark uses: N pods on N/100 nodes in N/50
 * namespaces, 10 ClusterSPIFFEIDs mixing namespace and pod selectors with DNS
 * and workload-selector templates, and one fallback. Deterministic in N.
 */
import { type ClusterSPIFFEID, IgnoredNamespaces, type Namespace, type Node, type Pod } from '../src/api/index.js';
import { type ClusterSnapshot, type SelectionSettings } from '../src/entries/index.js';
import { DEFAULT_PARENT_ID_TEMPLATE } from '../src/api/index.js';
import { compileTemplate } from '../src/template/index.js';

/** The selection settings every benchmark renders the synthetic cluster with. */
export function benchSettings(): SelectionSettings {
  return {
    trustDomain: 'example.org',
    clusterName: 'bench',
    clusterDomain: 'cluster.local',
    parentIdTemplate: compileTemplate(DEFAULT_PARENT_ID_TEMPLATE),
    ignoreNamespaces: IgnoredNamespaces.compile(['kube-system']),
    className: '',
    watchClassless: false,
  };
}

export function syntheticCluster(pods: number): ClusterSnapshot {
  const nodeCount = Math.max(1, Math.floor(pods / 100));
  const nsCount = Math.max(1, Math.floor(pods / 50));
  const nodes: Node[] = Array.from({ length: nodeCount }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: `node-${i}`, uid: `node-uid-${i}`, labels: { 'topology.kubernetes.io/zone': `zone-${i % 3}` } },
    spec: { providerID: `aws:///node-${i}` },
  }));
  const namespaces: Namespace[] = Array.from({ length: nsCount }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: `ns-${i}`, uid: `ns-uid-${i}`, labels: { team: `team-${i % 10}`, tier: i % 2 ? 'backend' : 'frontend' } },
  }));
  const podList: Pod[] = Array.from({ length: pods }, (_, i) => podAt(i, nsCount, nodeCount));
  const clusterSPIFFEIDs: ClusterSPIFFEID[] = Array.from({ length: 10 }, (_, i) => ({
    apiVersion: 'spire.spiffe.io/v1alpha1',
    kind: 'ClusterSPIFFEID',
    metadata: { name: `csid-${i}`, uid: `csid-uid-${i}`, creationTimestamp: `2026-01-0${1 + (i % 9)}T00:00:00Z` },
    spec: {
      spiffeIDTemplate: `spiffe://{{ .TrustDomain }}/c${i}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}`,
      namespaceSelector: { matchLabels: { team: `team-${i}` } },
      ...(i % 2 ? { podSelector: { matchExpressions: [{ key: 'spiffe.io/spiffe-id', operator: 'In', values: ['true'] }] } } : {}),
      dnsNameTemplates: ['{{ index .PodMeta.Labels "app.kubernetes.io/name" }}.{{ .PodMeta.Namespace }}.svc'],
      workloadSelectorTemplates: ['k8s:ns:{{ .PodMeta.Namespace }}'],
    },
  }));
  clusterSPIFFEIDs.push({
    apiVersion: 'spire.spiffe.io/v1alpha1',
    kind: 'ClusterSPIFFEID',
    metadata: { name: 'fallback', uid: 'csid-uid-fallback', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/fallback/{{ .PodMeta.Namespace }}/{{ .PodMeta.Name }}', fallback: true },
  });
  return { clusterSPIFFEIDs, clusterStaticEntries: [], namespaces, pods: podList, nodes, endpointSlices: [], endpoints: [] };
}

/** Pod i of the synthetic cluster (also used to create more pods during the event phase). */
export function podAt(i: number, nsCount: number, nodeCount: number): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${i}`,
      namespace: `ns-${i % nsCount}`,
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      labels: { app: `app-${i % 20}`, 'app.kubernetes.io/name': `svc-${i % 20}`, 'spiffe.io/spiffe-id': 'true' },
      annotations: { 'example.com/owner': `owner-${i % 7}` },
      creationTimestamp: '2026-01-01T00:00:00Z',
    },
    spec: { nodeName: `node-${i % nodeCount}`, serviceAccountName: `sa-${i % 20}`, containers: [{ name: 'main', image: 'app:1' }] },
    status: { phase: 'Running' },
  };
}
