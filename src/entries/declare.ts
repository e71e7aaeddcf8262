import { type Cause, type ClusterSnapshot, type ClusterSPIFFEID, type Failure, type FieldProblem, formatFieldProblems, type IgnoredNamespaces, isOurClass, ownerOf, type Namespace, type Node, type Pod } from '../api/index.js';

export { type ClusterSnapshot, isOurClass } from '../api/index.js';
import { type DeclaredEntry, entryKey, type EntrySpec, type Owner } from './model.js';
import { indexServices, type ServiceIndex, serviceDnsNames } from './endpoints.js';
import { type CacheSlot, RenderCache } from './render-cache.js';
import { finish, sliceCounter, type Steps } from './time-slices.js';

export { RenderCache } from './render-cache.js';
import {
  parseClusterSPIFFEID,
  type ParsedClusterSPIFFEID,
  type RenderSettings,
  renderPodEntry,
  renderStaticEntry,
} from './render.js';

export interface SelectionSettings extends RenderSettings {
  /** Upstream's ignoreNamespaces: Go regular expressions matched anywhere in the name. */
  ignoreNamespaces: IgnoredNamespaces;
  className: string;
  watchClassless: boolean;
  /** Reuse renders across passes (live mode); without it every pass renders everything. */
  renderCache?: RenderCache;
  /** Told every decision of the full walk (declareEntries), for `explain`. */
  observe?: SelectionObserver;
}

/** Why a pod that a ClusterSPIFFEID selects gets no entry from it without that being a failure. */
type PodSkip = 'unscheduled' | 'finished';

/** What one ClusterSPIFFEID did with one pod of a namespace it reached. */
export type PodVerdict =
  | { outcome: 'not-selected' }
  | { outcome: 'fallback-suppressed' }
  | { outcome: 'unscheduled' }
  | { outcome: 'finished' }
  | { outcome: 'failed'; failure: Failure }
  | { outcome: 'declared'; key: string; spec: EntrySpec };

/**
 * The decisions of the selection walk, as it takes them: `explain` is this
 * walk observed, not a second walk that could drift from it.
 */
export interface SelectionObserver {
  /** An object of another class: the walk does not read it. */
  otherClass?(owner: Owner, className: string): void;
  /** A ClusterSPIFFEID whose spec does not parse: it selects nothing (and every pod entry is kept). */
  invalid?(owner: Owner, message: string): void;
  /** Each namespace against each valid ClusterSPIFFEID: not selected, selected, or selected but ignored (by that pattern). */
  namespace?(owner: Owner, namespace: Namespace, verdict: { selected: false } | { selected: true; ignoredBy?: string }): void;
  /** Each pod of a selected, not ignored namespace. */
  pod?(owner: Owner, pod: Pod, verdict: PodVerdict): void;
}

interface SelectionStats {
  namespacesSelected: number;
  namespacesIgnored: number;
  podsSelected: number;
  podEntryRenderFailures: number;
}

export interface RenderFailure {
  owner: Owner;
  /** `namespace/name` of the pod, for pod entries. */
  pod?: string;
  message: string;
  /** For a pod's failure: the message without the pod's values, which reports group by (entries/problems.ts). */
  cause?: Cause;
}

export interface DeclaredState {
  entries: DeclaredEntry[];
  renderFailures: RenderFailure[];
  /** Pods whose entries could not all be computed: their current entries stay. */
  unknownPods: Set<string>;
  /** Set when an object's selectors are unreadable, so no pod entry may be deleted. */
  keepAllPodEntries?: string;
  /** Set when a static entry failed to render, so no non-pod entry may be deleted. */
  keepNonPodEntries?: string;
  /** Every object of our class, by UID. */
  owners: Map<string, Owner>;
  /** Selection statistics per ClusterSPIFFEID UID (objects of our class only). */
  selection: Map<string, SelectionStats>;
  /** Whether each ClusterStaticEntry (by UID, our class only) rendered. */
  staticRendered: Map<string, boolean>;
  /** Entries set without some federatesWith trust domains (no bundle yet), by pass. */
  federationOmissions: { owner: Owner; spiffeId: string; missing: string[] }[];
  /**
   * Namespaces that pods name but the snapshot does not hold, with how many
   * pods: which ClusterSPIFFEIDs select those pods is unknown, so their
   * entries are kept (they are in unknownPods), as a missing Node keeps them.
   */
  unknownNamespaces: Map<string, number>;
}

/**
 * The namespace of a pod, as both passes read it: `ignored` when
 * ignoreNamespaces names it (an ignored name needs no Namespace object),
 * else the Namespace object, else `unknown`. Unknown is not absent: which
 * ClusterSPIFFEIDs select the pod depends on the namespace's labels, so a
 * pod whose namespace is not known (a manifest snapshot without Namespace
 * documents, a namespace event not arrived yet) keeps its entries.
 */
function podNamespace(name: string, ns: Namespace | undefined, settings: Pick<SelectionSettings, 'ignoreNamespaces'>): Namespace | 'ignored' | 'unknown' {
  if (settings.ignoreNamespaces.ignores(name)) return 'ignored';
  return ns ?? 'unknown';
}

/** Why a pod needs no entry (nothing to attest, and not a failure), or undefined when it needs one. */
function podSkip(pod: Pod): PodSkip | undefined {
  if (!pod.spec?.nodeName) return 'unscheduled';
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' ? 'finished' : undefined;
}

/**
 * Turns a cluster snapshot into the declared entries: every ClusterSPIFFEID
 * (non-fallback first) over the namespaces and pods it selects, and every
 * ClusterStaticEntry. No I/O. Not pure: it fills settings.renderCache and
 * the module's parsed ClusterSPIFFEIDs (a WeakMap on each object). A cached
 * result is reused only for the same objects (the caches replace an object
 * when it changes, never change one in place) under the same settings (one
 * render cache per process and config), so the result is what a walk
 * without caches gives.
 */
export function declareEntries(snapshot: ClusterSnapshot, settings: SelectionSettings): DeclaredState {
  return finish(declareEntriesInSteps(snapshot, settings));
}

/** declareEntries as Steps: the same declaration, yielding between pods (entries/time-slices.ts). */
export function* declareEntriesInSteps(snapshot: ClusterSnapshot, settings: SelectionSettings): Steps<DeclaredState> {
  const due = sliceCounter();
  const state = emptyDeclaredState();
  keepWhatUninstalledKindsMade(state, snapshot.notInstalled ?? []);
  declareStaticEntries(state, snapshot.clusterStaticEntries, settings);

  const podsByNamespace = yield* groupByNamespace(snapshot.pods, due);
  markUnknownNamespaces(state, podsByNamespace, snapshot.namespaces, settings);

  const { rules, invalid, owners } = parseOurClusterSPIFFEIDs(snapshot.clusterSPIFFEIDs, settings);
  for (const owner of owners) {
    state.owners.set(owner.uid, owner);
    state.selection.set(owner.uid, { namespacesSelected: 0, namespacesIgnored: 0, podsSelected: 0, podEntryRenderFailures: 0 });
  }
  for (const i of invalid) reportInvalid(state, i.owner, i.errors, settings.observe);

  const nodesByName = new Map(snapshot.nodes.map((n) => [n.metadata.name, n]));
  const cache = settings.renderCache ?? new RenderCache();
  const ctx: PodContext = { settings, cache, services: indexServices(snapshot.endpointSlices, snapshot.endpoints), node: (name) => nodesByName.get(name) };
  const walk: SelectionWalk = { state, ctx, due, coveredByNonFallback: new Map() };
  // Object-major, for each object's statistics and for the observer, over valid and invalid objects
  // alike, fallback ones last, so that each one's counts are what it covers. The decisions are the
  // pod pass's: selectPod's two halves, the namespace one taken once per namespace.
  for (const rule of rules) yield* declareRule(walk, rule, snapshot.namespaces, podsByNamespace);
  cache.sweep();
  return state;
}

function emptyDeclaredState(): DeclaredState {
  return {
    entries: [],
    renderFailures: [],
    unknownPods: new Set(),
    owners: new Map(),
    selection: new Map(),
    staticRendered: new Map(),
    federationOmissions: [],
    unknownNamespaces: new Map(),
  };
}

/** A kind whose CRD is not installed is unknown, not empty: nothing its objects made may go. */
function keepWhatUninstalledKindsMade(state: DeclaredState, notInstalled: readonly string[]): void {
  for (const kind of notInstalled) {
    if (kind === 'ClusterStaticEntry') state.keepNonPodEntries ??= 'entries not tied to a pod are kept: the ClusterStaticEntry CRD is not installed';
    if (kind === 'ClusterSPIFFEID') state.keepAllPodEntries ??= 'pod entries are kept: the ClusterSPIFFEID CRD is not installed';
  }
}

/** The ClusterStaticEntries of our class: an entry each, or a failure that keeps every entry not tied to a pod. */
function declareStaticEntries(state: DeclaredState, objects: ClusterSnapshot['clusterStaticEntries'], settings: SelectionSettings): void {
  for (const obj of objects) {
    if (!isOurClass(obj.spec?.className, settings)) {
      settings.observe?.otherClass?.(ownerOf('ClusterStaticEntry', obj), obj.spec?.className ?? '');
      continue;
    }
    const owner = ownerOf('ClusterStaticEntry', obj);
    state.owners.set(owner.uid, owner);
    const r = renderStaticEntry(obj, settings.trustDomain);
    state.staticRendered.set(owner.uid, 'spec' in r);
    if ('spec' in r) {
      state.entries.push({ key: entryKey(r.spec), spec: r.spec, owner });
    } else {
      const message = formatFieldProblems('ClusterStaticEntry', owner.name, r.errors);
      state.renderFailures.push({ owner, message });
      state.keepNonPodEntries ??= `entries not tied to a pod are kept: ${message}`;
    }
  }
}

function* groupByNamespace(pods: readonly Pod[], due: () => boolean): Steps<Map<string, Pod[]>> {
  const podsByNamespace = new Map<string, Pod[]>();
  for (const pod of pods) {
    const ns = pod.metadata.namespace ?? '';
    const list = podsByNamespace.get(ns);
    if (list) list.push(pod);
    else podsByNamespace.set(ns, [pod]);
    if (due()) yield;
  }
  return podsByNamespace;
}

/** Pods of a namespace the snapshot does not hold: which objects select them is unknown, so their entries stay. */
function markUnknownNamespaces(state: DeclaredState, podsByNamespace: Map<string, Pod[]>, namespaces: readonly Namespace[], settings: SelectionSettings): void {
  const known = new Map(namespaces.map((n) => [n.metadata.name, n]));
  for (const [ns, pods] of podsByNamespace) {
    if (podNamespace(ns, known.get(ns), settings) !== 'unknown') continue;
    state.unknownNamespaces.set(ns, pods.length);
    for (const pod of pods) state.unknownPods.add(pod.metadata.uid);
  }
}

/** What the full walk carries from one ClusterSPIFFEID to the next. */
interface SelectionWalk {
  state: DeclaredState;
  ctx: PodContext;
  due: () => boolean;
  /**
   * Pods a non-fallback object declared an entry for, by namespace: one set
   * of every pod would double its table, a copy of tens of thousands of
   * entries, within one slice.
   */
  coveredByNonFallback: Map<string, Set<string>>;
}

/** One ClusterSPIFFEID over every namespace and the pods of those it selects and does not ignore. */
function* declareRule(walk: SelectionWalk, rule: SelectionRule, namespaces: readonly Namespace[], podsByNamespace: Map<string, Pod[]>): Steps<void> {
  const stats = walk.state.selection.get(rule.owner.uid)!;
  // Only valid objects are walked for an observer (explain); an invalid one is reported whole.
  const seen = rule.valid ? walk.ctx.settings.observe : undefined;
  for (const ns of namespaces) {
    const nsVerdict = namespaceVerdict(rule, ns, walk.ctx.settings);
    seen?.namespace?.(rule.owner, ns, nsVerdict);
    if (!nsVerdict.selected) continue;
    stats.namespacesSelected++;
    if (nsVerdict.ignoredBy !== undefined) {
      stats.namespacesIgnored++;
      continue;
    }
    const name = ns.metadata.name;
    const covered = walk.coveredByNonFallback.get(name) ?? new Set<string>();
    for (const pod of podsByNamespace.get(name) ?? []) {
      if (walk.due()) yield;
      declareRulePod(walk, rule, stats, seen, name, pod, covered);
    }
  }
}

/** One ClusterSPIFFEID's verdict on one pod of a namespace it selects, recorded in the state and its statistics. */
function declareRulePod(walk: SelectionWalk, rule: SelectionRule, stats: SelectionStats, seen: SelectionObserver | undefined, ns: string, pod: Pod, covered: Set<string>): void {
  const { owner } = rule;
  const uid = pod.metadata.uid;
  const v = podVerdict(rule, pod, ns, covered.has(uid), walk.ctx);
  if (v.outcome === 'not-selected') {
    seen?.pod?.(owner, pod, v);
    return;
  }
  stats.podsSelected++;
  if (coversFallbacks(rule, v)) walk.coveredByNonFallback.set(ns, covered.add(uid));
  if (v.outcome === 'invalid') {
    // An invalid object renders nothing: each pod of it that needs an entry failed, so its
    // status says what it covers and that all of it failed, not all zeros. Its one message
    // is reported once (reportInvalid), not once per pod.
    stats.podEntryRenderFailures++;
    return;
  }
  seen?.pod?.(owner, pod, v);
  if (v.outcome === 'failed') {
    stats.podEntryRenderFailures++;
    walk.state.unknownPods.add(uid);
    walk.state.renderFailures.push({ owner, pod: `${ns}/${pod.metadata.name}`, ...v.failure });
  } else if (v.outcome === 'declared') {
    walk.state.entries.push({ key: v.key, spec: v.spec, owner, podUid: uid });
  }
}

/**
 * A parsed ClusterSPIFFEID with the key its renders are cached under: valid
 * for the object's current spec only.
 */
type ParsedWithRenderKey = ParsedClusterSPIFFEID & { readonly renderKey: string };

/** What an invalid object still selects, for its status (see parseClusterSPIFFEID). */
type InvalidSelection = Pick<ParsedClusterSPIFFEID, 'namespaceSelector' | 'podSelector' | 'fallback'>;

/**
 * Each ClusterSPIFFEID object parsed once, not once per pod pass: the caches
 * (informers, manifest reads) replace an object when it changes, and never
 * change one in place.
 */
const parsedObjects = new WeakMap<ClusterSPIFFEID, { owner: Owner } & ({ parsed: ParsedWithRenderKey } | { errors: FieldProblem[]; selectors: InvalidSelection })>();

function parsedOnce(obj: ClusterSPIFFEID) {
  let hit = parsedObjects.get(obj);
  if (!hit) {
    const owner = ownerOf('ClusterSPIFFEID', obj);
    const r = parseClusterSPIFFEID(obj);
    hit = 'parsed' in r ? { owner, parsed: { ...r.parsed, renderKey: `${owner.uid}\u0000${JSON.stringify(obj.spec)}` } } : { owner, errors: r.errors, selectors: r.selectors };
    parsedObjects.set(obj, hit);
  }
  return hit;
}

/** A ClusterSPIFFEID as a selection rule (parsed once per object), with what is wrong with it when it is invalid. */
export function selectionRule(obj: ClusterSPIFFEID): SelectionRule & { errors?: FieldProblem[] } {
  const hit = parsedOnce(obj);
  return 'parsed' in hit ? { owner: hit.owner, selectors: hit.parsed, valid: hit.parsed } : { owner: hit.owner, selectors: hit.selectors, errors: hit.errors };
}

/**
 * The ClusterSPIFFEIDs of our class as selection rules, valid and invalid,
 * fallback ones last (a stable sort, so otherwise in the order given).
 */
function parseOurClusterSPIFFEIDs(objects: readonly ClusterSPIFFEID[], settings: SelectionSettings) {
  const rules: SelectionRule[] = [];
  const invalid: { owner: Owner; errors: FieldProblem[] }[] = [];
  const owners: Owner[] = [];
  for (const obj of objects) {
    if (!isOurClass(obj.spec?.className, settings)) {
      settings.observe?.otherClass?.(ownerOf('ClusterSPIFFEID', obj), obj.spec?.className ?? '');
      continue;
    }
    const { errors, ...rule } = selectionRule(obj);
    owners.push(rule.owner);
    rules.push(rule);
    if (errors) invalid.push({ owner: rule.owner, errors });
  }
  rules.sort((a, b) => Number(a.selectors.fallback) - Number(b.selectors.fallback));
  return { rules, invalid, owners };
}

/** What rendering a pod's entry reads besides the pod and the object. */
export interface PodContext {
  settings: SelectionSettings;
  cache: RenderCache;
  services: ServiceIndex;
  node: (name: string) => Node | undefined;
}

/**
 * One ClusterSPIFFEID as the selection walk reads it: its selectors, and its
 * parsed spec when it is valid. An invalid object still selects (its status
 * counts what it covers) but renders nothing.
 */
interface SelectionRule {
  owner: Owner;
  selectors: InvalidSelection;
  valid?: ParsedWithRenderKey;
}

/** What one ClusterSPIFFEID decided for one pod: a PodVerdict, or `invalid` for a pod it selects but cannot render. */
type RuleVerdict = PodVerdict | { outcome: 'invalid' };

/**
 * The namespace half of the selection rule: whether the object selects the
 * namespace, and if so whether ignoreNamespaces ignores it (by which pattern).
 */
function namespaceVerdict(rule: SelectionRule, ns: Namespace, settings: Pick<SelectionSettings, 'ignoreNamespaces'>): { selected: false } | { selected: true; ignoredBy?: string } {
  if (!rule.selectors.namespaceSelector(ns.metadata.labels)) return { selected: false };
  const name = ns.metadata.name;
  // ignores() is memoised per name; which pattern matched is looked up only for an ignored one.
  return settings.ignoreNamespaces.ignores(name) ? { selected: true, ignoredBy: settings.ignoreNamespaces.ignoredBy(name) ?? '' } : { selected: true };
}

/**
 * The pod half, for a pod of a namespace the object selects and that is not
 * ignored: its pod selector, then a fallback object giving way to an earlier
 * non-fallback one that produced an entry (`covered`), then the render.
 */
function podVerdict(rule: SelectionRule, pod: Pod, namespace: string, covered: boolean, ctx: PodContext): RuleVerdict {
  if (!rule.selectors.podSelector(pod.metadata.labels)) return { outcome: 'not-selected' };
  if (rule.selectors.fallback && covered) return { outcome: 'fallback-suppressed' };
  if (!rule.valid) {
    const skip = podSkip(pod);
    return skip ? { outcome: skip } : { outcome: 'invalid' };
  }
  const r = declareOne(rule.valid, pod, namespace, ctx);
  return 'skip' in r ? { outcome: r.skip } : 'failure' in r ? { outcome: 'failed', failure: r.failure } : { outcome: 'declared', key: r.key, spec: r.spec };
}

/**
 * The whole selection rule for one (ClusterSPIFFEID, namespace, pod), as the
 * full walk (declareEntries, which takes the namespace half once per
 * namespace for its statistics and observer) and the pod pass (declarePods)
 * both apply it. Objects are taken non-fallback first; `covered` says whether
 * an earlier one produced an entry for this pod (see coversFallbacks).
 */
export function selectPod(
  rule: SelectionRule,
  ns: Namespace,
  pod: Pod,
  covered: boolean,
  ctx: PodContext,
): RuleVerdict | { outcome: 'namespace-not-selected' } | { outcome: 'namespace-ignored'; ignoredBy: string } {
  const n = namespaceVerdict(rule, ns, ctx.settings);
  if (!n.selected) return { outcome: 'namespace-not-selected' };
  if (n.ignoredBy !== undefined) return { outcome: 'namespace-ignored', ignoredBy: n.ignoredBy };
  return podVerdict(rule, pod, ns.metadata.name, covered, ctx);
}

/**
 * Whether this verdict keeps later fallback objects from the pod: a
 * non-fallback object that selects it and gives it an entry, or would but
 * cannot render it (or is invalid). A render failure keeps the pod's entries
 * (unknown is not absent); a fallback entry beside them would give the pod a
 * second identity, so the pod keeps the one it has until the render works.
 * (spire-controller-manager applies the fallback there and deletes the
 * entry that failed: docs/entries.md, "Fallback and render failures".)
 */
export function coversFallbacks(rule: SelectionRule, verdict: { outcome: string }): boolean {
  if (rule.selectors.fallback) return false;
  return verdict.outcome === 'declared' || verdict.outcome === 'failed' || verdict.outcome === 'invalid';
}

/**
 * One ClusterSPIFFEID applied to one pod it selects: the entry, a failure
 * (the pod's entries become unknown), or a skip for a pod not scheduled yet
 * or finished (nothing to attest, and not a failure).
 */
function declareOne(spec: ParsedWithRenderKey, pod: Pod, namespace: string, ctx: PodContext): { key: string; spec: EntrySpec } | { failure: Failure } | { skip: PodSkip } {
  const uid = pod.metadata.uid;
  const skip = podSkip(pod);
  if (skip) return { skip };
  const nodeName = pod.spec?.nodeName ?? '';
  const node = ctx.node(nodeName);
  if (!node) return { failure: { message: `node ${nodeName} is not known yet`, cause: { text: 'its node is not known yet', value: `node ${nodeName}` } } };
  const parent = ctx.cache.parentId(node, ctx.settings);
  if ('error' in parent) return { failure: parent.error };
  const svc = spec.autoPopulateDNSNames ? ctx.services.get(uid) : undefined;
  const dns = svc ? serviceDnsNames(svc, namespace, ctx.settings.clusterDomain) : [];
  const r = ctx.cache.podEntry(spec.renderKey, uid, pod, node, dns, () => {
    const out = renderPodEntry(spec, pod, node, parent.parentId, ctx.settings, dns);
    return 'spec' in out ? { spec: out.spec, key: entryKey(out.spec) } : out;
  });
  return r.error !== undefined ? { failure: r.error } : (r as CacheSlot & { spec: EntrySpec });
}

const NO_SERVICES: ServiceIndex = new Map();

export interface PodDeclaration {
  entries: DeclaredEntry[];
  /** Pods whose entries could not all be computed: their current entries stay. */
  unknownPods: Set<string>;
  renderFailures: RenderFailure[];
}

/** What a pod's entries depend on besides the pod, looked up for the few pods of a pod pass. */
export interface PodLookup {
  clusterSPIFFEIDs: readonly ClusterSPIFFEID[];
  /** The ClusterSPIFFEID CRD is not installed: which objects exist is unknown, so every pod's entries are. */
  clusterSPIFFEIDsUnknown?: boolean;
  namespace: (name: string) => Namespace | undefined;
  node: (name: string) => Node | undefined;
  /** Called only when a ClusterSPIFFEID has autoPopulateDNSNames: indexing every EndpointSlice per pod event would cost in proportion to the cluster. */
  services: () => ServiceIndex;
}

/**
 * The entries of a few pods, by the same rules as declareEntries (selection,
 * ignored namespaces, class, fallback order), without walking the rest of
 * the cluster: for a pass made of pod events only. Statistics are left to
 * the next full pass. A pod's entries depend only on the pod, its namespace
 * and node, the ClusterSPIFFEIDs and its services, so this equals the full
 * pass restricted to these pods.
 */
export function declarePods(pods: readonly Pod[], lookup: PodLookup, settings: SelectionSettings): PodDeclaration {
  const out: PodDeclaration = { entries: [], unknownPods: new Set(), renderFailures: [] };
  const cache = settings.renderCache ?? new RenderCache();
  const { rules, invalid } = parseOurClusterSPIFFEIDs(lookup.clusterSPIFFEIDs, settings);
  // An invalid object, or objects unknown, make every pod's entries unknown; the full pass reports it.
  if (invalid.length > 0 || lookup.clusterSPIFFEIDsUnknown) {
    for (const p of pods) out.unknownPods.add(p.metadata.uid);
    return out;
  }
  const services = rules.some((r) => r.valid?.autoPopulateDNSNames) ? lookup.services() : NO_SERVICES;
  const ctx: PodContext = { settings, cache, services, node: lookup.node };
  for (const pod of pods) {
    const nsName = pod.metadata.namespace ?? '';
    const ns = podNamespace(nsName, lookup.namespace(nsName), settings);
    if (ns === 'ignored') continue;
    if (ns === 'unknown') {
      out.unknownPods.add(pod.metadata.uid);
      continue;
    }
    let covered = false;
    for (const rule of rules) {
      const v = selectPod(rule, ns, pod, covered, ctx);
      if (coversFallbacks(rule, v)) covered = true;
      if (v.outcome === 'failed') {
        out.unknownPods.add(pod.metadata.uid);
        out.renderFailures.push({ owner: rule.owner, pod: `${nsName}/${pod.metadata.name}`, ...v.failure });
      } else if (v.outcome === 'declared') {
        out.entries.push({ key: v.key, spec: v.spec, owner: rule.owner, podUid: pod.metadata.uid });
      }
    }
  }
  return out;
}

function reportInvalid(state: DeclaredState, owner: Owner, errors: FieldProblem[], observe: SelectionObserver | undefined): void {
  const message = formatFieldProblems('ClusterSPIFFEID', owner.name, errors);
  observe?.invalid?.(owner, message);
  state.renderFailures.push({ owner, message });
  // Which pods it selected is unknown, so none of their entries may go.
  state.keepAllPodEntries ??= `pod entries are kept: ${message}`;
}
