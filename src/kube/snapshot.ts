import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeConfig } from './connection.js';
import { type CacheScope, type ClusterFederatedTrustDomain, type ClusterSnapshot, inCachedNamespaces, type OwnerKind, type Pod, type PodName } from '../api/index.js';
import { watchedResources } from './cluster.js';
import { crdKind, isMissingCrd, missingCrdMessage } from './crd-presence.js';
import { compactPod, stripManagedFields } from './informer.js';
import { listAll } from './rest.js';
import { chooseServiceSource } from './service-source.js';

interface ClusterRead {
  snapshot: ClusterSnapshot;
  clusterFederatedTrustDomains: ClusterFederatedTrustDomain[];
}

interface ReadClusterOptions {
  /** What the controller reads (cacheNamespaces, the ClusterSPIFFEID label selector): the same here. */
  scope?: CacheScope;
  /** Told after each page of each list: the resource and how many of it so far. */
  onProgress?: (resource: string, listed: number) => void;
  /**
   * Read only what this pod's entries depend on (the pod, its namespace and
   * node, its namespace's EndpointSlices) besides the spire.spiffe.io
   * objects, instead of every pod in the cluster.
   */
  pod?: PodName;
  /** Told where Service DNS names come from when that is not EndpointSlices. */
  log?: { info(msg: string): void; warn(msg: string): void };
}

/** Where each resource's objects go in a snapshot. */
const BUCKETS: Record<string, keyof ClusterSnapshot | 'clusterFederatedTrustDomains'> = {
  clusterspiffeids: 'clusterSPIFFEIDs',
  clusterstaticentries: 'clusterStaticEntries',
  clusterfederatedtrustdomains: 'clusterFederatedTrustDomains',
  namespaces: 'namespaces',
  nodes: 'nodes',
  pods: 'pods',
  endpointslices: 'endpointSlices',
  endpoints: 'endpoints',
};

/**
 * The cluster as one-shot paged lists, no informers and no watches: for the
 * commands that make one pass (plan, reconcile --once, explain). The lists
 * are live mode's (the same resources, scope and selectors), made one after
 * another, so the API server sees one request at a time.
 */
export async function readCluster(kc: KubeConfig, opts: ReadClusterOptions = {}): Promise<ClusterRead> {
  const scope = opts.scope ?? {};
  const { source } = await chooseServiceSource(kc, opts.log ?? { info: () => {}, warn: () => {} });
  const out: Record<string, KubernetesObject[]> = Object.fromEntries(Object.values(BUCKETS).map((b) => [b, []]));
  const wanted = opts.pod;
  const notInstalled: OwnerKind[] = [];
  for (const w of watchedResources(source, scope)) {
    // For one pod: its own namespace's objects only, and the pod, namespace and node by name below.
    if (wanted && (w.name === 'pods' || w.name === 'namespaces' || w.name === 'nodes')) continue;
    let path = w.path;
    if (wanted && w.inNamespace) {
      const own = w.inNamespace(wanted.namespace);
      // Scoped to namespaces, there is a list per cached namespace: the pod's only.
      if (scope.namespaces && path !== own) continue;
      path = own;
    }
    const compact = w.compact ?? stripManagedFields;
    let listed = 0;
    let result;
    try {
      result = await listAll<KubernetesObject>(kc, path, {
        dropManagedFields: true,
        labelSelector: w.labelSelector,
        fieldSelector: w.fieldSelector,
        onPage: (items) => {
          for (const o of items) compact(o);
          listed += items.length;
          opts.onProgress?.(w.name, listed);
        },
      });
    } catch (err) {
      // A CRD not installed: its kind is unknown, as in live mode, and the rest is still read.
      if (!isMissingCrd(w.name, err)) throw err;
      opts.log?.warn(missingCrdMessage(w.name));
      notInstalled.push(crdKind(w.name)!);
      continue;
    }
    out[BUCKETS[w.name]!]!.push(...result.items);
  }
  if (wanted) {
    const ns = encodeURIComponent(wanted.namespace);
    const pod = await named<Pod & KubernetesObject>(kc, `/api/v1/namespaces/${ns}/pods`, wanted.name);
    // A pod outside the scope is one the controller never reads.
    if (pod && inCachedNamespaces(pod, scope)) out.pods!.push(keepScheduled(pod));
    const namespace = await named(kc, '/api/v1/namespaces', wanted.namespace);
    if (namespace) out.namespaces!.push(namespace);
    const nodeName = pod?.spec?.nodeName;
    const node = nodeName ? await named(kc, '/api/v1/nodes', nodeName) : undefined;
    if (node) out.nodes!.push(node);
  }
  const { clusterFederatedTrustDomains, ...snapshot } = out as unknown as ClusterSnapshot & { clusterFederatedTrustDomains: ClusterFederatedTrustDomain[] };
  return { snapshot: notInstalled.length > 0 ? { ...snapshot, notInstalled } : snapshot, clusterFederatedTrustDomains };
}

/**
 * The pod compacted as the controller caches it, but for its PodScheduled
 * condition, which explain reads (when the pod was bound to its node) and
 * the engine does not.
 */
function keepScheduled(pod: Pod & KubernetesObject): Pod & KubernetesObject {
  const conditions = pod.status?.conditions;
  const scheduled = Array.isArray(conditions) ? (conditions as { type?: string }[]).find((c) => c.type === 'PodScheduled') : undefined;
  compactPod(pod);
  if (scheduled) pod.status = { ...pod.status, conditions: [scheduled] };
  return pod;
}

/**
 * One object by name, as a list narrowed to it by a field selector: the
 * controller's RBAC grants list and watch, not get, so explain reads no
 * more than the controller may (and an operator's kubeconfig may hold just as little).
 */
async function named<T extends KubernetesObject>(kc: KubeConfig, collection: string, name: string): Promise<T | undefined> {
  const list = await listAll<T>(kc, collection, { dropManagedFields: true, fieldSelector: `metadata.name=${name}` });
  const obj = list.items[0];
  return obj && stripManagedFields(obj);
}
