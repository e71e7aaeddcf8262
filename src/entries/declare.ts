import { type ClusterSnapshot, type ClusterSPIFFEID, type FieldProblem, formatFieldProblems, type IgnoredNamespaces, isOurClass, ownerOf, type Namespace, type Node, type Pod } from '../api/index.js';

export { type ClusterSnapshot, isOurClass } from '../api/index.js';
import { type DeclaredEntry, entryKey, type EntrySpec, type Owner } from './model.js';
import { indexServices, type ServiceIndex, serviceDnsNames } from './endpoints.js';
import { type CacheSlot, RenderCache } from './render-cache.js';

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
export type PodSkip = 'unscheduled' | 'finished';

/** What one ClusterSPIFFEID did with one pod of a namespace it reached. */
export type PodVerdict =
  | { outcome: 'not-selected' }
  | { outcome: 'fallback-suppressed' }
  | { outcome: 'unscheduled' }
  | { outcome: 'finished' }
  | { outcome: 'failed'; message: string }
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

export interface SelectionStats {
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
}

export interface DeclaredState {
  declared: DeclaredEntry[];
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

function isIgnored(namespace: string, settings: Pick<SelectionSettings, 'ignoreNamespaces'>): boolean {
  return settings.ignoreNamespaces.ignores(namespace);
}

/** spire-controller-manager's class rule: the named class, plus classless objects if asked. */
function isFinished(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Scheduled and not finished: a pod that gets an entry when rendering succeeds. */
function needsEntry(pod: Pod): boolean {
  return Boolean(pod.spec?.nodeName) && !isFinished(pod);
}

/**
 * Turns a cluster snapshot into the declared entries: every ClusterSPIFFEID
 * (non-fallback first) over the namespaces and pods it selects, and every
 * ClusterStaticEntry. Pure: it reads the snapshot and writes nothing.
 */
export function declareEntries(snapshot: ClusterSnapshot, settings: SelectionSettings): DeclaredState {
  const state: DeclaredState = {
    declared: [],
    renderFailures: [],
    unknownPods: new Set(),
    owners: new Map(),
    selection: new Map(),
    staticRendered: new Map(),
    federationOmissions: [],
    unknownNamespaces: new Map(),
  };

  const observe = settings.observe;
  for (const obj of snapshot.clusterStaticEntries) {
    if (!isOurClass(obj.spec?.className, settings)) {
      observe?.otherClass?.(ownerOf('ClusterStaticEntry', obj), obj.spec?.className ?? '');
      continue;
    }
    const owner = ownerOf('ClusterStaticEntry', obj);
    state.owners.set(owner.uid, owner);
    const r = renderStaticEntry(obj, settings.trustDomain);
    state.staticRendered.set(owner.uid, 'spec' in r);
    if ('spec' in r) {
      state.declared.push({ key: entryKey(r.spec), spec: r.spec, owner });
    } else {
      const message = formatFieldProblems('ClusterStaticEntry', owner.name, r.errors);
      state.renderFailures.push({ owner, message });
      state.keepNonPodEntries ??= `entries not tied to a pod are kept: ${message}`;
    }
  }

  const nodesByName = new Map(snapshot.nodes.map((n) => [n.metadata.name, n]));
  const podsByNamespace = new Map<string, Pod[]>();
  for (const pod of snapshot.pods) {
    const ns = pod.metadata.namespace ?? '';
    const list = podsByNamespace.get(ns);
    if (list) list.push(pod);
    else podsByNamespace.set(ns, [pod]);
  }
  // Unknown is not absent: a pod whose namespace the snapshot lacks (a manifest snapshot without
  // Namespace documents, an informer a step behind) keeps its entries, as the pod pass keeps them.
  const known = new Set(snapshot.namespaces.map((n) => n.metadata.name));
  for (const [ns, pods] of podsByNamespace) {
    if (known.has(ns) || isIgnored(ns, settings)) continue;
    state.unknownNamespaces.set(ns, pods.length);
    for (const pod of pods) state.unknownPods.add(pod.metadata.uid);
  }
  const services = indexServices(snapshot.endpointSlices, snapshot.endpoints);
  const cache = settings.renderCache ?? new RenderCache();

  const { parsed, invalid, owners } = parseOurClusterSPIFFEIDs(snapshot.clusterSPIFFEIDs, settings);
  for (const owner of owners) {
    state.owners.set(owner.uid, owner);
    state.selection.set(owner.uid, { namespacesSelected: 0, namespacesIgnored: 0, podsSelected: 0, podEntryRenderFailures: 0 });
  }
  for (const i of invalid) reportInvalid(state, i.owner, i.errors, observe);

  const ctx: PodContext = { settings, cache, services, node: (name) => nodesByName.get(name) };
  const coveredByNonFallback = new Set<string>();
  // Valid and invalid objects alike, fallback ones last, so that each one's counts are what it covers.
  const objects = [...parsed.map((p) => ({ owner: p.owner, selectors: p, valid: p })), ...invalid.map((i) => ({ owner: i.owner, selectors: i.selectors, valid: undefined }))];
  objects.sort((a, b) => Number(a.selectors.fallback) - Number(b.selectors.fallback));
  for (const { owner, selectors, valid } of objects) {
    const stats = state.selection.get(owner.uid)!;
    for (const ns of snapshot.namespaces) {
      // Only valid objects are walked for an observer (explain); an invalid one is reported whole.
      const seen = valid ? observe : undefined;
      if (!selectors.namespaceSelector(ns.metadata.labels)) {
        seen?.namespace?.(owner, ns, { selected: false });
        continue;
      }
      stats.namespacesSelected++;
      const ignored = isIgnored(ns.metadata.name, settings);
      seen?.namespace?.(owner, ns, ignored ? { selected: true, ignoredBy: settings.ignoreNamespaces.ignoredBy(ns.metadata.name) ?? '' } : { selected: true });
      if (ignored) {
        stats.namespacesIgnored++;
        continue;
      }
      for (const pod of podsByNamespace.get(ns.metadata.name) ?? []) {
        if (!selectors.podSelector(pod.metadata.labels)) {
          seen?.pod?.(owner, pod, { outcome: 'not-selected' });
          continue;
        }
        stats.podsSelected++;
        const uid = pod.metadata.uid;
        if (selectors.fallback && coveredByNonFallback.has(uid)) {
          seen?.pod?.(owner, pod, { outcome: 'fallback-suppressed' });
          continue;
        }
        if (!valid) {
          // An invalid object renders nothing: each pod of it that needs an entry failed, so its
          // status says what it covers and that all of it failed, not all zeros. Its one message
          // is reported once (reportInvalid), not once per pod.
          if (needsEntry(pod)) stats.podEntryRenderFailures++;
          continue;
        }
        const r = declareOne(valid, pod, ns.metadata.name, ctx);
        seen?.pod?.(owner, pod, 'skip' in r ? { outcome: r.skip } : 'failure' in r ? { outcome: 'failed', message: r.failure } : { outcome: 'declared', ...r });
        if ('skip' in r) continue;
        if ('failure' in r) {
          stats.podEntryRenderFailures++;
          state.unknownPods.add(uid);
          state.renderFailures.push({ owner, pod: `${ns.metadata.name}/${pod.metadata.name}`, message: r.failure });
          continue;
        }
        state.declared.push({ key: r.key, spec: r.spec, owner, podUid: uid });
        if (!selectors.fallback) coveredByNonFallback.add(uid);
      }
    }
  }
  cache.sweep();
  return state;
}

/**
 * A parsed ClusterSPIFFEID with the key its renders are cached under: valid
 * for the object's current spec only.
 */
type Selecting = ParsedClusterSPIFFEID & { readonly renderKey: string };

/**
 * Each ClusterSPIFFEID object parsed once, not once per pod pass: the caches
 * (informers, manifest reads) replace an object when it changes, and never
 * change one in place.
 */
/** What an invalid object still selects, for its status (see parseClusterSPIFFEID). */
type InvalidSelection = Pick<ParsedClusterSPIFFEID, 'namespaceSelector' | 'podSelector' | 'fallback'>;

const parsedObjects = new WeakMap<ClusterSPIFFEID, { owner: Owner } & ({ selecting: Selecting } | { errors: FieldProblem[]; selectors: InvalidSelection })>();

function parsedOnce(obj: ClusterSPIFFEID) {
  let hit = parsedObjects.get(obj);
  if (!hit) {
    const owner = ownerOf('ClusterSPIFFEID', obj);
    const r = parseClusterSPIFFEID(obj);
    hit = 'parsed' in r ? { owner, selecting: { ...r.parsed, renderKey: `${owner.uid}\u0000${JSON.stringify(obj.spec)}` } } : { owner, errors: r.errors, selectors: r.selectors };
    parsedObjects.set(obj, hit);
  }
  return hit;
}

/** The ClusterSPIFFEIDs of our class, parsed, fallback ones last (a stable sort, so otherwise in the order given). */
function parseOurClusterSPIFFEIDs(objects: readonly ClusterSPIFFEID[], settings: SelectionSettings) {
  const parsed: Selecting[] = [];
  const invalid: { owner: Owner; errors: FieldProblem[]; selectors: InvalidSelection }[] = [];
  const owners: Owner[] = [];
  for (const obj of objects) {
    if (!isOurClass(obj.spec?.className, settings)) {
      settings.observe?.otherClass?.(ownerOf('ClusterSPIFFEID', obj), obj.spec?.className ?? '');
      continue;
    }
    const hit = parsedOnce(obj);
    owners.push(hit.owner);
    if ('selecting' in hit) parsed.push(hit.selecting);
    else invalid.push({ owner: hit.owner, errors: hit.errors, selectors: hit.selectors });
  }
  parsed.sort((a, b) => Number(a.fallback) - Number(b.fallback));
  return { parsed, invalid, owners };
}

interface PodContext {
  settings: SelectionSettings;
  cache: RenderCache;
  services: ServiceIndex;
  node: (name: string) => Node | undefined;
}

/**
 * One ClusterSPIFFEID applied to one pod it selects: the entry, a failure
 * (the pod's entries become unknown), or a skip for a pod not scheduled yet
 * or finished (nothing to attest, and not a failure).
 */
function declareOne(spec: Selecting, pod: Pod, namespace: string, ctx: PodContext): { key: string; spec: EntrySpec } | { failure: string } | { skip: PodSkip } {
  const uid = pod.metadata.uid;
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) return { skip: 'unscheduled' };
  if (isFinished(pod)) return { skip: 'finished' };
  const node = ctx.node(nodeName);
  if (!node) return { failure: `node ${nodeName} is not known yet` };
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
  declared: DeclaredEntry[];
  /** Pods whose entries could not all be computed: their current entries stay. */
  unknownPods: Set<string>;
  renderFailures: RenderFailure[];
}

/**
 * The entries of a few pods, by the same rules as declareEntries (selection,
 * ignored namespaces, class, fallback order), without walking the rest of
 * the cluster: for a pass made of pod events only. Statistics are left to
 * the next full pass. A pod's entries depend only on the pod, its namespace
 * and node, the ClusterSPIFFEIDs and its services, so this equals the full
 * pass restricted to these pods.
 */
export function declarePods(
  pods: readonly Pod[],
  lookup: {
    clusterSPIFFEIDs: readonly ClusterSPIFFEID[];
    namespace: (name: string) => Namespace | undefined;
    node: (name: string) => Node | undefined;
    /** Called only when a ClusterSPIFFEID has autoPopulateDNSNames: indexing every EndpointSlice per pod event would cost in proportion to the cluster. */
    services: () => ServiceIndex;
  },
  settings: SelectionSettings,
): PodDeclaration {
  const out: PodDeclaration = { declared: [], unknownPods: new Set(), renderFailures: [] };
  const cache = settings.renderCache ?? new RenderCache();
  const { parsed, invalid } = parseOurClusterSPIFFEIDs(lookup.clusterSPIFFEIDs, settings);
  // An invalid object makes every pod's entries unknown; the full pass reports it.
  if (invalid.length > 0) {
    for (const p of pods) out.unknownPods.add(p.metadata.uid);
    return out;
  }
  const services = parsed.some((p) => p.autoPopulateDNSNames) ? lookup.services() : NO_SERVICES;
  const ctx: PodContext = { settings, cache, services, node: lookup.node };
  for (const pod of pods) {
    const nsName = pod.metadata.namespace ?? '';
    // In this order in both passes: an ignored name needs no Namespace object to be ignored.
    if (isIgnored(nsName, settings)) continue;
    const ns = lookup.namespace(nsName);
    if (!ns) {
      // The namespace event may not have arrived yet; its pod's entries are kept, as the full pass keeps them.
      out.unknownPods.add(pod.metadata.uid);
      continue;
    }
    let covered = false;
    for (const spec of parsed) {
      if (!spec.namespaceSelector(ns.metadata.labels) || !spec.podSelector(pod.metadata.labels)) continue;
      if (spec.fallback && covered) continue;
      const r = declareOne(spec, pod, nsName, ctx);
      if ('skip' in r) continue;
      if ('failure' in r) {
        out.unknownPods.add(pod.metadata.uid);
        out.renderFailures.push({ owner: spec.owner, pod: `${nsName}/${pod.metadata.name}`, message: r.failure });
        continue;
      }
      out.declared.push({ key: r.key, spec: r.spec, owner: spec.owner, podUid: pod.metadata.uid });
      if (!spec.fallback) covered = true;
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
