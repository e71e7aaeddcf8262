import { statSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';

export function codeName(code: number): string {
  return (grpc.status as unknown as Record<number, string>)[code] ?? `CODE_${code}`;
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
    return `${path}: ${code ?? (err as Error).message}`;
  }
}

/**
 * A failed SPIRE RPC. The message is one line naming the RPC, the gRPC code
 * and the socket, so logs and CLI output need no stack trace to be useful.
 */
export class SpireRpcError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly details: string;

  constructor(
    readonly rpc: string,
    readonly socketPath: string,
    err: Partial<grpc.ServiceError> & { code?: number; details?: string },
  ) {
    const code = err.code ?? grpc.status.UNKNOWN;
    let details = err.details ?? err.message ?? '';
    if (code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED) {
      const why = diagnoseSocket(socketPath);
      if (why) details = details ? `${details}; ${why}` : why;
    }
    super(`SPIRE ${rpc} failed: ${codeName(code)} on ${socketPath}${details ? `: ${details}` : ''}`);
    this.name = 'SpireRpcError';
    this.code = code;
    this.codeName = codeName(code);
    this.details = details;
  }
}

/** The client gave up waiting for the SPIRE socket to accept connections. */
export class SpireConnectError extends Error {
  constructor(
    readonly socketPath: string,
    waitedMs: number,
  ) {
    const why = diagnoseSocket(socketPath) ?? 'the socket exists but the server does not answer';
    super(`SPIRE server not reachable at ${socketPath} after ${Math.round(waitedMs / 1000)}s: ${why}`);
    this.name = 'SpireConnectError';
  }
}
