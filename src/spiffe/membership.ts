import { formatSpiffeId, type SpiffeId } from './id.js';

/**
 * SPIRE's rules for the IDs of an entry (its pkg/server/api/id.go), worded as
 * SPIRE words them. Our checks and the in-memory server share them, so what
 * `validate` refuses and what the server refuses read the same.
 *
 * The `...Rule` forms leave the ID out (`is not a member of trust domain
 * "example.org"`): the same text for every ID refused for that reason, which
 * reports group by. The `...Problem` forms put the quoted ID in front, as
 * SPIRE does.
 */

/** Member IDs (an entry's parent ID): in the trust domain, with a path. */
export function memberRule(id: SpiffeId, td: string): string | undefined {
  if (id.trustDomain !== td) return `is not a member of trust domain "${td}"`;
  if (id.path === '') return `is not a member of trust domain "${td}"; path is empty`;
  return undefined;
}

/** Workload IDs (an entry's SPIFFE ID): member rules, and not in the reserved /spire namespace. */
export function workloadRule(id: SpiffeId, td: string): string | undefined {
  if (id.trustDomain !== td) return `is not a member of trust domain "${td}"`;
  if (id.path === '') return `is not a workload in trust domain "${td}"; path is empty`;
  if (isReservedPath(id.path)) return `is not a workload in trust domain "${td}"; path is in the reserved namespace`;
  return undefined;
}

const withId = (id: SpiffeId, rule: string | undefined): string | undefined => (rule === undefined ? undefined : `"${formatSpiffeId(id)}" ${rule}`);

export function memberProblem(id: SpiffeId, td: string): string | undefined {
  return withId(id, memberRule(id, td));
}

export function workloadProblem(id: SpiffeId, td: string): string | undefined {
  return withId(id, workloadRule(id, td));
}

/** SPIRE keeps /spire and everything below it for its own agents and servers. */
function isReservedPath(path: string): boolean {
  return path === '/spire' || path.startsWith('/spire/');
}
