/**
 * The object store: what etcd and the registry strategies do for the real API
 * server. One global resourceVersion counter, a bounded event history for
 * watch-from-RV (older versions are "compacted" and answer 410), and the write
 * rules (conflicts, status subresource, generation, finalizers, namespaces).
 *
 * Stored objects are never mutated; every write stores a fresh copy, so a
 * history event's `prev` and `object` stay what they were.
 */
import { v4 as uuidv4 } from 'uuid';
import {
  alreadyExists,
  badRequest,
  conflict,
  expired,
  internalError,
  invalid,
  KubeApiError,
  notFound,
  type StatusCause,
} from './errors.js';
import { generateName, labelCauses, nameCauses, recordManager, sameContent, specChanged, tracksGeneration } from './meta.js';
import type { ResourceRegistry, ResourceType } from './resources.js';
import { pruneMetadata } from './schema.js';
import { isPlainObject, jsonCopy, timestamp, type KubeObject } from './types.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  rv: number;
  type: EventType;
  resource: ResourceType;
  object: KubeObject;
  /** The object before this event (MODIFIED, DELETED). */
  prev?: KubeObject;
}

export interface WriteContext {
  /** The field manager recorded in managedFields. */
  manager: string;
  operation?: 'Apply' | 'Update';
  dryRun?: boolean;
}

export interface CreateContext extends WriteContext {
  /**
   * Reset status as the API server does for a create request on a resource
   * with a status subresource. Test set-up (direct create) keeps the status
   * it is given, as if a kubelet or controller had already written it.
   */
  resetStatus?: boolean;
}

export interface UpdateContext extends WriteContext {
  /** Write through the /status subresource: only status changes. */
  subresource?: 'status';
  /** Write every field, status included (test set-up's update). */
  everything?: boolean;
}

export interface DeleteContext {
  dryRun?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** DeleteOptions' gracePeriodSeconds; unset means the object's own (a pod's terminationGracePeriodSeconds). */
  gracePeriodSeconds?: number;
}

function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

export function keyOf(obj: KubeObject): string {
  return objectKey(obj.metadata.namespace, obj.metadata.name ?? '');
}

function byKey(a: KubeObject, b: KubeObject): number {
  const ka = keyOf(a);
  const kb = keyOf(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

export interface StoreBackup {
  rv: number;
  objects: Map<ResourceType, Map<string, KubeObject>>;
}

export class Store {
  private rv = 0;
  private compacted = 0;
  private readonly objects = new Map<ResourceType, Map<string, KubeObject>>();
  /** Ring of recent events, oldest first from `head`. */
  private history: StoreEvent[] = [];
  private head = 0;
  private readonly listeners = new Set<(ev: StoreEvent) => void>();

  constructor(
    readonly registry: ResourceRegistry,
    private readonly maxHistory: number,
    /** Namespaced objects need an existing, not terminating namespace (NamespaceLifecycle admission). */
    private readonly namespaceLifecycle: boolean,
  ) {
    for (const r of registry.all) this.objects.set(r, new Map());
  }

  /** The latest resourceVersion handed out. */
  get resourceVersion(): number {
    return this.rv;
  }

  /** Watches and exact lists from a resourceVersion older than this answer 410 Expired. */
  get oldestResourceVersion(): number {
    return this.compacted;
  }

  get(r: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(r)!.get(objectKey(r.namespaced ? namespace : undefined, name));
  }

  /** Current objects of a type, in key order (namespace/name), as etcd lists them. */
  list(r: ResourceType, namespace?: string): KubeObject[] {
    const all = [...this.objects.get(r)!.values()];
    const picked = namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
    return picked.sort(byKey);
  }

  /** The objects of a type as they were at `rv`, rebuilt by undoing later events. */
  snapshot(r: ResourceType, rv: number, namespace?: string): KubeObject[] {
    if (rv < this.compacted) throw expired('The resourceVersion for the provided list is too old.');
    const state = new Map(this.objects.get(r)!);
    for (let i = this.history.length - 1; i >= this.head; i--) {
      const ev = this.history[i]!;
      if (ev.rv <= rv) break;
      if (ev.resource !== r) continue;
      if (ev.type === 'ADDED') state.delete(keyOf(ev.object));
      else state.set(keyOf(ev.object), ev.prev!);
    }
    const all = [...state.values()];
    return (namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace)).sort(byKey);
  }

  /** Retained events after `rv` (all types); the caller checks `rv >= oldestResourceVersion` first. */
  eventsAfter(rv: number): StoreEvent[] {
    const out: StoreEvent[] = [];
    for (let i = this.history.length - 1; i >= this.head; i--) {
      const ev = this.history[i]!;
      if (ev.rv <= rv) break;
      out.push(ev);
    }
    return out.reverse();
  }

  subscribe(listener: (ev: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What a backup of etcd holds: the objects and the revision it was taken at. */
  backup(): StoreBackup {
    return { rv: this.rv, objects: new Map([...this.objects].map(([r, m]) => [r, new Map(m)])) };
  }

  /**
   * etcd restored from a backup: the objects as they were then, and the
   * revision counter back at the backup's, so resourceVersions clients hold
   * from after the backup are now ahead of the server. The history before
   * the backup is gone. No event is sent: nothing watched the restore.
   */
  restore(b: StoreBackup): void {
    for (const [r, m] of b.objects) this.objects.set(r, new Map(m));
    this.rv = b.rv;
    this.compacted = b.rv;
    this.history = [];
    this.head = 0;
  }

  /** Forgets all history: every resourceVersion before now is expired. */
  compact(): void {
    this.compacted = this.rv;
    this.history = [];
    this.head = 0;
  }

  create(r: ResourceType, input: unknown, ctx: CreateContext): KubeObject {
    const obj = this.normalize(r, input);
    const meta = obj.metadata;
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
    const name = meta.name ?? '';
    if (!name) {
      throw invalid(r.kind, r.group, '', [
        { reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' },
      ]);
    }
    if (r.namespaced && this.namespaceLifecycle) this.requireNamespace(meta.namespace!);
    if (this.get(r, meta.namespace, name)) throw alreadyExists(r, name);
    // etcd refuses to create an object carrying a version; so does the API server (as a 500).
    if (meta.resourceVersion) throw internalError('resourceVersion should not be set on objects to be created');
    if (r.statusSubresource && ctx.resetStatus) {
      const status = r.initialStatus?.();
      if (status === undefined) delete obj.status;
      else obj.status = status;
    }
    r.defaults?.(obj);
    this.admitOnCreate(r, obj);
    this.validate(r, obj, name);
    meta.uid = uuidv4();
    meta.creationTimestamp = timestamp();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (tracksGeneration(r)) meta.generation = 1;
    else delete meta.generation;
    delete meta.managedFields;
    recordManager(r, obj, ctx.manager, ctx.operation ?? 'Update');
    if (ctx.dryRun) return obj;
    return this.commit(r, 'ADDED', obj);
  }

  /**
   * What admission plugins of kube-apiserver v1.36 add to a new object:
   * TaintNodesByCondition taints a new Node not-ready; PodTopologyLabels copies
   * its node's zone and region labels to a pod created on a node.
   */
  private admitOnCreate(r: ResourceType, obj: KubeObject): void {
    if (r.kind === 'Node' && r.group === '') {
      const spec = obj.spec as { taints?: { key: string; effect: string }[] };
      const taints = spec.taints ?? [];
      if (!taints.some((t) => t.key === 'node.kubernetes.io/not-ready')) taints.push({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' });
      spec.taints = taints;
    }
    if (r.kind === 'Pod' && r.group === '') {
      // The QoS class, set once at creation: BestEffort without any requests or limits (others not modelled).
      const containers = ((obj.spec as { containers?: { resources?: object }[] } | undefined)?.containers ?? []);
      if (obj.status && containers.every((c) => Object.keys(c.resources ?? {}).length === 0)) (obj.status as Record<string, unknown>).qosClass ??= 'BestEffort';
      const nodeName = (obj.spec as { nodeName?: unknown } | undefined)?.nodeName;
      const nodeType = this.registry.byKind('v1', 'Node');
      const node = typeof nodeName === 'string' && nodeType ? this.get(nodeType, undefined, nodeName) : undefined;
      for (const key of ['topology.kubernetes.io/zone', 'topology.kubernetes.io/region']) {
        const value = node?.metadata.labels?.[key];
        if (value !== undefined) obj.metadata.labels = { ...obj.metadata.labels, [key]: value };
      }
    }
  }

  /**
   * PUT semantics (PATCH builds the patched object and comes here too): a
   * given resourceVersion must be the current one, system metadata is kept,
   * the main resource never writes status and /status writes nothing else.
   */
  update(r: ResourceType, input: unknown, ctx: UpdateContext): KubeObject {
    const obj = this.normalize(r, input);
    const name = obj.metadata.name ?? '';
    const existing = this.get(r, obj.metadata.namespace, name);
    if (!existing) throw notFound(r, name);
    if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== existing.metadata.resourceVersion) {
      throw conflict(r, name);
    }
    // A UID in an update is a precondition, as the API server's storage takes it.
    if (obj.metadata.uid && obj.metadata.uid !== existing.metadata.uid) {
      const key = `/registry/${r.plural}/${r.namespaced ? `${existing.metadata.namespace}/` : ''}${name}`;
      throw conflict(r, name, `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${obj.metadata.uid}, UID in object meta: ${existing.metadata.uid}`);
    }
    let next: KubeObject;
    if (ctx.subresource === 'status') {
      next = jsonCopy(existing);
      if (obj.status === undefined) delete next.status;
      else next.status = obj.status;
    } else {
      next = obj;
      const meta = next.metadata;
      const old = existing.metadata;
      meta.name = old.name;
      if (r.namespaced) meta.namespace = old.namespace;
      meta.uid = old.uid;
      meta.creationTimestamp = old.creationTimestamp;
      if (old.deletionTimestamp) meta.deletionTimestamp = old.deletionTimestamp;
      else delete meta.deletionTimestamp;
      if (old.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
      else delete meta.deletionGracePeriodSeconds;
      delete meta.generateName;
      if (old.generateName) meta.generateName = old.generateName;
      meta.managedFields ??= old.managedFields;
      if (r.statusSubresource && !ctx.everything) {
        if (existing.status === undefined) delete next.status;
        else next.status = jsonCopy(existing.status);
      }
      r.defaults?.(next);
      if (tracksGeneration(r)) meta.generation = (old.generation ?? 1) + (specChanged(existing, next) ? 1 : 0);
      else delete meta.generation;
    }
    next.metadata.resourceVersion = existing.metadata.resourceVersion;
    this.validate(r, next, name);
    if (sameContent(existing, next)) return existing;
    recordManager(r, next, ctx.manager, ctx.operation ?? 'Update', ctx.subresource);
    if (ctx.dryRun) return next;
    const written = this.commit(r, 'MODIFIED', next, existing);
    // Removing the last finalizer of an object being deleted completes the deletion.
    if (written.metadata.deletionTimestamp && !written.metadata.finalizers?.length) {
      return this.remove(r, written);
    }
    return written;
  }

  delete(r: ResourceType, namespace: string | undefined, name: string, ctx: DeleteContext = {}): KubeObject {
    const existing = this.get(r, namespace, name);
    if (!existing) throw notFound(r, name);
    const pre = ctx.preconditions;
    if (pre?.uid && pre.uid !== existing.metadata.uid) {
      throw conflict(r, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${existing.metadata.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== existing.metadata.resourceVersion) {
      throw conflict(
        r,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in meta: ${existing.metadata.resourceVersion}`,
      );
    }
    if (ctx.dryRun) return existing;
    if (r.kind === 'Namespace' && !r.group) return this.deleteNamespace(r, existing);
    const grace = r.kind === 'Pod' && !r.group ? podGracePeriod(existing, ctx.gracePeriodSeconds) : 0;
    if (grace > 0) {
      // What the kubelet would confirm later: the pod stays, terminating, and a shorter grace period moves the deadline.
      const held = existing.metadata.deletionGracePeriodSeconds;
      if (existing.metadata.deletionTimestamp && held !== undefined && held <= grace) return existing;
      return this.commit(r, 'MODIFIED', this.markDeleting(r, existing, grace), existing);
    }
    if (existing.metadata.finalizers?.length) {
      if (existing.metadata.deletionTimestamp) return existing;
      return this.commit(r, 'MODIFIED', this.markDeleting(r, existing, 0), existing);
    }
    return this.remove(r, existing);
  }

  /** Marked for deletion `grace` seconds from now; the generation moves the first time only. */
  private markDeleting(r: ResourceType, existing: KubeObject, grace: number): KubeObject {
    const next = jsonCopy(existing);
    next.metadata.deletionTimestamp = timestamp(new Date(Date.now() + grace * 1000));
    next.metadata.deletionGracePeriodSeconds = grace;
    if (tracksGeneration(r) && next.metadata.generation && !existing.metadata.deletionTimestamp) next.metadata.generation += 1;
    return next;
  }

  /**
   * A namespace is marked Terminating, its contents are deleted (the
   * namespace controller's job, done here at once), then it goes. Finalizers
   * on the contents are not waited for.
   */
  private deleteNamespace(r: ResourceType, existing: KubeObject): KubeObject {
    const ns = existing.metadata.name!;
    const terminating = this.markDeleting(r, existing, 0);
    terminating.status = { ...(isPlainObject(existing.status) ? existing.status : {}), phase: 'Terminating' };
    const current = this.commit(r, 'MODIFIED', terminating, existing);
    for (const type of this.registry.all) {
      if (!type.namespaced) continue;
      for (const obj of this.list(type, ns)) this.remove(type, obj);
    }
    return this.remove(r, current);
  }

  private remove(r: ResourceType, existing: KubeObject): KubeObject {
    this.objects.get(r)!.delete(keyOf(existing));
    const gone = jsonCopy(existing);
    gone.metadata.resourceVersion = String(++this.rv);
    this.record({ rv: this.rv, type: 'DELETED', resource: r, object: gone, prev: existing });
    return gone;
  }

  private commit(r: ResourceType, type: 'ADDED' | 'MODIFIED', obj: KubeObject, prev?: KubeObject): KubeObject {
    obj.metadata.resourceVersion = String(++this.rv);
    this.objects.get(r)!.set(keyOf(obj), obj);
    this.record({ rv: this.rv, type, resource: r, object: obj, ...(prev ? { prev } : {}) });
    return obj;
  }

  private record(ev: StoreEvent): void {
    this.history.push(ev);
    while (this.history.length - this.head > this.maxHistory) {
      this.compacted = this.history[this.head]!.rv;
      this.head++;
    }
    // Drop the consumed prefix now and then instead of shifting on every write.
    if (this.head > 1024 && this.head * 2 > this.history.length) {
      this.history = this.history.slice(this.head);
      this.head = 0;
    }
    for (const l of [...this.listeners]) l(ev);
  }

  private requireNamespace(ns: string): void {
    const namespaces = this.registry.namespaces();
    const found = this.get(namespaces, undefined, ns);
    if (!found) throw notFound(namespaces, ns);
    if (found.metadata.deletionTimestamp) {
      throw new KubeApiError(403, 'Forbidden', `unable to create new content in namespace ${ns} because it is being terminated`, {
        name: ns,
        kind: 'namespaces',
      });
    }
  }

  /** A private copy of the input with kind/apiVersion set and unknown fields pruned, as decoding does. */
  private normalize(r: ResourceType, input: unknown): KubeObject {
    if (!isPlainObject(input)) throw badRequest('the request body must be a JSON object');
    const obj = jsonCopy(input) as KubeObject;
    if (!isPlainObject(obj.metadata)) obj.metadata = {};
    obj.apiVersion = r.apiVersion;
    obj.kind = r.kind;
    // The HTTP layer has already checked the namespace against the URL; direct writes default as kubectl does.
    if (r.namespaced) obj.metadata.namespace ||= 'default';
    else delete obj.metadata.namespace;
    if (r.schema) r.schema.prune(obj);
    else pruneMetadata(obj.metadata);
    return obj;
  }

  private validate(r: ResourceType, obj: KubeObject, name: string): void {
    const causes: StatusCause[] = [...nameCauses(r, name), ...labelCauses(obj.metadata.labels)];
    if (r.schema) causes.push(...r.schema.validate(obj));
    if (causes.length > 0) throw invalid(r.kind, r.group, name, causes);
  }
}

/**
 * A pod's grace period on delete, as kube-apiserver's pod strategy decides it:
 * a pod on no node, or one that has finished, has nothing to wait for (0);
 * otherwise the request's, or the pod's terminationGracePeriodSeconds (30
 * when unset).
 */
function podGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const phase = isPlainObject(pod.status) ? pod.status.phase : undefined;
  if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
  return requested ?? (typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30);
}
