import { objectName, type PassProblem } from '../api/index.js';

/** When a problem was last reported, and as what. */
export interface Reported {
  message: string;
  at: number;
}

/** A problem's identity across passes: its object, its Event reason (or level), and its key or message. */
function reportKey(p: PassProblem): string {
  return `${p.owner ? objectName(p.owner) : ''}\u0000${p.event ?? p.level}\u0000${p.key ?? p.message}`;
}

/**
 * Which of a pass's problems to report (log, and record as Events), given
 * what was reported before. Pure: it returns what is due and what to
 * remember.
 *
 * A complete pass (a full pass, which sees every problem) reports a problem
 * that is new, whose message changed (a grouped line's count or examples:
 * its set of pods changed), or that was last reported `intervalMs` ago or
 * more; what it does not see is forgotten, so a problem that comes back is
 * new again. A partial pass (a pod pass, which sees only its own pods)
 * reports only problems not known at all (a new cause) and forgets nothing:
 * its counts are of its pods only, and the full pass that follows it
 * reports the whole set when that changed.
 */
export function dueProblems(
  known: ReadonlyMap<string, Reported>,
  problems: readonly PassProblem[],
  complete: boolean,
  now: number,
  intervalMs: number,
): { due: PassProblem[]; known: Map<string, Reported> } {
  const due: PassProblem[] = [];
  const next = complete ? new Map<string, Reported>() : new Map(known);
  for (const p of problems) {
    const k = reportKey(p);
    const last = next.get(k) ?? known.get(k);
    const stale = last === undefined || (complete && (last.message !== p.message || now - last.at >= intervalMs));
    if (stale) {
      due.push(p);
      next.set(k, { message: p.message, at: now });
    } else if (complete) {
      next.set(k, last);
    }
  }
  return { due, known: next };
}

/**
 * What the log and Events have been told, per source of problems (the
 * federation and entry parts of a pass report apart): dueProblems over the
 * memory of each.
 */
export class ProblemReports {
  private readonly known = new Map<string, Map<string, Reported>>();

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The problems of this pass to report now. */
  due(source: string, problems: readonly PassProblem[], complete: boolean): PassProblem[] {
    const r = dueProblems(this.known.get(source) ?? new Map(), problems, complete, this.now(), this.intervalMs);
    this.known.set(source, r.known);
    return r.due;
  }

  /** Problems remembered, over every source. */
  get remembered(): number {
    let n = 0;
    for (const m of this.known.values()) n += m.size;
    return n;
  }
}
