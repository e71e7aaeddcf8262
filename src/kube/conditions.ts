import type { Condition } from '../api/index.js';
import type { ServiceSource } from './cluster.js';

export type { Condition };

/** On ClusterSPIFFEIDs with autoPopulateDNSNames, while the controller was denied what it reads Services from. */
export const SERVICE_DNS_NAMES = 'ServiceDNSNames';

/**
 * The conditions a ClusterSPIFFEID's status should carry. Only a denial is
 * reported (Endpoints instead of EndpointSlices: True, FromEndpoints;
 * neither: False, Forbidden), and only on objects that ask for Service DNS
 * names; otherwise none. The transition time is kept while the status stays.
 */
export function clusterSPIFFEIDConditions(autoPopulateDNSNames: boolean, source: ServiceSource, denied: string | undefined, current: readonly Condition[] | undefined, now: Date): Condition[] {
  if (!autoPopulateDNSNames || denied === undefined) return [];
  const status = source === 'none' ? 'False' : 'True';
  const previous = current?.find((c) => c.type === SERVICE_DNS_NAMES);
  return [
    {
      type: SERVICE_DNS_NAMES,
      status,
      reason: source === 'none' ? 'Forbidden' : 'FromEndpoints',
      message: denied,
      lastTransitionTime: previous?.status === status ? previous.lastTransitionTime : now.toISOString().replace(/\.\d+Z$/, 'Z'),
    },
  ];
}

/** Equal but for transition times. */
export function sameConditions(a: readonly Condition[] | undefined, b: readonly Condition[]): boolean {
  const key = (cs: readonly Condition[] | undefined) => JSON.stringify((cs ?? []).map((c) => [c.type, c.status, c.reason, c.message]));
  return key(a) === key(b);
}
