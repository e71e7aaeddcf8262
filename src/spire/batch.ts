import { codeName, SpireRpcError } from './errors.js';
import { errorMessage } from '../api/errors.js';

export interface ItemStatus {
  ok: boolean;
  code: number;
  codeName: string;
  message: string;
}

export interface BatchOutcome<R> {
  /** One result per input item, in input order. */
  results: R[];
  /**
   * The first whole-RPC failure. Its batch's items say `outcome unknown: …`;
   * batches not yet started were not sent (`not sent: an earlier batch
   * failed: …`). With more than one batch in flight (writeConcurrency), the
   * others already sent were not cancelled: their items carry the server's
   * own results, or `outcome unknown: …` if they failed too.
   */
  rpcError?: SpireRpcError;
}

export function itemStatus(s: { code: number; message: string } | null | undefined): ItemStatus {
  const code = s?.code ?? 2;
  return { ok: code === 0, code, codeName: codeName(code), message: s?.message ?? 'no status in response' };
}

/**
 * Sends items in batches of `size`, up to `concurrency` batches in flight
 * (SPIRE handles every item on its own, so batches of one kind of write do
 * not depend on each other). A whole-RPC failure starts no further batch:
 * that batch's items are reported as of unknown outcome (the server may have
 * applied them before the error reached us), batches not yet started as not
 * sent, so the caller can retry without guessing. `halt`, asked right before
 * each batch is sent, also starts no further batch when it gives a reason
 * (`not sent: <reason>`): an aborted signal, or a leader whose renew deadline
 * has passed by the clock though its timer has not fired yet. Either way,
 * batches already in flight run to their end: a sent call cannot be taken back.
 */
export async function runBatches<I, R>(
  items: readonly I[],
  size: number,
  send: (chunk: I[]) => Promise<R[]>,
  failed: (item: I, status: ItemStatus) => R,
  halt?: () => string | undefined,
  concurrency = 1,
  /** Told the size of each batch once its call has returned or failed (whatever its items' outcomes). */
  onBatchDone?: (items: number) => void,
): Promise<BatchOutcome<R>> {
  const step = Math.max(1, Math.floor(size));
  const chunks: I[][] = [];
  for (let start = 0; start < items.length; start += step) chunks.push(items.slice(start, start + step));
  const done: (R[] | undefined)[] = new Array(chunks.length);
  let next = 0;
  // Set once nothing more may be sent: what to report for the batches never started.
  let stop: { notSent: ItemStatus; rpcError?: SpireRpcError } | undefined;

  const worker = async () => {
    while (!stop && next < chunks.length) {
      const reason = halt?.();
      if (reason !== undefined) {
        stop = { notSent: { ok: false, code: 1, codeName: codeName(1), message: `not sent: ${reason}` } };
        return;
      }
      const i = next++;
      const chunk = chunks[i]!;
      try {
        const got = await send(chunk);
        if (got.length !== chunk.length) throw new Error(`server answered ${got.length} results for ${chunk.length} items`);
        done[i] = got;
        onBatchDone?.(chunk.length);
      } catch (err) {
        const rpcError = err instanceof SpireRpcError ? err : undefined;
        const code = rpcError?.code ?? 13;
        const message = errorMessage(err);
        done[i] = chunk.map((item) => failed(item, { ok: false, code, codeName: codeName(code), message: `outcome unknown: ${message}` }));
        onBatchDone?.(chunk.length);
        stop ??= {
          notSent: { ok: false, code, codeName: codeName(code), message: `not sent: an earlier batch failed: ${message}` },
          rpcError,
        };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), chunks.length) }, worker));

  const results: R[] = [];
  chunks.forEach((chunk, i) => {
    const got = done[i];
    if (got) results.push(...got);
    else for (const item of chunk) results.push(failed(item, { ...stop!.notSent }));
  });
  return stop?.rpcError ? { results, rpcError: stop.rpcError } : { results };
}

/** Why an aborted signal stopped something, in words. */
export function abortReason(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
}
