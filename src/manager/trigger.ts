/**
 * Runs `work` once per burst of triggers, never concurrently, and never
 * loses a trigger: one that arrives during a pass schedules exactly one more
 * pass after it. (spire-controller-manager drops triggers that arrive
 * mid-pass, so a change can wait up to gcInterval.)
 */
export class CoalescingTrigger {
  private running: Promise<void> | undefined;
  private pending = false;
  private stopped = false;

  constructor(private readonly work: () => Promise<void>) {}

  trigger(): void {
    if (this.stopped) return;
    if (this.running) {
      this.pending = true;
      return;
    }
    this.running = this.loop();
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.pending = false;
        await this.work();
      } while (this.pending && !this.stopped);
    } finally {
      this.running = undefined;
    }
  }

  /** No more passes; resolves when the one in flight (if any) has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** A pass is running (and perhaps another pending). */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Resolves when no pass is running or pending. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}
