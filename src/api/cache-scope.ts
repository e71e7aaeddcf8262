import type { ControllerConfig } from './config.js';

/** One namespace of `cacheNamespaces`: its objects, narrowed by label and field equalities. */
export interface CachedNamespace {
  namespace: string;
  labelSelector?: Record<string, string>;
  fieldSelector?: Record<string, string>;
}

/**
 * What the controller reads, as upstream's manager cache is restricted by
 * `cacheNamespace(s)` (namespaced objects: pods and endpoints, only from
 * these namespaces, each narrowed by its selectors) and by
 * `clusterSPIFFEIDLabelSelector` and `filterByClassName` (ClusterSPIFFEIDs
 * with these labels only). Cluster-scoped objects (namespaces, nodes, the
 * other CRDs) are read whole, as there.
 */
export interface CacheScope {
  /** Absent: every namespace. */
  namespaces?: CachedNamespace[];
  /** Absent: every ClusterSPIFFEID. */
  clusterSPIFFEIDLabels?: Record<string, string>;
}

/** The label upstream's filterByClassName selects on (its ClassNameLabel). */
const CLASS_NAME_LABEL = 'spire.spiffe.io/class-name';

export function cacheScope(config: Pick<ControllerConfig, 'cacheNamespaces' | 'clusterSPIFFEIDLabelSelector' | 'filterByClassName' | 'className'>): CacheScope {
  // As upstream: filterByClassName adds (and overrides) the class label in the selector.
  // Absent, not undefined: an undefined class label would still count in Object.keys below and replace the user's.
  const labels = { ...(config.clusterSPIFFEIDLabelSelector ?? {}), ...(config.filterByClassName ? { [CLASS_NAME_LABEL]: config.className } : {}) };
  return {
    namespaces: config.cacheNamespaces,
    clusterSPIFFEIDLabels: Object.keys(labels).length > 0 ? labels : undefined,
  };
}

/** A set of equalities as a selector query value (`a=1,b=2`, sorted as apimachinery's Set.String sorts it). */
export function equalitySelector(set: Record<string, string>): string {
  // Field selector values escape `\`, `,` and `=`; label values cannot hold them, so one rule serves both.
  const escape = (v: string) => v.replace(/[\\,=]/g, (c) => `\\${c}`);
  return Object.keys(set)
    .sort()
    .map((k) => `${k}=${escape(set[k]!)}`)
    .join(',');
}

export function matchesLabels(labels: Record<string, string> | undefined, wanted: Record<string, string> | undefined): boolean {
  if (!wanted) return true;
  return Object.entries(wanted).every(([k, v]) => labels?.[k] === v);
}

/** The field selectors manifest mode can evaluate (those the API server supports on pods, and metadata's on any kind). */
const FIELDS: Record<string, (obj: FieldSource) => string | undefined> = {
  'metadata.name': (o) => o.metadata?.name,
  'metadata.namespace': (o) => o.metadata?.namespace,
  'spec.nodeName': (o) => o.spec?.nodeName,
  'spec.serviceAccountName': (o) => o.spec?.serviceAccountName,
  'status.phase': (o) => o.status?.phase,
};

/** The fields of a cluster object that field selectors and the namespace scope read. */
export interface FieldSource {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: { nodeName?: string; serviceAccountName?: string };
  status?: { phase?: string };
}

/** Field selector keys manifest mode cannot evaluate: they are named in a warning, and not applied. */
export function unsupportedFieldSelectors(scope: CacheScope): string[] {
  const keys = new Set<string>();
  for (const ns of scope.namespaces ?? []) for (const k of Object.keys(ns.fieldSelector ?? {})) if (!FIELDS[k]) keys.add(k);
  return [...keys].sort();
}

/**
 * Whether a namespaced object (a pod, an EndpointSlice, an Endpoints) read
 * from manifest files would be in the cache: the file equivalent of the
 * namespaced list and watch live mode makes.
 */
export function inCachedNamespaces(obj: FieldSource, scope: CacheScope): boolean {
  if (!scope.namespaces) return true;
  const ns = scope.namespaces.find((n) => n.namespace === obj.metadata?.namespace);
  if (!ns) return false;
  if (!matchesLabels(obj.metadata?.labels, ns.labelSelector)) return false;
  return Object.entries(ns.fieldSelector ?? {}).every(([k, v]) => {
    const read = FIELDS[k];
    return read ? (read(obj) ?? '') === v : true;
  });
}
