import { statSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { errorMessage } from '../api/errors.js';

export function codeName(code: number): string {
  return (grpc.status as unknown as Record<number, string>)[code] ?? `CODE_${code}`;
}

/**
 * What the gRPC code of a failed call or item means to the controller, one
 * rule for every caller:
 * - `done`: for a delete, NOT_FOUND (already gone is what we wanted);
 * - `refused`: SPIRE certainly holds nothing new for the item
 *   (INVALID_ARGUMENT, INTERNAL, NOT_FOUND, FAILED_PRECONDITION): our copy of
 *   its state stays right, and sending the same again cannot help;
 * - `transient`: the server or the way to it may answer later (UNAVAILABLE,
 *   DEADLINE_EXCEEDED, CANCELLED, RESOURCE_EXHAUSTED): the pass is retried
 *   with backoff, and what was written is unknown;
 * - `unknown`: anything else (an outcome unknown, a similar entry we did not
 *   know of): our copy of SPIRE's state may be wrong.
 */
type RpcOutcome = 'done' | 'refused' | 'transient' | 'unknown';

const REFUSED = new Set(['INVALID_ARGUMENT', 'INTERNAL', 'NOT_FOUND', 'FAILED_PRECONDITION']);
const TRANSIENT = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'CANCELLED', 'RESOURCE_EXHAUSTED']);

export function rpcOutcome(codeName: string, op?: 'create' | 'update' | 'delete'): RpcOutcome {
  if (op === 'delete' && codeName === 'NOT_FOUND') return 'done';
  if (REFUSED.has(codeName)) return 'refused';
  if (TRANSIENT.has(codeName)) return 'transient';
  return 'unknown';
}

/** Says in words why a socket cannot be reached, when the file system can tell. */
export function diagnoseSocket(path: string): string | undefined {
  try {
    const st = statSync(path);
    if (!st.isSocket()) return `${path} exists but is not a socket`;
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return `no socket file at ${path} (is the SPIRE server running?)`;
    if (code === 'EACCES') return `permission denied on ${path}`;
    return `${path}: ${code ?? errorMessage(err)}`;
  }
}

/**
 * A failed SPIRE RPC. The message is one line naming the RPC, the gRPC code
 * and where the server is (the socket path, or "host:port (SPIFFE mTLS)"),
 * so logs and CLI output need no stack trace to be useful. When the server
 * did not answer, it adds what the transport can tell (no socket file, no
 * SVID to present, a server that is not the configured one).
 */
export class SpireRpcError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly details: string;

  constructor(
    readonly rpc: string,
    readonly where: string,
    err: Partial<grpc.ServiceError> & { code?: number; details?: string },
    diagnose?: () => string | undefined,
  ) {
    const code = err.code ?? grpc.status.UNKNOWN;
    let details = err.details ?? err.message ?? '';
    if (code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED) {
      const why = diagnose?.();
      if (why) details = details ? `${details}; ${why}` : why;
    }
    super(`SPIRE ${rpc} failed: ${codeName(code)} on ${where}${details ? `: ${details}` : ''}`);
    this.name = 'SpireRpcError';
    this.code = code;
    this.codeName = codeName(code);
    this.details = details;
  }
}

/** The client gave up waiting for the SPIRE server to accept connections. */
export class SpireConnectError extends Error {
  constructor(
    readonly where: string,
    waitedMs: number,
    why: string,
  ) {
    super(`SPIRE server not reachable at ${where} after ${Math.round(waitedMs / 1000)}s: ${why}`);
    this.name = 'SpireConnectError';
  }
}
