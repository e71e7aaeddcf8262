import { type ClusterSPIFFEID, type ClusterSPIFFEIDStats, describeLabelSelector, type Namespace, type Pod } from '../api/index.js';
import { objectName, type Owner, type PodVerdict, type SelectionObserver } from '../entries/index.js';
import { describeSide, type PlanIndex, type SpireSide } from './explain-spire.js';
import { type EntryView, entryView } from './report.js';
import { renderReport } from './report-templates.js';

const podName = (p: Pod) => `${p.metadata.namespace ?? ''}/${p.metadata.name}`;

/** Records what the walk decided for one ClusterSPIFFEID, namespace by namespace and pod by pod. */
export class ObjectTrace implements SelectionObserver {
  otherClass_?: string;
  invalid_?: string;
  readonly selected: string[] = [];
  readonly ignored: { name: string; pattern: string }[] = [];
  notSelected = 0;
  readonly pods = new Map<string, { pod: Pod; verdict: PodVerdict }>();

  constructor(private readonly uid: string) {}

  otherClass(owner: Owner, className: string): void {
    if (owner.uid === this.uid && owner.kind === 'ClusterSPIFFEID') this.otherClass_ = className;
  }

  invalid(owner: Owner, message: string): void {
    if (owner.uid === this.uid) this.invalid_ = message;
  }

  namespace(owner: Owner, ns: Namespace, verdict: { selected: false } | { selected: true; ignoredBy?: string }): void {
    if (owner.uid !== this.uid) return;
    if (!verdict.selected) {
      this.notSelected++;
      return;
    }
    // An ignored namespace is still selected, as the status counts it (upstream's namespacesSelected includes namespacesIgnored).
    this.selected.push(ns.metadata.name);
    if (verdict.ignoredBy !== undefined) this.ignored.push({ name: ns.metadata.name, pattern: verdict.ignoredBy });
  }

  pod(owner: Owner, pod: Pod, verdict: PodVerdict): void {
    if (owner.uid === this.uid) this.pods.set(pod.metadata.uid, { pod, verdict });
  }
}

export interface ObjectExplanation {
  object: string;
  className: string;
  /** False when the object is of another class: this controller does not read it. */
  ours: boolean;
  fallback: boolean;
  /** The spec's problems, when it does not parse (it then selects nothing). */
  invalid?: string;
  namespaceSelector: string;
  podSelector: string;
  /** `selected`: every namespace the namespaceSelector matches, ignored ones included, as the status counts them; `ignored`: those of them ignoreNamespaces ignores. */
  namespaces: { selected: string[]; ignored: { name: string; pattern: string }[]; notSelected: number };
  pods: {
    /** Pods its podSelector matches in selected, not ignored namespaces. */
    selected: number;
    notSelected: number;
    withEntry: number;
    renderFailures: { pod: string; message: string }[];
    unscheduled: string[];
    finished: string[];
    /** Pods another (non-fallback) ClusterSPIFFEID gives an entry, so this fallback does not. */
    fallbackSuppressed: string[];
  };
  entries: { pod: string; entry: EntryView; spire: SpireSide }[];
  /** Entries by where they stand on the server. */
  spire: Record<SpireSide['state'], number>;
  status?: ClusterSPIFFEIDStats;
  summary: string;
}

/** One ClusterSPIFFEID, as the walk and the plan saw it. */
export function explainObject(obj: ClusterSPIFFEID, trace: ObjectTrace, plan: PlanIndex, status: ClusterSPIFFEIDStats | undefined, classRule: string): ObjectExplanation {
  const owner: Owner = { kind: 'ClusterSPIFFEID', name: obj.metadata.name, uid: obj.metadata.uid, creationTimestamp: obj.metadata.creationTimestamp ?? '' };
  const pods: ObjectExplanation['pods'] = { selected: 0, notSelected: 0, withEntry: 0, renderFailures: [], unscheduled: [], finished: [], fallbackSuppressed: [] };
  const entries: ObjectExplanation['entries'] = [];
  const spire: ObjectExplanation['spire'] = { registered: 0, outdated: 0, waiting: 0, conflict: 0, masked: 0, kept: 0 };
  for (const { pod, verdict } of trace.pods.values()) {
    if (verdict.outcome === 'not-selected') {
      pods.notSelected++;
      continue;
    }
    pods.selected++;
    if (verdict.outcome === 'fallback-suppressed') pods.fallbackSuppressed.push(podName(pod));
    else if (verdict.outcome === 'unscheduled') pods.unscheduled.push(podName(pod));
    else if (verdict.outcome === 'finished') pods.finished.push(podName(pod));
    else if (verdict.outcome === 'failed') pods.renderFailures.push({ pod: podName(pod), message: verdict.failure.message });
    else {
      pods.withEntry++;
      const side = plan.side(verdict.key, owner);
      spire[side.state]++;
      entries.push({ pod: podName(pod), entry: entryView('id' in side ? side.id : '', verdict.spec), spire: side });
    }
  }
  const x: ObjectExplanation = {
    object: objectName(owner),
    className: obj.spec?.className ?? '',
    ours: trace.otherClass_ === undefined,
    fallback: obj.spec?.fallback ?? false,
    invalid: trace.invalid_,
    namespaceSelector: describeLabelSelectorOf(obj, 'namespaceSelector'),
    podSelector: describeLabelSelectorOf(obj, 'podSelector'),
    namespaces: { selected: trace.selected, ignored: trace.ignored, notSelected: trace.notSelected },
    pods,
    entries,
    spire,
    status,
    summary: '',
  };
  x.summary = summarise(x, classRule);
  return x;
}

function describeLabelSelectorOf(obj: ClusterSPIFFEID, field: 'namespaceSelector' | 'podSelector'): string {
  return describeLabelSelector(obj.spec?.[field]);
}

function summarise(x: ObjectExplanation, classRule: string): string {
  if (!x.ours) return `${x.object} is not read: className ${x.className ? `"${x.className}"` : 'unset'} is not this controller's (it reads ${classRule}).`;
  // Its status still counts the pods it selects, each as a render failure (see declareEntries).
  if (x.invalid) return `${x.object} is invalid, so no pod it selects gets an entry: ${x.invalid}`;
  const parts = [`${x.pods.withEntry} of ${x.pods.selected} selected pods get an entry`];
  if (x.spire.registered) parts.push(`${x.spire.registered} registered`);
  if (x.spire.outdated) parts.push(`${x.spire.outdated} to update`);
  if (x.spire.waiting) parts.push(`${x.spire.waiting} waiting to be created`);
  if (x.spire.conflict) parts.push(`${x.spire.conflict} in conflict`);
  if (x.spire.masked) parts.push(`${x.spire.masked} masked by other objects`);
  if (x.spire.kept) parts.push(`${x.spire.kept} kept`);
  if (x.pods.renderFailures.length) parts.push(`${x.pods.renderFailures.length} render failures`);
  return `${x.object}: ${parts.join(', ')}.`;
}

/** A list cut for a screen (the `list` partial): its first items and how many it leaves out. */
interface ListView {
  total: number;
  shown: string[];
  more: number;
}

/** What templates/explain-clusterspiffeid.hbs renders. */
export interface ObjectView {
  object: string;
  /** Quoted, or `(none)`. */
  className: string;
  fallback: boolean;
  source: string;
  ours: boolean;
  status: ClusterSPIFFEIDStats | null;
  invalid: string | null;
  namespaceSelector: string;
  podSelector: string;
  namespaces: { selected: number; ignored: number; notSelected: number; list: ListView };
  pods: { selected: number; notSelected: number; withEntry: number; renderFailures: ListView; unscheduled: ListView; finished: ListView; fallbackSuppressed: ListView };
  entries: ListView;
  summary: string;
}

const LIST_LIMIT = 10;

function listView(items: readonly string[]): ListView {
  return { total: items.length, shown: items.slice(0, LIST_LIMIT), more: Math.max(0, items.length - LIST_LIMIT) };
}

/** The explanation as the table output shows it. */
export function objectView(x: ObjectExplanation, source: string): ObjectView {
  const ns = x.namespaces;
  const ignoredBy = new Map(ns.ignored.map((i) => [i.name, i.pattern]));
  const p = x.pods;
  return {
    object: x.object,
    className: x.className ? `"${x.className}"` : '(none)',
    fallback: x.fallback,
    source,
    ours: x.ours,
    status: x.status ? { ...x.status } : null,
    invalid: x.invalid ?? null,
    namespaceSelector: x.namespaceSelector,
    podSelector: x.podSelector,
    namespaces: {
      selected: ns.selected.length,
      ignored: ns.ignored.length,
      notSelected: ns.notSelected,
      list: listView(ns.selected.map((n) => (ignoredBy.has(n) ? `${n} (ignored: pattern "${ignoredBy.get(n)}")` : n))),
    },
    pods: {
      selected: p.selected,
      notSelected: p.notSelected,
      withEntry: p.withEntry,
      renderFailures: listView(p.renderFailures.map((f) => `${f.pod}: ${f.message}`)),
      unscheduled: listView(p.unscheduled),
      finished: listView(p.finished),
      fallbackSuppressed: listView(p.fallbackSuppressed),
    },
    entries: listView(x.entries.map((e) => `${e.pod}  ${e.entry.spiffeID}: ${describeSide(e.spire)}`)),
    summary: x.summary,
  };
}

/** The explanation for a terminal (templates/explain-clusterspiffeid.hbs), lists cut at 10 items so it fits a screen. */
export function objectTable(x: ObjectExplanation, sourceLine: string): string {
  return renderReport('explain-clusterspiffeid', objectView(x, sourceLine));
}
