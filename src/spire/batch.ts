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
 * Sends items in batches of `size`, up to `concurrency` batches in flight
 * (SPIRE handles every item on its own, so batches of one kind of write do
 * not depend on each other). A whole-RPC failure stops the run: that batch's
 * items are reported as of unknown outcome (the server may have applied them
 * before the error reached us), batches not yet sent as not sent, so the
 * caller can retry without guessing. An aborted signal sends nothing more.
 */
export async function runBatches<I, R>(
  items: readonly I[],
  size: number,
  send: (chunk: I[]) => Promise<R[]>,
  failed: (item: I, status: ItemStatus) => R,
  signal?: AbortSignal,
  concurrency = 1,
): Promise<BatchOutcome<R>> {
  const step = Math.max(1, Math.floor(size));
  const chunks: I[][] = [];
  for (let start = 0; start < items.length; start += step) chunks.push(items.slice(start, start + step));
  const done: (R[] | undefined)[] = new Array(chunks.length);
  let next = 0;
  let stop: { status: (kind: 'unknown' | 'notSent') => ItemStatus; rpcError?: SpireRpcError } | undefined;

  const worker = async () => {
    while (!stop && next < chunks.length) {
      if (signal?.aborted) {
        const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
        stop = { status: () => ({ ok: false, code: 1, codeName: codeName(1), message: `not sent: ${reason}` }) };
        return;
      }
      const i = next++;
      const chunk = chunks[i]!;
      try {
        const got = await send(chunk);
        if (got.length !== chunk.length) throw new Error(`server answered ${got.length} results for ${chunk.length} items`);
        done[i] = got;
      } catch (err) {
        const rpcError = err instanceof SpireRpcError ? err : undefined;
        const code = rpcError?.code ?? 13;
        const message = (err as Error).message;
        done[i] = chunk.map((item) => failed(item, { ok: false, code, codeName: codeName(code), message: `outcome unknown: ${message}` }));
        stop ??= {
          status: () => ({ ok: false, code, codeName: codeName(code), message: `not sent: an earlier batch failed: ${message}` }),
          ...(rpcError ? { rpcError } : {}),
        };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), chunks.length) }, worker));

  const results: R[] = [];
  chunks.forEach((chunk, i) => {
    const got = done[i];
    if (got) results.push(...got);
    else for (const item of chunk) results.push(failed(item, stop!.status('notSent')));
  });
  return stop?.rpcError ? { results, rpcError: stop.rpcError } : { results };
}
