import type { Owner } from './objects.js';

/**
 * What a pass could not do, worded once for every place that reports it:
 * the controller's log and Events, manifest mode's log, and `plan`. The
 * message does not repeat the object (an Event is attached to it; a log
 * line puts `objectName` in front).
 */
export interface PassProblem {
  owner?: Owner;
  level: 'warn' | 'error';
  /** The Event reason, for problems reported as Events on their object. */
  event?: 'RenderFailed' | 'EntryConflict' | 'FederatesWithIncomplete' | 'TrustDomainConflict' | 'Invalid';
  message: string;
}

export const objectName = (o: Owner): string => `${o.kind}/${o.name}`;

/** A log line: the object first, when there is one. */
export function problemLine(p: PassProblem): string {
  return p.owner ? `${objectName(p.owner)}: ${p.message}` : p.message;
}

/** Each problem as a log line at its level (the controller's log in both modes). */
export function logProblems(log: { warn(line: string): void; error(line: string): void }, problems: readonly PassProblem[]): void {
  for (const p of problems) {
    if (p.level === 'error') log.error(problemLine(p));
    else log.warn(problemLine(p));
  }
}
