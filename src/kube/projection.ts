/**
 * What the caches keep of each pod, node and namespace: what ClusterSPIFFEIDs
 * and the engine read, and nothing else. At 100,000 pods the pod cache is
 * most of the controller's memory, and a real pod's spec (containers, volumes,
 * environment, tolerations) and annotations are most of a pod.
 *
 * Pods keep what the engine reads (metadata name, namespace, uid,
 * resourceVersion and labels; spec.nodeName; status.phase) and the
 * first-level metadata and spec fields that any ClusterSPIFFEID's templates
 * can read (src/template/reads.ts), over every ClusterSPIFFEID in the
 * cluster. Nodes keep metadata and spec (templates and the parent ID template
 * read them; there are few nodes), not their status. Namespaces keep what
 * selectors read: name, uid, resourceVersion and labels. managedFields are
 * never kept.
 *
 * When a ClusterSPIFFEID starts reading a pod field that is not kept, the
 * pods are listed again with the wider projection (see ClusterCache), and no
 * pass renders until that list is complete.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ClusterSPIFFEID } from '../api/index.js';
import { compileTemplate, type FieldsRead, type KeysRead, unionRead } from '../template/index.js';

/** What the pod cache keeps of metadata and spec: first-level keys, or all of them. */
export interface PodProjection {
  readonly meta: KeysRead;
  readonly spec: KeysRead;
}

/** What the engine itself reads of a pod, whatever the templates say. */
const ENGINE_POD_META = ['name', 'namespace', 'uid', 'resourceVersion', 'labels'];
const ENGINE_POD_SPEC = ['nodeName'];

function templatesRead(sources: readonly (string | undefined)[]): FieldsRead[] {
  const out: FieldsRead[] = [];
  for (const source of sources) {
    if (typeof source !== 'string' || source === '') continue;
    try {
      out.push(compileTemplate(source).reads);
    } catch {
      // A template that does not parse renders nothing: the pass reports it.
    }
  }
  return out;
}

/** The pod fields these ClusterSPIFFEIDs' templates and the engine read. */
export function podProjectionFor(clusterSPIFFEIDs: readonly ClusterSPIFFEID[]): PodProjection {
  const sources: (string | undefined)[] = [];
  for (const c of clusterSPIFFEIDs) {
    const spec = c.spec as Partial<ClusterSPIFFEID['spec']> | undefined;
    sources.push(spec?.spiffeIDTemplate, ...(Array.isArray(spec?.dnsNameTemplates) ? spec.dnsNameTemplates : []), ...(Array.isArray(spec?.workloadSelectorTemplates) ? spec.workloadSelectorTemplates : []));
  }
  const read = unionRead(templatesRead(sources));
  return { meta: withKeys(read.PodMeta, ENGINE_POD_META), spec: withKeys(read.PodSpec, ENGINE_POD_SPEC) };
}

function withKeys(read: KeysRead, base: readonly string[]): KeysRead {
  return read === 'all' ? 'all' : new Set([...base, ...read]);
}

function coversKeys(kept: KeysRead, needed: KeysRead): boolean {
  if (kept === 'all') return true;
  if (needed === 'all') return false;
  for (const k of needed) if (!kept.has(k)) return false;
  return true;
}

/** Whether a cache kept with `kept` holds everything `needed` reads. */
export function covers(kept: PodProjection, needed: PodProjection): boolean {
  return coversKeys(kept.meta, needed.meta) && coversKeys(kept.spec, needed.spec);
}

function unionKeys(a: KeysRead, b: KeysRead): KeysRead {
  return a === 'all' || b === 'all' ? 'all' : new Set([...a, ...b]);
}

export function widen(a: PodProjection, b: PodProjection): PodProjection {
  return { meta: unionKeys(a.meta, b.meta), spec: unionKeys(a.spec, b.spec) };
}

export function describeProjection(p: PodProjection): string {
  const keys = (k: KeysRead) => (k === 'all' ? 'all' : [...k].sort().join(','));
  return `metadata: ${keys(p.meta)}; spec: ${keys(p.spec)}`;
}

type Json = Record<string, unknown>;

/**
 * A new object with the kept keys, in a fixed order, so that the objects of
 * one projection share their shape. managedFields are never kept.
 */
function picker(keys: KeysRead): (from: Json | undefined) => Json | undefined {
  if (keys === 'all') {
    return (from) => {
      if (from === undefined || from === null) return from;
      if (!('managedFields' in from)) return from;
      const { managedFields: _mf, ...rest } = from;
      return rest;
    };
  }
  const list = [...keys];
  return (from) => {
    if (from === undefined || from === null || typeof from !== 'object') return from;
    const out: Json = {};
    for (const k of list) {
      const v = from[k];
      if (v !== undefined) out[k] = v;
    }
    return out;
  };
}

type Compacting = KubernetesObject & { spec?: unknown; status?: unknown };

// A pod's cached status is its phase alone: one shared, frozen object per phase instead of one per pod.
const statuses = new Map<string, Readonly<{ phase: string }>>();
const NO_PHASE = Object.freeze({});
function statusOf(phase: unknown): object {
  if (typeof phase !== 'string') return NO_PHASE;
  let s = statuses.get(phase);
  // Phases are a handful of words; anything else is kept without being shared.
  if (!s && statuses.size < 16) statuses.set(phase, (s = Object.freeze({ phase })));
  return s ?? { phase };
}

/** Cuts a pod down to a projection, in place (the informer stores the object it was given). */
export function podCompactor(p: PodProjection): (obj: KubernetesObject) => void {
  const meta = picker(p.meta);
  const spec = picker(p.spec);
  return (obj) => {
    const o = obj as Compacting;
    if (o.metadata) o.metadata = meta(o.metadata as Json) as KubernetesObject['metadata'];
    if (o.spec !== undefined) o.spec = spec(o.spec as Json);
    if (o.status !== undefined) o.status = statusOf((o.status as { phase?: unknown } | null)?.phase);
  };
}

const keepNamespaceMeta = picker(new Set(['name', 'uid', 'resourceVersion', 'labels']));
const keepNodeMeta = picker('all');

/** A namespace as selectors read it: name, uid, resourceVersion and labels. */
export function compactNamespace(obj: KubernetesObject): void {
  const o = obj as Compacting;
  if (o.metadata) o.metadata = keepNamespaceMeta(o.metadata as Json) as KubernetesObject['metadata'];
  delete o.spec;
  delete o.status;
}

/** A node as templates read it: metadata and spec, no status. */
export function compactNode(obj: KubernetesObject): void {
  const o = obj as Compacting;
  if (o.metadata) o.metadata = keepNodeMeta(o.metadata as Json) as KubernetesObject['metadata'];
  delete o.status;
}
