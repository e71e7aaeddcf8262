import type { ApplyResult } from './apply.js';
import type { DeclaredState, RenderFailure } from './declare.js';
import { DOMAIN_ENDS_WITH_DOT } from '../spiffe/dns.js';
import type { Cause, Owner, PassProblem } from '../api/index.js';
import { rpcOutcome } from '../spire/index.js';

export { logProblems, objectName, type PassProblem } from '../api/index.js';
import type { Plan } from './plan.js';

export function describeRenderFailure(f: Pick<RenderFailure, 'pod' | 'message'>): string {
  return `${f.pod ? `pod ${f.pod}: ` : ''}${f.message}`;
}

const CONFLICT_CAUSE = 'held by an entry outside entryScope; not created';

export function describeEntryConflict(c: { spec: Pick<Plan['conflicts'][number]['spec'], 'spiffeId'>; foreignIds: readonly string[] }): string {
  return `${c.spec.spiffeId} is held by entry ${c.foreignIds.join(', ')} outside entryScope; not created`;
}

function omissionCause(missing: readonly string[]): string {
  return `set without federatesWith ${missing.join(', ')}: SPIRE has no bundle for ${missing.length > 1 ? 'them' : 'it'} yet`;
}

/** One omission in words, for logs, events and `plan`. */
export function describeFederationOmission(o: Pick<DeclaredState['federationOmissions'][number], 'spiffeId' | 'missing'>): string {
  return `${o.spiffeId} ${omissionCause(o.missing)}`;
}

/** How many instances a grouped line shows as examples. */
const EXAMPLES = 3;
/**
 * How many causes of one kind a line each, per object and pass; the rest of
 * that object's failures of that kind make one more line. A cause is worded
 * without any pod's values, so more than a few per object is rare (a
 * template error quoting a number the pod supplied); this bounds the lines
 * whatever the causes are.
 */
export const CAUSES_PER_OBJECT = 5;

/**
 * One failure as a report groups it: the object it is about, the kind of
 * failure (which also keeps apart what is worded differently: an op, a gRPC
 * code), its cause, the instance it is about (a pod, an entry's SPIFFE ID)
 * and its whole message.
 */
export interface GroupItem {
  owner?: Owner;
  kind: string;
  cause: Cause;
  subject?: string;
  /** What it says whole; the cause as shown when every failure of its group says the same. */
  message: string;
  /** Its line when it is the only one of its group: as it always read. */
  line: string;
}

/** How a kind of failure is worded and reported. */
interface GroupWording {
  level: PassProblem['level'];
  event?: PassProblem['event'];
  /** What `count` of them are, in front of the cause: `1000 pods`, `create of 3 entries: INVALID_ARGUMENT`. */
  many: (count: number) => string;
}

const ownerKey = (o: Owner | undefined): string => (o ? `${o.kind}\u0000${o.name}` : '');

/** The `k` items with the smallest sort keys, in that order, without sorting them all (a group may hold every pod). */
function smallest<T>(items: readonly T[], k: number, key: (t: T) => string): T[] {
  const out: { key: string; item: T }[] = [];
  for (const item of items) {
    const s = key(item);
    if (out.length === k && s >= out[k - 1]!.key) continue;
    let i = out.length;
    while (i > 0 && out[i - 1]!.key > s) i--;
    out.splice(i, 0, { key: s, item });
    if (out.length > k) out.pop();
  }
  return out.map((o) => o.item);
}

function example(item: GroupItem, withValue: boolean): string {
  const value = withValue ? item.cause.value : undefined;
  if (item.subject === undefined) return value ?? item.message;
  return value === undefined ? item.subject : `${item.subject}: ${value}`;
}

/**
 * The lines for one group of failures sharing object, kind and cause. When
 * every message is the same, that message is the cause as shown and the
 * examples name instances only; otherwise the cause's text is shown and each
 * example adds its value. Examples are the first instances in sorted order,
 * so the same set words the same line whatever order the pass met it in.
 */
function groupLine(items: readonly GroupItem[], wording: GroupWording): string {
  const first = items[0]!;
  if (items.length === 1) return first.line;
  const same = items.every((i) => i.message === first.message);
  const shown = smallest(items, EXAMPLES, (i) => i.subject ?? i.cause.value ?? i.message).map((i) => example(i, !same));
  return `${wording.many(items.length)}: ${same ? first.message : first.cause.text} (e.g. ${shown.join(', ')})`;
}

/**
 * Groups failures by object, kind and cause: one line (and one Event) per
 * group, with the count and a few examples, not one per pod or entry. An
 * object with more than CAUSES_PER_OBJECT causes of one kind gets its
 * largest groups a line each and the rest one line together. Pure; the order
 * of the lines is the order each group was first met.
 */
export function groupFailures(items: readonly GroupItem[], wordings: Readonly<Record<string, GroupWording>>): PassProblem[] {
  const groups = new Map<string, GroupItem[]>();
  for (const item of items) {
    const k = `${ownerKey(item.owner)}\u0000${item.kind}\u0000${item.cause.text}`;
    const g = groups.get(k);
    if (g) g.push(item);
    else groups.set(k, [item]);
  }
  // Per object and kind, the groups beyond the largest few are told as one.
  const perObject = new Map<string, string[]>();
  for (const [k, g] of groups) {
    const o = `${ownerKey(g[0]!.owner)}\u0000${g[0]!.kind}`;
    const list = perObject.get(o);
    if (list) list.push(k);
    else perObject.set(o, [k]);
  }
  const folded = new Map<string, GroupItem[][]>();
  for (const [o, keys] of perObject) {
    if (keys.length <= CAUSES_PER_OBJECT) continue;
    const bySize = [...keys].sort((a, b) => groups.get(b)!.length - groups.get(a)!.length || (a < b ? -1 : a > b ? 1 : 0));
    folded.set(
      o,
      bySize.slice(CAUSES_PER_OBJECT).map((k) => groups.get(k)!),
    );
    for (const k of bySize.slice(CAUSES_PER_OBJECT)) groups.delete(k);
  }
  const problem = (first: GroupItem, key: string, message: string): PassProblem => {
    const w = wordings[first.kind]!;
    return { owner: first.owner, level: w.level, event: w.event, message, key };
  };
  const out: PassProblem[] = [];
  for (const [k, g] of groups) {
    const first = g[0]!;
    out.push(problem(first, k, groupLine(g, wordings[first.kind]!)));
    const o = `${ownerKey(first.owner)}\u0000${first.kind}`;
    const rest = folded.get(o);
    if (rest === undefined) continue;
    // Told right after the object's first group of that kind, once.
    folded.delete(o);
    const all = rest.flat();
    const sample = smallest(all, 1, (i) => i.line)[0]!.line;
    // Its key is not any cause's: causes are keyed under the object and kind, then a NUL.
    out.push(problem(first, `${o}\u0001other causes`, `${wordings[first.kind]!.many(all.length)}: ${rest.length} other causes (e.g. ${sample})`));
  }
  return out;
}

/**
 * The cause of a write SPIRE refused, from its message: SPIRE sends text
 * only, and quotes the values it refuses (`invalid parent ID: "spiffe://..."
 * is not a member of trust domain "example.org"`, docs/spire-semantics.md
 * §1.2). The quoted strings are the instance (its value); the rest is the
 * cause.
 */
export function spireRefusalCause(message: string): Cause {
  const quoted = /"(?:[^"\\]|\\.)*"/g;
  const values = message.match(quoted);
  if (values === null) return { text: message };
  return { text: message.replace(quoted, '"…"'), value: values.join(' ') };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const WORDINGS: Record<string, GroupWording> = {
  'render-pod': { level: 'warn', event: 'RenderFailed', many: (n) => plural(n, 'pod', 'pods') },
  'render-object': { level: 'warn', event: 'RenderFailed', many: (n) => plural(n, 'failure', 'failures') },
  conflict: { level: 'warn', event: 'EntryConflict', many: (n) => plural(n, 'entry', 'entries') },
  omission: { level: 'warn', event: 'FederatesWithIncomplete', many: (n) => plural(n, 'entry', 'entries') },
};

function applyWording(op: string, codeName: string, refused: boolean): GroupWording {
  return {
    level: 'error',
    event: refused ? 'EntryRefused' : undefined,
    many: (n) => `${op} of ${plural(n, 'entry', 'entries')}: ${codeName}`,
  };
}

function renderFailureItems(failures: readonly RenderFailure[]): GroupItem[] {
  return failures.map((f) =>
    f.pod === undefined
      ? { owner: f.owner, kind: 'render-object', cause: { text: f.message }, message: f.message, line: f.message }
      : { owner: f.owner, kind: 'render-pod', cause: f.cause ?? { text: f.message }, subject: f.pod, message: f.message, line: describeRenderFailure(f) },
  );
}

export function describeUnknownNamespace(namespace: string, pods: number): string {
  return `namespace ${namespace} is not known (no Namespace object): the entries of its ${pods} pod${pods === 1 ? '' : 's'} are kept, and none is created or changed`;
}

/**
 * Everything an entry pass (full or pods only) has to report, in that order,
 * with the failures of one object grouped by cause: one line per object and
 * cause per pass (groupFailures), however many pods or entries fail.
 */
export function entryPassProblems(r: {
  declared: Pick<DeclaredState, 'renderFailures'> & Partial<Pick<DeclaredState, 'federationOmissions' | 'unknownNamespaces'>>;
  plan: Pick<Plan, 'conflicts'>;
  applied?: Pick<ApplyResult, 'failures'>;
}): PassProblem[] {
  const wordings: Record<string, GroupWording> = { ...WORDINGS };
  const writes: GroupItem[] = [];
  for (const f of r.applied?.failures ?? []) {
    const kind = `${f.op} ${f.codeName}`;
    wordings[kind] ??= applyWording(f.op, f.codeName, f.op !== 'delete' && rpcOutcome(f.codeName, f.op) !== 'transient');
    writes.push({
      owner: f.owner,
      kind,
      cause: spireRefusalCause(f.message),
      subject: f.spiffeId ?? f.id,
      message: f.message,
      // An ID a create asked for is new every pass: naming it would word a lasting refusal anew each time.
      line: `${f.op} entry ${f.op === 'create' && f.spiffeId ? `for ${f.spiffeId}` : `${f.id}${f.spiffeId ? ` (${f.spiffeId})` : ''}`}: ${f.codeName}: ${f.message}`,
    });
  }
  return [
    ...groupFailures(renderFailureItems(r.declared.renderFailures), wordings),
    ...[...(r.declared.unknownNamespaces ?? [])].map(([ns, pods]): PassProblem => ({ level: 'warn', message: describeUnknownNamespace(ns, pods), key: `unknown namespace\u0000${ns}` })),
    ...groupFailures(
      r.plan.conflicts.map((c) => ({
        owner: c.owner,
        kind: 'conflict',
        cause: { text: CONFLICT_CAUSE, value: `entry ${c.foreignIds.join(', ')}` },
        subject: c.spec.spiffeId,
        message: describeEntryConflict(c),
        line: describeEntryConflict(c),
      })),
      wordings,
    ),
    ...groupFailures(
      (r.declared.federationOmissions ?? []).map((o) => ({
        owner: o.owner,
        kind: 'omission',
        cause: { text: omissionCause(o.missing) },
        subject: o.spiffeId,
        message: describeFederationOmission(o),
        line: describeFederationOmission(o),
      })),
      wordings,
    ),
    ...groupFailures(writes, wordings),
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
