import * as grpc from '@grpc/grpc-js';
import { socketState } from './socket.js';

/**
 * Why the controller has no usable X.509 SVID from the Workload API right
 * now. A closed set, so a metric and a readiness check can name it:
 * - `no-socket`: nothing at the socket path;
 * - `not-a-socket`: the path names something else;
 * - `no-answer`: the agent refuses the connection or sends nothing in time;
 * - `no-identity`: the agent answered PERMISSION_DENIED "no identity issued";
 * - `expired`: the SVID, or every authority of the trust bundle, has expired;
 * - `trust-domain-mismatch`: the SVID is not in the configured trust domain,
 *   or the bundles lack that trust domain's authorities;
 * - `agent-error`: any other answer, or an SVID that cannot be used.
 */
type WorkloadApiCause = 'no-socket' | 'not-a-socket' | 'no-answer' | 'no-identity' | 'expired' | 'trust-domain-mismatch' | 'agent-error';

export interface WorkloadApiProblem {
  cause: WorkloadApiCause;
  /** One line: what is wrong, where, and what to do. */
  message: string;
  /** When it was seen (Date.now()). */
  at: number;
}

/** The gRPC status code's name, e.g. PERMISSION_DENIED. */
function codeName(code: number): string {
  return (grpc.status as unknown as Record<number, string>)[code] ?? `CODE_${code}`;
}

const NO_IDENTITY = 'no identity issued';

function problem(cause: WorkloadApiCause, message: string, at = Date.now()): WorkloadApiProblem {
  return { cause, message, at };
}

/** The problem an agent's missing answer is: the socket's state says which. */
function unreachable(path: string, detail: string): WorkloadApiProblem {
  switch (socketState(path)) {
    case 'absent':
      return problem(
        'no-socket',
        `no Workload API socket at ${path}: is the SPIRE agent running on this node, and its socket mounted where workloadAPISocketPath (or SPIFFE_ENDPOINT_SOCKET) says?`,
      );
    case 'not-a-socket':
      return problem('not-a-socket', `${path} exists but is not a socket: workloadAPISocketPath (or SPIFFE_ENDPOINT_SOCKET) must name the SPIRE agent's Workload API socket`);
    case 'no-permission':
      return problem('no-answer', `the Workload API socket ${path} cannot be reached: permission denied on its folder (the controller's user may not read it)`);
    case 'socket':
      return problem('no-answer', `the SPIRE agent does not answer on ${path} (${detail}): is the agent running and healthy?`);
  }
}

/** Classifies the status a FetchX509SVID stream ended with. */
export function streamProblem(path: string, err: { code: number; details?: string }): WorkloadApiProblem {
  const details = err.details ?? '';
  if (err.code === grpc.status.PERMISSION_DENIED && details.includes(NO_IDENTITY)) {
    return problem(
      'no-identity',
      `the SPIRE agent at ${path} issued no identity to this process (PERMISSION_DENIED "${NO_IDENTITY}"): the controller's admin entry is missing or not yet synced to the agent; create it with \`spire-reconciler bootstrap\``,
    );
  }
  if (err.code === grpc.status.UNAVAILABLE) {
    if (/EACCES|permission denied/i.test(details)) return problem('no-answer', `the Workload API socket ${path} refuses this process: permission denied (the controller's user may not connect to it)`);
    return unreachable(path, /ECONNREFUSED/.test(details) ? 'connection refused' : details || 'unavailable');
  }
  if (err.code === grpc.status.DEADLINE_EXCEEDED) return unreachable(path, 'deadline exceeded');
  return problem('agent-error', `the SPIRE agent at ${path} answered ${codeName(err.code)}${details ? `: ${details}` : ''}`);
}

export function silentAgent(path: string, waitedMs: number): WorkloadApiProblem {
  const seconds = waitedMs < 10_000 ? (waitedMs / 1000).toFixed(1) : String(Math.round(waitedMs / 1000));
  return unreachable(path, `no X.509 SVID within ${seconds}s of asking`);
}

export function unusableAnswer(path: string, reason: string): WorkloadApiProblem {
  return problem('agent-error', `the SPIRE agent at ${path} sent an X.509 SVID response that cannot be used: ${reason}`);
}

export function svidExpired(path: string, spiffeId: string, notAfter: Date): WorkloadApiProblem {
  return problem(
    'expired',
    `the X.509 SVID ${spiffeId} from the SPIRE agent at ${path} expired at ${notAfter.toISOString()} and no renewed one came: is the agent connected to the SPIRE server?`,
  );
}

export function bundleExpired(path: string, trustDomain: string, lastNotAfter: Date): WorkloadApiProblem {
  return problem(
    'expired',
    `every X.509 authority the SPIRE agent at ${path} gave for ${trustDomain} has expired (the last at ${lastNotAfter.toISOString()}): is the agent connected to the SPIRE server?`,
  );
}

export function foreignSvid(path: string, spiffeId: string, trustDomain: string): WorkloadApiProblem {
  return problem(
    'trust-domain-mismatch',
    `the SPIRE agent at ${path} issued ${spiffeId}, which is not in trust domain ${trustDomain} (trustDomain): the agent belongs to another trust domain, or trustDomain is wrong`,
  );
}

export function noBundle(path: string, trustDomain: string): WorkloadApiProblem {
  return problem(
    'trust-domain-mismatch',
    `the SPIRE agent at ${path} gave no X.509 authorities for trust domain ${trustDomain}, so the SPIRE server's certificate cannot be verified: the agent belongs to another trust domain, or trustDomain is wrong`,
  );
}
