/**
 * Doubling delays between `minMs` and `maxMs`, without jitter (upstream's
 * jpillora/backoff settings): every retry loop of ours (webhook, informers,
 * status writes, failed passes) counts its attempts with one of these.
 */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly minMs = 1000,
    private readonly maxMs = 60_000,
  ) {}

  next(): number {
    const ms = Math.min(this.maxMs, this.minMs * 2 ** this.attempt);
    if (ms < this.maxMs) this.attempt++;
    return ms;
  }

  reset(): void {
    this.attempt = 0;
  }
}
