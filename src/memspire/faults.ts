import type { ItemStatus } from './status.js';

interface PlannedFailure {
  remaining: number;
  status: ItemStatus;
  method?: string;
}

/**
 * Faults for tests and demos: a delay answers every call late, a stall holds
 * every call until released, and planned failures answer the next N calls (optionally of one method) with a
 * gRPC status instead of running them.
 */
export class FaultInjector {
  private gate: { promise: Promise<void>; release: () => void } | undefined;
  private readonly failures: PlannedFailure[] = [];
  private delayMs = 0;

  /**
   * Every call from now on is answered `ms` later (0: at once), as a slow or
   * overloaded SPIRE server answers: calls overlap, each waits on its own.
   */
  delay(ms: number): void {
    this.delayMs = Math.max(0, ms);
  }

  /** Every call from now on waits until `release()`. */
  stall(): void {
    if (this.gate) return;
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    this.gate = { promise, release };
  }

  release(): void {
    this.gate?.release();
    this.gate = undefined;
  }

  /** The next `count` calls (of `method`, when given, e.g. "BatchCreateEntry") fail with `code`. */
  failNext(count: number, code: number, opts: { message?: string; method?: string } = {}): void {
    this.failures.push({
      remaining: count,
      status: { code, message: opts.message ?? 'injected fault' },
      method: opts.method || undefined,
    });
  }

  clear(): void {
    this.failures.length = 0;
    this.delayMs = 0;
    this.release();
  }

  /** Runs before each call; resolves to a status to fail with, or undefined to proceed. */
  async before(method: string): Promise<ItemStatus | undefined> {
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.gate) await this.gate.promise;
    const planned = this.failures.find((f) => f.remaining > 0 && (f.method === undefined || f.method === method));
    if (!planned) return undefined;
    planned.remaining--;
    if (planned.remaining === 0) this.failures.splice(this.failures.indexOf(planned), 1);
    return planned.status;
  }
}
