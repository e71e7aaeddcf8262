import { status as Code } from '@grpc/grpc-js';

export { Code };

export interface ItemStatus {
  code: number;
  message: string;
}

export const OK: ItemStatus = Object.freeze({ code: Code.OK, message: 'OK' });

/**
 * Builds a message the way SPIRE does: "<op>" or "<op>: <cause>". NOT_FOUND
 * never carries a cause (spire-semantics §1.2).
 */
export function spireStatus(code: number, op: string, cause?: string): ItemStatus {
  if (code === Code.NOT_FOUND || cause === undefined || cause === '') return { code, message: op };
  return { code, message: `${op}: ${cause}` };
}

/** A per-item failure thrown inside one item's processing; never escapes a batch. */
export class ItemFailure extends Error {
  constructor(readonly status: ItemStatus) {
    super(status.message);
  }
}

export function fail(code: number, op: string, cause?: string): never {
  throw new ItemFailure(spireStatus(code, op, cause));
}

/** A whole-RPC failure, answered as the gRPC status of the call. */
export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
