import type { Logger } from 'pino';
import { Backoff } from '../net/backoff.js';
import { rpcOutcome } from '../spire/index.js';
import type { ControllerMetrics } from './metrics.js';

/**
 * How a pass ended, and so when the next full pass runs: controller-runtime's
 * four reconcile results.
 * - `success`: nothing to retry; after a full pass, the backoff starts over.
 * - `error`: the pass stopped at a failure, nothing past it applied: it is
 *   logged and counted, and a full pass follows after the backoff.
 * - `requeue`: the pass finished, but a write failed in a way SPIRE may not
 *   repeat (writesOutcome): a full pass follows after the backoff.
 * - `requeue-after`: a full pass follows after a fixed delay (0: now), the
 *   backoff left as it is.
 */
export type PassOutcome = { result: 'success' } | { result: 'error'; err: unknown } | { result: 'requeue' } | { result: 'requeue-after'; ms: number };

/**
 * `requeue` when a write failed in a way SPIRE may not repeat
 * (spire/errors.ts:rpcOutcome); per-item rejections are not retried, since
 * retrying cannot fix them.
 */
export function writesOutcome(applied: { failures: readonly { codeName: string }[] }): 'success' | 'requeue' {
  return applied.failures.some((f) => rpcOutcome(f.codeName) === 'transient') ? 'requeue' : 'success';
}

/** A callback run once after a delay; arming it again replaces the wait. */
class Later {
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly fn: () => void) {}
  in(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.fn, ms);
    this.timer.unref();
  }
  cancel(): void {
    clearTimeout(this.timer);
  }
}

export interface RetryPolicyOptions {
  metrics: ControllerMetrics | undefined;
  /**
   * Asks for a full pass. Absent in a mode that retries nothing on a timer of
   * its own (manifest mode: its next pass is the next file change or
   * gcInterval).
   */
  fullPass?: () => void;
  /** Told of an error before the retry is set: what a failed pass leaves uncertain (live mode: SPIRE's entries, listed again). */
  onError?: () => void;
}

/**
 * What follows a pass, from its outcome: one policy for every pass of a mode.
 * The backoff (1 s doubling to 30 s) is the full pass's, as controller-runtime
 * keeps a rate limiter per item: a pod pass that succeeds says nothing of
 * whether the next full pass (which lists SPIRE) will, so it resets nothing.
 * The backoff's retry and a fixed-delay follow-up have a timer each: neither
 * replaces the other.
 */
export class RetryPolicy {
  private readonly backoff = new Backoff(1000, 30_000);
  private readonly retry: Later;
  private readonly followUp: Later;

  constructor(private readonly o: RetryPolicyOptions) {
    const fullPass = () => o.fullPass?.();
    this.retry = new Later(fullPass);
    this.followUp = new Later(fullPass);
  }

  /** Acts on the outcome of a pass: a full one, or a pod pass beside it. */
  settle(pass: 'full' | 'pod', outcome: PassOutcome, log: Logger): void {
    switch (outcome.result) {
      case 'success':
        if (pass === 'full') this.backoff.reset();
        return;
      case 'error':
        this.o.onError?.();
        log.error({ err: outcome.err }, 'reconcile pass failed');
        this.o.metrics?.passFailed();
        return this.afterBackoff();
      case 'requeue':
        return this.afterBackoff();
      case 'requeue-after':
        if (outcome.ms === 0) this.o.fullPass?.();
        else if (this.o.fullPass) this.followUp.in(outcome.ms);
    }
  }

  /** Shutdown: no retry or follow-up is asked for any more. */
  stop(): void {
    this.retry.cancel();
    this.followUp.cancel();
  }

  private afterBackoff(): void {
    if (this.o.fullPass) this.retry.in(this.backoff.next());
  }
}
