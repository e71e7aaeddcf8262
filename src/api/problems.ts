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
