/** Doubling delays between `minMs` and `maxMs`, without jitter (upstream's jpillora/backoff settings). */
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
