import type { KubernetesObject } from '@kubernetes/client-node';

type Obj = KubernetesObject & { spec?: unknown; status?: { phase?: string }; endpoints?: { targetRef?: { uid?: string } }[]; subsets?: unknown[] };

/** Metadata as templates and selectors see it: everything but what the API server churns. */
function meta(o: Obj): string {
  const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...rest } = o.metadata ?? {};
  return JSON.stringify(rest);
}

/**
 * What the engine reads of each kind, as a string: an update whose
 * fingerprint is unchanged cannot change any entry or status, so it triggers
 * nothing. This drops pod and node status churn (templates see metadata and
 * spec only; of the pod status just whether it finished) and our own status
 * writes to ClusterSPIFFEIDs and ClusterStaticEntries.
 */
export const fingerprints = {
  pods: (o) => `${meta(o)}|${JSON.stringify(o.spec)}|${o.status?.phase === 'Succeeded' || o.status?.phase === 'Failed' ? 'done' : 'live'}`,
  nodes: (o) => `${meta(o)}|${JSON.stringify(o.spec)}`,
  namespaces: (o) => meta(o),
  endpointslices: (o) => `${meta(o)}|${(o.endpoints ?? []).map((e) => e.targetRef?.uid ?? '').sort().join(',')}`,
  endpoints: (o) => `${meta(o)}|${JSON.stringify(o.subsets ?? [])}`,
  // spec changes bump generation; metadata (labels, deletion) is compared too.
  crd: (o) => `${meta(o)}|${o.metadata?.generation ?? ''}`,
} satisfies Record<string, (o: Obj) => string>;
