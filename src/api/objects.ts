import type { ClusterSPIFFEID, ClusterStaticEntry } from './crds.js';
import type { EndpointSlice, Endpoints, Namespace, Node, Pod } from './kube.js';

/**
 * The objects a pass reads and the objects that declare entries and
 * relationships: shared by entries/, federation/, kube/ and the modes, so it
 * lives below all of them.
 */

/** Every object a pass reads, as the cache (live) or the files (manifest mode) hold them. */
export interface ClusterSnapshot {
  clusterSPIFFEIDs: readonly ClusterSPIFFEID[];
  clusterStaticEntries: readonly ClusterStaticEntry[];
  namespaces: readonly Namespace[];
  pods: readonly Pod[];
  nodes: readonly Node[];
  endpointSlices: readonly EndpointSlice[];
  endpoints: readonly Endpoints[];
  /**
   * Kinds whose CRD the API server does not serve (a list answered 404): their
   * objects are unknown, not absent, so what they declared is kept.
   */
  notInstalled?: readonly OwnerKind[];
}

export type OwnerKind = 'ClusterSPIFFEID' | 'ClusterStaticEntry' | 'ClusterFederatedTrustDomain';

/** The object that declared an entry: the unit that status and failures are counted against. */
export interface Owner {
  kind: OwnerKind;
  name: string;
  uid: string;
  creationTimestamp: string;
  deletionTimestamp?: string;
}

export function ownerOf(kind: Owner['kind'], obj: { metadata: ClusterSPIFFEID['metadata'] }): Owner {
  const m = obj.metadata;
  return {
    kind,
    name: m.name,
    uid: m.uid,
    creationTimestamp: m.creationTimestamp ?? '',
    deletionTimestamp: m.deletionTimestamp || undefined,
  };
}

/**
 * Preference among objects declaring the same entry: the oldest object wins;
 * then one not being deleted; between two being deleted, the later deletion;
 * then the lowest UID. The same order as spire-controller-manager, so a
 * migration does not flip which object owns an entry.
 */
export function comparePreference(a: Owner, b: Owner): number {
  const created = time(a.creationTimestamp) - time(b.creationTimestamp);
  if (created !== 0) return created;
  const da = a.deletionTimestamp;
  const db = b.deletionTimestamp;
  if (da === undefined && db !== undefined) return -1;
  if (da !== undefined && db === undefined) return 1;
  if (da !== undefined && db !== undefined) {
    const deleted = time(db) - time(da);
    if (deleted !== 0) return deleted;
  }
  if (a.uid !== b.uid) return a.uid < b.uid ? -1 : 1;
  return 0;
}

function time(ts: string | undefined): number {
  const t = ts ? Date.parse(ts) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

/** Whether an object's className is this controller's (className and watchClassless of the config). */
export function isOurClass(className: string | undefined, s: { className: string; watchClassless: boolean }): boolean {
  const cn = className ?? '';
  return (cn === '' && s.watchClassless) || cn === s.className;
}
