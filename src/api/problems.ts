import { printableName } from './names.js';
import type { Owner } from './objects.js';

/**
 * A problem with one field of one object, worded for an operator: the one
 * shape every check returns (rendering, label selectors, manifests, the CRD
 * schema, federation, the webhook). `field` is a dotted path from the object
 * (`spec.podSelector.matchLabels`).
 */
export interface FieldProblem {
  field: string;
  message: string;
}

/** One line for an object's field problems: `Kind name: field: message; ...`. */
export function formatFieldProblems(kind: string, name: string, problems: readonly FieldProblem[]): string {
  return problems.map((e) => `${kind} ${printableName(name)}: ${e.field}: ${e.message}`).join('; ');
}

/**
 * Why one pod's entry (or one entry) failed, in two parts: `text` is what
 * every instance failing for the same reason has in common (the field and
 * the rule it broke, with no pod's name and no rendered value in it), and
 * `value` what this instance rendered or sent (`"web-0.shop."`). Reports
 * group failures by object and `text`, and show a few values as examples.
 */
export interface Cause {
  text: string;
  value?: string;
}

/** A failure worded whole (`message`, for `plan`, `explain` and a lone pod's report) and split for grouping (`cause`). */
export interface Failure {
  message: string;
  cause: Cause;
}

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
  event?: 'RenderFailed' | 'EntryConflict' | 'EntryRefused' | 'FederatesWithIncomplete' | 'TrustDomainConflict' | 'Invalid';
  message: string;
  /**
   * What stays the same while the problem persists (its object, reason and
   * cause) when the message does not: a grouped line's count and examples
   * change as pods come and go. Reports repeat a problem when its message
   * under this key changes (manager/problem-reports.ts); the message is the
   * key when this is absent.
   */
  key?: string;
}

export const objectName = (o: Owner): string => `${o.kind}/${o.name}`;

/** A log line: the object first, when there is one. */
function problemLine(p: PassProblem): string {
  return p.owner ? `${objectName(p.owner)}: ${p.message}` : p.message;
}

/** Each problem as a log line at its level (the controller's log in both modes). */
export function logProblems(log: { warn(line: string): void; error(line: string): void }, problems: readonly PassProblem[]): void {
  for (const p of problems) {
    if (p.level === 'error') log.error(problemLine(p));
    else log.warn(problemLine(p));
  }
}
