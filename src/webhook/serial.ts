/**
 * Runs synchronous jobs one per turn of the event loop, in the order given.
 * Checking a review is synchronous and can take tens of milliseconds for the
 * largest body accepted; bodies that arrive together would otherwise be
 * checked back to back in one turn, keeping the controller's timers (the
 * Lease renewal among them) and I/O waiting for all of them.
 */
export class Serial {
  private readonly jobs: (() => void)[] = [];
  private scheduled = false;

  run<T>(job: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push(() => {
        try {
          resolve(job());
        } catch (err) {
          reject(err as Error);
        }
      });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.jobs.length === 0) return;
    this.scheduled = true;
    // setImmediate runs after the loop's I/O; one scheduled from there runs in the next turn.
    setImmediate(() => {
      this.scheduled = false;
      this.jobs.shift()!();
      this.schedule();
    });
  }
}
