import { codeName, SpireRpcError } from './errors.js';

export interface ItemStatus {
  ok: boolean;
  code: number;
  codeName: string;
  message: string;
}

export interface BatchOutcome<R> {
  /** One result per input item, in input order. */
  results: R[];
  /** Set when an RPC failed as a whole; later batches were then not sent. */
  rpcError?: SpireRpcError;
}

export function itemStatus(s: { code: number; message: string } | null | undefined): ItemStatus {
  const code = s?.code ?? 2;
  return { ok: code === 0, code, codeName: codeName(code), message: s?.message ?? 'no status in response' };
}

/**
 * Sends items in consecutive batches of `size`. A whole-RPC failure stops
 * the run: the failed batch's items are reported as of unknown outcome (the
 * server may have applied them before the error reached us), later ones as
 * not sent, so the caller can retry without guessing.
 */
export async function runBatches<I, R>(
  items: readonly I[],
  size: number,
  send: (chunk: I[]) => Promise<R[]>,
  failed: (item: I, status: ItemStatus) => R,
  signal?: AbortSignal,
): Promise<BatchOutcome<R>> {
  const results: R[] = [];
  const step = Math.max(1, Math.floor(size));
  for (let start = 0; start < items.length; start += step) {
    // An aborted run (e.g. leadership lost) sends nothing more; what is left is reported as not sent.
    if (signal?.aborted) {
      const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
      const notSent: ItemStatus = { ok: false, code: 1, codeName: codeName(1), message: `not sent: ${reason}` };
      for (const item of items.slice(start)) results.push(failed(item, notSent));
      return { results };
    }
    const chunk = items.slice(start, start + step);
    try {
      const got = await send(chunk);
      if (got.length !== chunk.length) {
        throw new Error(`server answered ${got.length} results for ${chunk.length} items`);
      }
      results.push(...got);
    } catch (err) {
      const rpcError = err instanceof SpireRpcError ? err : undefined;
      const code = rpcError?.code ?? 13;
      const unknown: ItemStatus = { ok: false, code, codeName: codeName(code), message: `outcome unknown: ${(err as Error).message}` };
      const notSent: ItemStatus = { ok: false, code, codeName: codeName(code), message: `not sent: an earlier batch failed: ${(err as Error).message}` };
      for (const item of chunk) results.push(failed(item, unknown));
      for (const item of items.slice(start + step)) results.push(failed(item, notSent));
      return rpcError ? { results, rpcError } : { results };
    }
  }
  return { results };
}
