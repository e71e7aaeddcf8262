import type { Logger } from 'pino';
import type { PassProblem } from '../api/index.js';
import { emptyClusterDomainNote, entryPassProblems, type EntryPassResult, logProblems } from '../entries/index.js';
import { EVENT_REPEAT_MS, type EventRecorder } from '../kube/events.js';
import { type ControllerMetrics, passCounts } from './metrics.js';
import { ProblemReports } from './problem-reports.js';

/** What the line after a full pass says: the pass's counts, as the metrics have them, and how long it took. */
export interface PassReport {
  created: number;
  updated: number;
  deleted: number;
  failed: number;
  kept: number;
  conflicts: number;
  renderFailures: number;
  ms: number;
}

/** The report of a full pass that reached its entries. */
export function passReport(result: Pick<EntryPassResult, 'applied' | 'declared' | 'plan'>, seconds: number): PassReport {
  const { created, updated, deleted, failed, kept, conflicts, renderFailures } = passCounts(result);
  return { created, updated, deleted, failed, kept, conflicts, renderFailures, ms: Math.round(seconds * 1000) };
}

/**
 * How a mode says its full passes, each with a "reconciled" line:
 * - `every pass at info`: manifest mode, where passes come from file changes
 *   and gcInterval and the log is the only place that shows them;
 * - `first of each term at info`: live mode, where a full pass follows every
 *   burst of pod events and runs every gcInterval, and statuses, Events and
 *   metrics show its results: "reconciled" is at debug, and the first pass
 *   of each term is also said at info in words (what a migration checks:
 *   that taking over wrote nothing).
 */
export type PassLines = 'every pass at info' | 'first of each term at info';

export interface PassReporterOptions {
  lines: PassLines;
  clusterDomain: string;
  metrics: ControllerMetrics | undefined;
  /** Where problems with an Event reason are also recorded on their objects (live mode); without it they are logged only. */
  events?: EventRecorder;
}

/**
 * What the log, the Events and the metrics are told after a pass, the same in
 * live and manifest mode. Remembers what it told, so that a problem that
 * persists is told again only when it changes or after the interval Events
 * repeat at, and a note is said once while it lasts.
 */
export class PassReporter {
  private readonly reported: ProblemReports;
  private firstOfTermDue: boolean;
  private dottedSaid = false;

  constructor(private readonly o: PassReporterOptions) {
    this.reported = new ProblemReports(o.events?.intervalMs ?? EVENT_REPEAT_MS);
    this.firstOfTermDue = o.lines === 'first of each term at info';
  }

  /** A term began: its first full pass is said in words (with `first of each term at info`). */
  termStarted(): void {
    this.firstOfTermDue = this.o.lines === 'first of each term at info';
  }

  /**
   * Problems due now, logged, and where the problem has an Event reason,
   * recorded on its object too. `complete` is false for a pod pass, which sees
   * its own pods' problems only (see dueProblems).
   */
  problems(source: 'federation' | 'entries', problems: readonly PassProblem[], complete: boolean, log: Logger): void {
    const due = this.reported.due(source, problems, complete);
    logProblems(log, due);
    for (const p of due) if (p.event && p.owner) this.o.events?.warn(p.owner, p.event, p.message);
  }

  /** The report of a full pass that reached its entries: its entries' problems, its line, a note on its render failures, its metrics. */
  fullPass(result: EntryPassResult, seconds: number, log: Logger): void {
    this.problems('entries', entryPassProblems(result), true, log);
    const report = passReport(result, seconds);
    if (this.o.lines === 'every pass at info') log.info(report, 'reconciled');
    else log.debug(report, 'reconciled');
    if (this.firstOfTermDue) {
      this.firstOfTermDue = false;
      log.info(report, firstOfTermLine(report, result));
    }
    this.noteEmptyClusterDomain(result, log);
    this.o.metrics?.observePass(passCounts(result), seconds);
  }

  /** Render failures caused by an empty clusterDomain: the cause said once while they last. */
  private noteEmptyClusterDomain(result: EntryPassResult, log: Logger): void {
    const note = emptyClusterDomainNote(result.declared.renderFailures, this.o.clusterDomain);
    if (note && !this.dottedSaid) log.warn(note);
    this.dottedSaid = note !== undefined;
  }
}

/** The first full pass of a term in words: what taking over did (a swap from spire-controller-manager: nothing written). */
function firstOfTermLine(r: PassReport, result: Pick<EntryPassResult, 'reused' | 'declared'>): string {
  // A pass that is an earlier term's again (PassMemo) keeps no declaration to count.
  const declared = result.reused ? 'as the last pass found them' : `${result.declared.entries.length} declared`;
  return `first full pass as leader: ${r.created} entries created, ${r.updated} updated, ${r.deleted} deleted, ${r.failed} failed; ${declared}, ${r.kept} kept, ${r.conflicts} conflicts, ${r.renderFailures} render failures`;
}
