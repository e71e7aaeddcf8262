import { rpcOutcome } from '../spire/index.js';
import type { ApplyFailure, ApplyResult } from './apply.js';
import type { DeclaredState, RenderFailure } from './declare.js';
import { DOMAIN_ENDS_WITH_DOT } from '../spiffe/dns.js';
import type { Owner, PassProblem } from '../api/index.js';

export { logProblems, objectName, type PassProblem, problemLine } from '../api/index.js';
import type { Plan } from './plan.js';

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

/** How many names a grouped line spells out before "and N more". */
const NAMED = 3;

// Sorted, so that a pass that meets the same failures in another order words them the same (and
// an Event is not recorded again for it).
function someOf(names: readonly string[]): string {
  const shown = [...names].sort().slice(0, NAMED).join(', ');
  return names.length > NAMED ? `${shown} and ${names.length - NAMED} more` : shown;
}

/**
 * Groups items that say the same thing about the same object, so that one
 * broken object makes one line per pass (and one Event), not one per pod or
 * entry: `3 pods (a/x, a/y, a/z): failed to render ...`.
 */
function grouped<T>(items: readonly T[], key: (t: T) => string, one: (t: T) => PassProblem, many: (first: T, names: string[]) => PassProblem, name: (t: T) => string): PassProblem[] {
  const groups = new Map<string, T[]>();
  for (const t of items) {
    const k = key(t);
    const g = groups.get(k);
    if (g) g.push(t);
    else groups.set(k, [t]);
  }
  return [...groups.values()].map((g) => (g.length === 1 ? one(g[0]!) : many(g[0]!, g.map(name))));
}

const ownerKey = (o: Owner | undefined): string => (o ? `${o.kind}\u0000${o.name}` : '');

function renderFailureProblems(failures: readonly RenderFailure[]): PassProblem[] {
  const problem = (f: RenderFailure, message: string): PassProblem => ({ owner: f.owner, level: 'warn', event: 'RenderFailed', message });
  return grouped(
    failures,
    (f) => `${ownerKey(f.owner)}\u0000${f.pod === undefined ? 'object' : 'pod'}\u0000${f.message}`,
    (f) => problem(f, describeRenderFailure(f)),
    (f, pods) => problem(f, `${pods.length} pods (${someOf(pods)}): ${f.message}`),
    (f) => f.pod ?? '',
  );
}

/**
 * SPIRE answered no for the item itself: worth an Event on its object, as
 * `kubectl describe` is where its owner looks. A transient failure (SPIRE
 * unreachable, a deadline) says nothing about the object: the log and the
 * metric report it, and the retry may well succeed.
 */
const refusedBySpire = (f: Pick<ApplyFailure, 'op' | 'codeName'>): boolean => rpcOutcome(f.codeName, f.op) !== 'transient';

function applyFailureProblems(failures: readonly ApplyFailure[]): PassProblem[] {
  const problem = (f: ApplyFailure, message: string): PassProblem => ({
    ...(f.owner ? { owner: f.owner } : {}),
    level: 'error',
    ...(refusedBySpire(f) ? { event: 'EntryRefused' as const } : {}),
    message,
  });
  return grouped(
    failures,
    (f) => `${ownerKey(f.owner)}\u0000${f.op}\u0000${f.codeName}\u0000${f.message}`,
    (f) => problem(f, `${f.op} entry ${f.op === 'create' ? `for ${f.spiffeId}` : f.id}: ${f.codeName}: ${f.message}`),
    (f, names) => problem(f, `${f.op} of ${names.length} entries (${someOf(names)}): ${f.codeName}: ${f.message}`),
    // An ID a create asked for is new every pass, so naming it would word a lasting refusal anew each time (and post its Event again).
    (f) => (f.op === 'create' ? f.spiffeId : f.id),
  );
}

export function describeUnknownNamespace(namespace: string, pods: number): string {
  return `namespace ${namespace} is not known (no Namespace object): the entries of its ${pods} pod${pods === 1 ? '' : 's'} are kept, and none is created or changed`;
}

/**
 * Everything an entry pass (full or pods only) has to report, in that order,
 * with repeated failures of one object grouped into one line per pass.
 */
export function entryPassProblems(r: {
  declared: Pick<DeclaredState, 'renderFailures'> & Partial<Pick<DeclaredState, 'federationOmissions' | 'unknownNamespaces'>>;
  plan: Pick<Plan, 'conflicts'>;
  applied?: Pick<ApplyResult, 'failures'>;
}): PassProblem[] {
  return [
    ...renderFailureProblems(r.declared.renderFailures),
    ...[...(r.declared.unknownNamespaces ?? [])].map(([ns, pods]): PassProblem => ({ level: 'warn', message: describeUnknownNamespace(ns, pods) })),
    ...r.plan.conflicts.map((c): PassProblem => ({ owner: c.owner, level: 'warn', event: 'EntryConflict', message: describeEntryConflict(c) })),
    ...(r.declared.federationOmissions ?? []).map((o): PassProblem => ({ owner: o.owner, level: 'warn', event: 'FederatesWithIncomplete', message: describeFederationOmission(o) })),
    ...applyFailureProblems(r.applied?.failures ?? []),
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
