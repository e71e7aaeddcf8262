import type { ApplyResult } from './apply.js';
import type { DeclaredState, RenderFailure } from './declare.js';
import { DOMAIN_ENDS_WITH_DOT } from '../spiffe/dns.js';
import type { Owner } from './model.js';
import type { Plan } from './plan.js';

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

export function describeRenderFailure(f: Pick<RenderFailure, 'pod' | 'message'>): string {
  return `${f.pod ? `pod ${f.pod}: ` : ''}${f.message}`;
}

export function describeEntryConflict(c: { spec: Pick<Plan['conflicts'][number]['spec'], 'spiffeId'>; foreignIds: readonly string[] }): string {
  return `${c.spec.spiffeId} is held by entry ${c.foreignIds.join(', ')} outside entryScope; not created`;
}

/** One omission in words, for logs, events and `plan`. */
export function describeFederationOmission(o: Pick<DeclaredState['federationOmissions'][number], 'spiffeId' | 'missing'>): string {
  return `${o.spiffeId} set without federatesWith ${o.missing.join(', ')}: SPIRE has no bundle for ${o.missing.length > 1 ? 'them' : 'it'} yet`;
}

/** Everything an entry pass (full or pods only) has to report, in that order. */
export function entryPassProblems(r: { declared: Pick<DeclaredState, 'renderFailures'> & Partial<Pick<DeclaredState, 'federationOmissions'>>; plan: Pick<Plan, 'conflicts'>; applied?: Pick<ApplyResult, 'failures'> }): PassProblem[] {
  return [
    ...r.declared.renderFailures.map((f): PassProblem => ({ owner: f.owner, level: 'warn', event: 'RenderFailed', message: describeRenderFailure(f) })),
    ...r.plan.conflicts.map((c): PassProblem => ({ owner: c.owner, level: 'warn', event: 'EntryConflict', message: describeEntryConflict(c) })),
    ...(r.declared.federationOmissions ?? []).map((o): PassProblem => ({ owner: o.owner, level: 'warn', event: 'FederatesWithIncomplete', message: describeFederationOmission(o) })),
    ...(r.applied?.failures ?? []).map((f): PassProblem => ({ ...(f.owner ? { owner: f.owner } : {}), level: 'error', message: `${f.op} entry ${f.id}: ${f.codeName}: ${f.message}` })),
  ];
}

/**
 * With clusterDomain empty, `{{ .ClusterDomain }}` in a DNS name template
 * gives a name ending in a dot (`web.ns.svc.`), which SPIRE refuses, so the
 * pod's entry fails to render. The render failure names the name; this says
 * the cause. Undefined when no failure is of that kind.
 */
export function emptyClusterDomainNote(failures: readonly Pick<RenderFailure, 'pod' | 'message'>[], clusterDomain: string): string | undefined {
  if (clusterDomain !== '') return undefined;
  const dotted = failures.filter((f) => f.pod !== undefined && f.message.endsWith(DOMAIN_ENDS_WITH_DOT));
  if (dotted.length === 0) return undefined;
  const n = dotted.length;
  return `clusterDomain is empty, so ${n} pod entr${n === 1 ? 'y fails' : 'ies fail'} to render with a DNS name ending in "." (e.g. pod ${dotted[0]!.pod}): set clusterDomain in the config or --cluster-domain`;
}
