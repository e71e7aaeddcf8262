import { formatSpiffeId, spiffeIdFromParts, type SpiffeId, SpiffeIdError } from '../spiffe/index.js';
import type { SPIFFEID } from '../spire/types.js';

/**
 * Converts an API SPIFFEID message. Throws SpiffeIdError with SPIRE's reason
 * (including "request must specify SPIFFE ID" for a missing message).
 */
export function idFromProto(id: SPIFFEID | null | undefined): SpiffeId {
  if (!id) throw new SpiffeIdError('request must specify SPIFFE ID');
  return spiffeIdFromParts(id.trust_domain ?? '', id.path ?? '');
}

/** SPIRE's member-ID rules (parent IDs): in the trust domain, non-empty path. */
export function memberProblem(id: SpiffeId, td: string): string | undefined {
  const uri = formatSpiffeId(id);
  if (id.trustDomain !== td) return `"${uri}" is not a member of trust domain "${td}"`;
  if (id.path === '') return `"${uri}" is not a member of trust domain "${td}"; path is empty`;
  return undefined;
}

/** SPIRE's workload-ID rules: member rules, and not in the reserved /spire namespace. */
export function workloadProblem(id: SpiffeId, td: string): string | undefined {
  const uri = formatSpiffeId(id);
  if (id.trustDomain !== td) return `"${uri}" is not a member of trust domain "${td}"`;
  if (id.path === '') return `"${uri}" is not a workload in trust domain "${td}"; path is empty`;
  if (id.path === '/spire' || id.path.startsWith('/spire/')) {
    return `"${uri}" is not a workload in trust domain "${td}"; path is in the reserved namespace`;
  }
  return undefined;
}

/** Parses and checks an ID message; returns the ID or the reason it is rejected. */
export function checkId(
  msg: SPIFFEID | null | undefined,
  td: string,
  rule: 'member' | 'workload',
): { id: SpiffeId } | { problem: string } {
  let id: SpiffeId;
  try {
    id = idFromProto(msg);
  } catch (err) {
    return { problem: (err as Error).message };
  }
  const problem = rule === 'member' ? memberProblem(id, td) : workloadProblem(id, td);
  return problem ? { problem } : { id };
}
