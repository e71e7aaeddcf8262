import { formatSpiffeId, type SpiffeId } from './id.js';

/**
 * SPIRE's rules for the IDs of an entry (its pkg/server/api/id.go), worded as
 * SPIRE words them. Our checks and the in-memory server share them, so what
 * `validate` refuses and what the server refuses read the same.
 */

/** Member IDs (an entry's parent ID): in the trust domain, with a path. */
export function memberProblem(id: SpiffeId, td: string): string | undefined {
  const uri = formatSpiffeId(id);
  if (id.trustDomain !== td) return `"${uri}" is not a member of trust domain "${td}"`;
  if (id.path === '') return `"${uri}" is not a member of trust domain "${td}"; path is empty`;
  return undefined;
}

/** Workload IDs (an entry's SPIFFE ID): member rules, and not in the reserved /spire namespace. */
export function workloadProblem(id: SpiffeId, td: string): string | undefined {
  const uri = formatSpiffeId(id);
  if (id.trustDomain !== td) return `"${uri}" is not a member of trust domain "${td}"`;
  if (id.path === '') return `"${uri}" is not a workload in trust domain "${td}"; path is empty`;
  if (isReservedPath(id.path)) return `"${uri}" is not a workload in trust domain "${td}"; path is in the reserved namespace`;
  return undefined;
}

/** SPIRE keeps /spire and everything below it for its own agents and servers. */
export function isReservedPath(path: string): boolean {
  return path === '/spire' || path.startsWith('/spire/');
}
