import type { EndpointSlice, Endpoints } from '../api/index.js';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** pod UID -> names of the services whose endpoints target it (ready or not). */
export type ServiceIndex = Map<string, Set<string>>;

function add(index: ServiceIndex, podUid: string | undefined, service: string | undefined): void {
  if (!podUid || !service) return;
  let set = index.get(podUid);
  if (!set) index.set(podUid, (set = new Set()));
  set.add(service);
}

/**
 * Indexes EndpointSlices (and core Endpoints, for clusters that still serve
 * only those) by the pods they target, so autoPopulateDNSNames costs one map
 * lookup per pod instead of a scan.
 */
export function indexServices(slices: readonly EndpointSlice[], endpoints: readonly Endpoints[]): ServiceIndex {
  const index: ServiceIndex = new Map();
  for (const s of slices) {
    const service = s.metadata.labels?.[SERVICE_NAME_LABEL];
    for (const ep of s.endpoints ?? []) if (ep.targetRef?.kind === 'Pod') add(index, ep.targetRef.uid, service);
  }
  for (const e of endpoints) {
    for (const subset of e.subsets ?? []) {
      for (const a of [...(subset.addresses ?? []), ...(subset.notReadyAddresses ?? [])]) {
        if (a.targetRef?.kind === 'Pod') add(index, a.targetRef.uid, e.metadata.name);
      }
    }
  }
  return index;
}

/** `svc`, `svc.ns`, `svc.ns.svc` and, with a cluster domain, `svc.ns.svc.<domain>`; sorted. */
export function serviceDnsNames(services: Iterable<string>, namespace: string, clusterDomain: string): string[] {
  const names: string[] = [];
  for (const svc of services) {
    names.push(svc, `${svc}.${namespace}`, `${svc}.${namespace}.svc`);
    if (clusterDomain) names.push(`${svc}.${namespace}.svc.${clusterDomain}`);
  }
  return names.sort();
}
