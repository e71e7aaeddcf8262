import { type ClusterSPIFFEID, describeLabels, describeLabelSelector, type Namespace, ownerOf, type Pod } from '../api/index.js';
import { type CurrentEntry, type Owner, type PodVerdict, type SelectionObserver, selectionRule } from '../entries/index.js';
import { describeSide, isRegistered, type PlanIndex, type SpireSide } from './explain-spire.js';
import { entryTiming, type EntryTiming } from './explain-timing.js';
import { type EntryView, entryView } from './report.js';
import { renderReport, type TableView } from './report-templates.js';

/** The selection walk's decisions about one pod, per ClusterSPIFFEID (by UID). */
interface Seen {
  otherClass?: string;
  invalid?: string;
  namespace?: { selected: false } | { selected: true; ignoredBy?: string };
  pod?: PodVerdict;
}

/** Records what the walk decided for one pod (and its namespace), and nothing else. */
export class PodTrace implements SelectionObserver {
  readonly seen = new Map<string, Seen>();

  constructor(
    private readonly podUid: string,
    private readonly namespaceName: string,
  ) {}

  private at(owner: Owner): Seen {
    let s = this.seen.get(owner.uid);
    if (!s) this.seen.set(owner.uid, (s = {}));
    return s;
  }

  otherClass(owner: Owner, className: string): void {
    if (owner.kind === 'ClusterSPIFFEID') this.at(owner).otherClass = className;
  }

  invalid(owner: Owner, message: string): void {
    this.at(owner).invalid = message;
  }

  namespace(owner: Owner, ns: Namespace, verdict: Seen['namespace']): void {
    if (ns.metadata.name === this.namespaceName) this.at(owner).namespace = verdict;
  }

  pod(owner: Owner, pod: Pod, verdict: PodVerdict): void {
    if (pod.metadata.uid === this.podUid) this.at(owner).pod = verdict;
  }
}

/** Each step of the walk, in the walk's order, up to the one that decided. */
type CheckName = 'className' | 'spec' | 'namespace' | 'namespaceSelector' | 'ignoreNamespaces' | 'podSelector' | 'fallback' | 'scheduled' | 'running' | 'render';

interface Check {
  check: CheckName;
  ok: boolean;
  detail: string;
}

/** What stopped a ClusterSPIFFEID from giving the pod an entry, or `declared` when it gave one. */
type Outcome =
  | 'other-class'
  | 'invalid'
  | 'namespace-missing'
  | 'namespace-not-selected'
  | 'namespace-ignored'
  | 'pod-not-selected'
  | 'fallback-suppressed'
  | 'unscheduled'
  | 'finished'
  | 'render-failed'
  | 'declared';

interface ObjectResult {
  object: string;
  outcome: Outcome;
  /** The deciding check, in words. */
  detail: string;
  checks: Check[];
  entry?: EntryView;
  spire?: SpireSide;
  /** federatesWith trust domains left out until SPIRE has their bundle. */
  missingFederation?: string[];
  /** For an entry on the server: when SPIRE created it, and how long after the pod could first have had it (explain-timing.ts). */
  registration?: EntryTiming;
}

interface OtherEntry {
  entry: EntryView;
  state: 'to-delete' | 'kept' | 'outside-scope';
  /** Why it is deleted or kept. */
  detail?: string;
}

export interface PodExplanation {
  pod: string;
  uid: string;
  node?: string;
  phase?: string;
  /** The pod's deletionTimestamp: it is terminating, and keeps its entries until it is gone. */
  terminating?: string;
  namespace: { name: string; found: boolean; labels?: Record<string, string> };
  /** Every entry the pod should have is on the server as declared (and it should have at least one). */
  registered: boolean;
  summary: string;
  clusterSPIFFEIDs: ObjectResult[];
  /** The pod's entries on the server that no ClusterSPIFFEID declares now. */
  otherEntries: OtherEntry[];
}

interface PodContext {
  pod: Pod;
  namespace: Namespace | undefined;
  objects: readonly ClusterSPIFFEID[];
  trace: PodTrace;
  plan: PlanIndex;
  current: readonly CurrentEntry[];
  /** How this controller selects by class, in words. */
  classRule: string;
}


/** The walk's decisions for one ClusterSPIFFEID and the pod, as checks ending at the deciding one. */
function explainObject(obj: ClusterSPIFFEID, ctx: PodContext, coverers: readonly string[]): ObjectResult {
  const object = `ClusterSPIFFEID/${obj.metadata.name}`;
  const seen = ctx.trace.seen.get(obj.metadata.uid) ?? {};
  const checks: Check[] = [];
  const done = (outcome: Outcome, ok: boolean, check: CheckName, detail: string, extra: Partial<ObjectResult> = {}): ObjectResult => {
    checks.push({ check, ok, detail });
    return { object, outcome, detail, checks, ...extra };
  };
  const pass = (check: CheckName, detail: string) => checks.push({ check, ok: true, detail });
  const nsName = ctx.pod.metadata.namespace ?? '';
  const podName = `${nsName}/${ctx.pod.metadata.name}`;

  const className = obj.spec?.className ?? '';
  if (seen.otherClass !== undefined) {
    return done('other-class', false, 'className', `className ${className ? `"${className}"` : 'unset'} is not this controller's (it reads ${ctx.classRule}), so the object is not read`);
  }
  pass('className', className ? `className "${className}" is this controller's` : `no className (this controller reads ${ctx.classRule})`);
  if (seen.invalid !== undefined) {
    return done('invalid', false, 'spec', `invalid, so no pod it selects gets an entry (and no pod entry is deleted while it is): ${seen.invalid}`);
  }
  pass('spec', 'valid');
  const ns = seen.namespace;
  if (!ns || !ctx.namespace) return done('namespace-missing', false, 'namespace', `namespace ${nsName} was not read, so no ClusterSPIFFEID reaches its pods`);
  pass('namespace', `namespace ${nsName} was read`);
  const nsLabels = describeLabels(ctx.namespace.metadata.labels);
  const nsSelector = describeLabelSelector(obj.spec?.namespaceSelector);
  if (!ns.selected) return done('namespace-not-selected', false, 'namespaceSelector', `namespaceSelector ${nsSelector} does not match namespace ${nsName} (${nsLabels})`);
  pass('namespaceSelector', `namespaceSelector ${nsSelector} matches namespace ${nsName} (${nsLabels})`);
  if (ns.ignoredBy) return done('namespace-ignored', false, 'ignoreNamespaces', `namespace ${nsName} is ignored: it matches ignoreNamespaces pattern "${ns.ignoredBy}"`);
  pass('ignoreNamespaces', `namespace ${nsName} matches no ignoreNamespaces pattern`);

  const verdict = seen.pod;
  const podSelector = describeLabelSelector(obj.spec?.podSelector);
  const podLabels = describeLabels(ctx.pod.metadata.labels);
  if (!verdict || verdict.outcome === 'not-selected') return done('pod-not-selected', false, 'podSelector', `podSelector ${podSelector} does not match the pod's labels (${podLabels})`);
  pass('podSelector', `podSelector ${podSelector} matches the pod's labels (${podLabels})`);
  if (verdict.outcome === 'fallback-suppressed') return done('fallback-suppressed', false, 'fallback', `a fallback, not applied: ${coverers.join('; ')}`);
  if (obj.spec?.fallback) pass('fallback', 'a fallback, applied: no other ClusterSPIFFEID gives the pod an entry');
  if (verdict.outcome === 'unscheduled') return done('unscheduled', false, 'scheduled', 'the pod is not scheduled yet (no spec.nodeName): it gets an entry once it is');
  pass('scheduled', `scheduled on node ${ctx.pod.spec?.nodeName}`);
  if (verdict.outcome === 'finished') return done('finished', false, 'running', `the pod has finished (phase ${ctx.pod.status?.phase}): finished pods get no entry`);
  const deleting = ctx.pod.metadata.deletionTimestamp;
  // A terminating pod still runs until its kubelet confirms: say why its entry is still there.
  pass('running', `phase ${ctx.pod.status?.phase ?? 'unknown'}${deleting ? `, terminating (deletion requested, due by ${deleting}): its entries stay until the pod is gone` : ''}`);
  if (verdict.outcome === 'failed') return done('render-failed', false, 'render', `render failed for pod ${podName}: ${verdict.failure.message}`);
  const spire = ctx.plan.side(verdict.key, ownerOf('ClusterSPIFFEID', obj));
  const missing = ctx.plan.omissions.get(`${obj.metadata.uid}\u0000${verdict.spec.spiffeId}`);
  const id = spire.state === 'registered' || spire.state === 'outdated' || spire.state === 'kept' ? spire.id : '';
  const onServer = id ? ctx.current.find((e) => e.id === id) : undefined;
  const objectCreated = obj.metadata.creationTimestamp;
  return done('declared', true, 'render', `entry ${verdict.spec.spiffeId}: ${describeSide(spire)}`, {
    entry: entryView(id, verdict.spec),
    spire,
    missingFederation: missing,
    registration: onServer ? entryTiming({ entry: onServer, pod: ctx.pod, objectCreated }) : undefined,
  });
}

/**
 * What keeps a fallback from the pod, in words (entries/declare.ts:coversFallbacks):
 * non-fallback objects that give it an entry, that select it but cannot render
 * it (it keeps the entries it has), or that are invalid and select it.
 */
function fallbackCoverers(ctx: PodContext): string[] {
  const names = (pick: (o: ClusterSPIFFEID) => boolean) =>
    ctx.objects.filter((o) => !o.spec?.fallback && pick(o)).map((o) => `ClusterSPIFFEID/${o.metadata.name}`);
  const outcome = (o: ClusterSPIFFEID) => ctx.trace.seen.get(o.metadata.uid)?.pod?.outcome;
  const giving = names((o) => outcome(o) === 'declared');
  const failing = names((o) => outcome(o) === 'failed');
  const invalid = names((o) => ctx.trace.seen.get(o.metadata.uid)?.invalid !== undefined && selects(o, ctx));
  const lines: string[] = [];
  if (giving.length > 0) lines.push(`${giving.join(', ')} gives ${giving.length > 1 ? 'the pod entries' : 'the pod an entry'}`);
  if (failing.length > 0) lines.push(`${failing.join(', ')} selects it and fails to render its entry, so the pod keeps the entries it has rather than get a second identity`);
  if (invalid.length > 0) lines.push(`${invalid.join(', ')} is invalid and selects it, so the pod keeps the entries it has`);
  return lines;
}

/** Whether an invalid object's selectors, as the walk reads them (entries/declare.ts:selectionRule), take this pod. */
function selects(obj: ClusterSPIFFEID, ctx: PodContext): boolean {
  const { selectors } = selectionRule(obj);
  return ctx.namespace !== undefined && selectors.namespaceSelector(ctx.namespace.metadata.labels) && selectors.podSelector(ctx.pod.metadata.labels);
}

/** Why this pod has, or lacks, each entry: every ClusterSPIFFEID's verdict and where each entry stands on the server. */
export function explainPod(ctx: PodContext): PodExplanation {
  const { pod } = ctx;
  const uid = pod.metadata.uid;
  const nsName = pod.metadata.namespace ?? '';
  const name = `${nsName}/${pod.metadata.name}`;
  const coverers = fallbackCoverers(ctx);
  const results = ctx.objects.map((o) => explainObject(o, ctx, coverers));

  const declaredIds = new Set(results.flatMap((r) => (r.spire && 'id' in r.spire ? [r.spire.id] : [])));
  const otherEntries: OtherEntry[] = [];
  for (const e of ctx.current) {
    if (e.podUid !== uid || declaredIds.has(e.id)) continue;
    const fate = ctx.plan.fate(e);
    if (!fate) continue;
    otherEntries.push({
      entry: entryView(e.id, e.spec),
      state: fate.state,
      detail: fate.state === 'to-delete' ? fate.reason : fate.state === 'kept' ? fate.detail : undefined,
    });
  }

  const declared = results.filter((r) => r.outcome === 'declared');
  const registered = declared.length > 0 && declared.every((r) => isRegistered(r.spire!));
  return {
    pod: name,
    uid,
    // '' as unset: podTable reads these with ??, and JSON and YAML drop an undefined key.
    node: pod.spec?.nodeName || undefined,
    phase: pod.status?.phase || undefined,
    terminating: pod.metadata.deletionTimestamp || undefined,
    namespace: ctx.namespace ? { name: nsName, found: true, labels: ctx.namespace.metadata.labels ?? {} } : { name: nsName, found: false },
    registered,
    summary: summary(name, results, registered),
    clusterSPIFFEIDs: results,
    otherEntries,
  };
}

function summary(pod: string, results: readonly ObjectResult[], registered: boolean): string {
  const declared = results.filter((r) => r.outcome === 'declared');
  if (registered) return `${pod} is registered: ${declared.length === 1 ? 'its entry is' : `its ${declared.length} entries are`} on the server as declared.`;
  if (declared.length === 0) {
    if (results.length === 0) return `${pod} is not registered: there is no ClusterSPIFFEID.`;
    const failed = results.filter((r) => r.outcome === 'render-failed');
    if (failed.length > 0) return `${pod} is not registered: its entry could not be rendered (${failed.map((r) => r.object).join(', ')}); its current entries, if any, are kept.`;
    return `${pod} is not registered: no ClusterSPIFFEID gives it an entry (each one's reason is above).`;
  }
  const pending = declared.filter((r) => !isRegistered(r.spire!)).map((r) => `${r.object}: ${describeSide(r.spire!)}`);
  return `${pod} is not registered as declared: ${pending.join('; ')}.`;
}

/** What templates/explain-pod.hbs renders. */
export interface PodView {
  pod: string;
  uid: string;
  node: string;
  phase: string;
  terminating: string | null;
  namespace: { name: string; found: boolean; labels: string };
  source: string;
  /** One row per ClusterSPIFFEID: its name and its verdict. */
  clusterSPIFFEIDs: TableView;
  missingFederation: { object: string; missing: string[] }[];
  /** When each of its entries on the server was created, and how long after the pod could first have had it. */
  registrations: { object: string; id: string; detail: string }[];
  otherEntries: { id: string; spiffeID: string; fate: string }[];
  summary: string;
}

function otherEntryFate(e: OtherEntry): string {
  if (e.state === 'to-delete') return `to be deleted (${e.detail})`;
  if (e.state === 'kept') return `kept: ${e.detail}`;
  return 'outside entryScope: left alone';
}

/** The explanation as the table output shows it. */
export function podView(x: PodExplanation, source: string): PodView {
  return {
    pod: x.pod,
    uid: x.uid,
    node: x.node ?? '(none)',
    phase: x.phase ?? '(unknown)',
    terminating: x.terminating ?? null,
    namespace: { name: x.namespace.name, found: x.namespace.found, labels: x.namespace.found ? describeLabels(x.namespace.labels) : '' },
    source,
    clusterSPIFFEIDs: { header: ['CLUSTERSPIFFEID', 'RESULT'], rows: x.clusterSPIFFEIDs.map((r) => [r.object.slice('ClusterSPIFFEID/'.length), r.detail]) },
    missingFederation: x.clusterSPIFFEIDs.flatMap((r) => (r.missingFederation ? [{ object: r.object, missing: [...r.missingFederation] }] : [])),
    registrations: x.clusterSPIFFEIDs.flatMap((r) => (r.registration ? [{ object: r.object, id: r.registration.id, detail: r.registration.detail }] : [])),
    otherEntries: x.otherEntries.map((e) => ({ id: e.entry.id, spiffeID: e.entry.spiffeID, fate: otherEntryFate(e) })),
    summary: x.summary,
  };
}

/** The explanation for a terminal (templates/explain-pod.hbs): the pod, one line per ClusterSPIFFEID, the pod's other entries, the verdict. */
export function podTable(x: PodExplanation, sourceLine: string): string {
  return renderReport('explain-pod', podView(x, sourceLine));
}
