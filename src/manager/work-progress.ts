/**
 * Progress of long work in live mode (a cold start at 100,000 pods takes
 * seconds to minutes against a real API server): the pods the first list
 * has brought, and the writes of a pass against their total, logged at info
 * at most every `intervalMs` with a rate and an estimate of the time left,
 * and kept as numbers for the metrics. Short work logs nothing.
 */
interface ProgressSink {
  info(obj: object, msg: string): void;
}

interface ProgressGauges {
  setPodsListed(n: number): void;
  setPassWrites(done: number, total: number): void;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export class ProgressReporter {
  private listStarted: number | undefined;
  private listed = 0;
  /** Entries written for pods of the first list while it is still coming in. */
  private coldWritten = 0;
  private lastListLog = 0;
  private writes: { started: number; total: number; lastLog: number; what: string } | undefined;


  constructor(
    private readonly log: ProgressSink,
    private readonly gauges?: ProgressGauges,
    private readonly now: () => number = Date.now,
    private readonly intervalMs = 5_000,
  ) {}

  /** A page of the first pod list arrived: `n` more pods. */
  podsListed(n: number): void {
    const now = this.now();
    if (this.listStarted === undefined) {
      this.listStarted = now;
      this.lastListLog = now;
    }
    this.listed += n;
    this.gauges?.setPodsListed(this.listed);
    if (now - this.lastListLog < this.intervalMs) return;
    this.lastListLog = now;
    const rate = this.listed / Math.max(0.001, (now - this.listStarted) / 1000);
    this.log.info(
      { podsListed: this.listed, perSecond: Math.round(rate), entriesWritten: this.coldWritten },
      `listing pods: ${fmt(this.listed)} so far (${fmt(rate)}/s); entries written for them so far: ${fmt(this.coldWritten)}`,
    );
  }

  /** Entries written for pods of the first list, before it is complete. */
  writtenWhileListing(n: number): void {
    this.coldWritten += n;
  }

  /** The first pod list is complete. Said only when it took long enough for progress to have been logged. */
  podsSynced(): void {
    if (this.listStarted === undefined) return;
    const seconds = (this.now() - this.listStarted) / 1000;
    if (seconds * 1000 >= this.intervalMs) {
      this.log.info(
        { podsListed: this.listed, seconds, entriesWritten: this.coldWritten },
        `listed ${fmt(this.listed)} pods in ${seconds.toFixed(1)} s; entries written for them so far: ${fmt(this.coldWritten)} (the full pass writes the rest)`,
      );
    }
    this.listStarted = undefined;
  }

  /**
   * `done` of a pass's `total` writes (creates, updates, deletes) have been
   * answered; 0 when its writes start, `total` when they are over.
   */
  written(what: string, done: number, total: number): void {
    const now = this.now();
    if (done === 0 || !this.writes) this.writes = { started: now, total, lastLog: now, what };
    const w = this.writes;
    this.gauges?.setPassWrites(done, total);
    if (done >= total) {
      const seconds = (now - w.started) / 1000;
      // Said only when it took long enough for progress to have been logged.
      if (seconds * 1000 >= this.intervalMs) this.log.info({ total, seconds }, `${what}: ${fmt(total)} entries written in ${seconds.toFixed(1)} s`);
      this.writes = undefined;
      return;
    }
    if (now - w.lastLog < this.intervalMs) return;
    w.lastLog = now;
    const rate = done / Math.max(0.001, (now - w.started) / 1000);
    const eta = rate > 0 ? (total - done) / rate : undefined;
    this.log.info(
      { written: done, total, perSecond: Math.round(rate), etaSeconds: eta !== undefined ? Math.round(eta) : undefined },
      `${what}: ${fmt(done)} of ${fmt(total)} entries written (${fmt(rate)}/s${eta !== undefined ? `, about ${Math.ceil(eta)} s left` : ''})`,
    );
  }
}
