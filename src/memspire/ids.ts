import { memberProblem, spiffeIdFromParts, type SpiffeId, SpiffeIdError, workloadProblem } from '../spiffe/index.js';
import type { SPIFFEID } from '../spire/types.js';
import { errorMessage } from '../api/errors.js';

/**
 * Converts an API SPIFFEID message. Throws SpiffeIdError with SPIRE's reason
 * (including "request must specify SPIFFE ID" for a missing message).
 */
function idFromProto(id: SPIFFEID | null | undefined): SpiffeId {
  if (!id) throw new SpiffeIdError('request must specify SPIFFE ID');
  return spiffeIdFromParts(id.trust_domain ?? '', id.path ?? '');
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
    return { problem: errorMessage(err) };
  }
  const problem = rule === 'member' ? memberProblem(id, td) : workloadProblem(id, td);
  return problem ? { problem } : { id };
}
