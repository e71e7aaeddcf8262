import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeConfig } from './connection.js';
import type { Logger } from 'pino';
import type { ClusterFederatedTrustDomain, ClusterSPIFFEID, ClusterStaticEntry, Endpoints, EndpointSlice, Namespace, Node, Pod } from '../api/index.js';
import type { ClusterSnapshot } from '../api/index.js';
import { fingerprints } from './fingerprint.js';
import { compactPod, type RelistReason, ResilientInformer, type Staleness } from './informer.js';
import { compactNamespace, compactNode, covers, describeProjection, podCompactor, type PodProjection, podProjectionFor, widen } from './projection.js';
import type { OptionalAccessReporter } from './forbidden.js';
import { listAll } from './rest.js';
import { chooseServiceSource, type ServiceSource } from './service-source.js';
import { type CacheScope, equalitySelector, type OwnerKind } from '../api/index.js';
import { crdKind, installedCrdMessage, isMissingCrd, missingCrdMessage } from './crd-presence.js';

const CRD = '/apis/spire.spiffe.io/v1alpha1';

interface Resource {
  name: string;
  path: string;
  fingerprint: (o: never) => string;
  compact?: (o: KubernetesObject) => void;
  /** For namespaced kinds: the path within one namespace, for a cache restricted to some (cacheNamespaces). */
  inNamespace?: (namespace: string) => string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** One informer (or one-shot list): a resource, or a resource within one namespace (`pods/shop`). */
interface Watched extends Resource {
  key: string;
}

/**
 * The informers for a scope: each namespaced resource once per cached namespace
 * (namespaced list and watch, as upstream's cache makes them, which namespaced
 * RBAC allows), narrowed by that namespace's selectors; ClusterSPIFFEIDs by
 * their label selector. Field selectors go to pods only: endpoints serve no
 * pod fields, and a list with one the API server does not know fails.
 */
function watchedFor(resources: readonly Resource[], scope: CacheScope): Watched[] {
  const out: Watched[] = [];
  for (const r of resources) {
    if (r.name === 'clusterspiffeids' && scope.clusterSPIFFEIDLabels) {
      out.push({ ...r, key: r.name, labelSelector: equalitySelector(scope.clusterSPIFFEIDLabels) });
    } else if (r.inNamespace && scope.namespaces) {
      for (const ns of scope.namespaces) {
        const fields = r.name === 'pods' ? ns.fieldSelector : undefined;
        out.push({
          ...r,
          key: `${r.name}/${ns.namespace}`,
          path: r.inNamespace(ns.namespace),
          labelSelector: ns.labelSelector ? equalitySelector(ns.labelSelector) : undefined,
          fieldSelector: fields ? equalitySelector(fields) : undefined,
        });
      }
    } else out.push({ ...r, key: r.name });
  }
  return out;
}

/**
 * Everything a pass reads, as informers (live mode) or one-shot lists
 * (plan, reconcile --once, explain) read it: one list per resource, or per
 * cached namespace, with the scope's selectors.
 */
export function watchedResources(serviceSource: ServiceSource, scope: CacheScope): Watched[] {
  const services: Resource[] = {
    endpointslices: [
      {
        name: 'endpointslices',
        path: '/apis/discovery.k8s.io/v1/endpointslices',
        fingerprint: fingerprints.endpointslices,
        inNamespace: (ns: string) => `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`,
      },
    ],
    endpoints: [{ name: 'endpoints', path: '/api/v1/endpoints', fingerprint: fingerprints.endpoints, inNamespace: (ns: string) => `/api/v1/namespaces/${ns}/endpoints` }],
    none: [],
  }[serviceSource];
  const resources: Resource[] = [
    { name: 'clusterspiffeids', path: `${CRD}/clusterspiffeids`, fingerprint: fingerprints.crd },
    { name: 'clusterstaticentries', path: `${CRD}/clusterstaticentries`, fingerprint: fingerprints.crd },
    { name: 'clusterfederatedtrustdomains', path: `${CRD}/clusterfederatedtrustdomains`, fingerprint: fingerprints.crd },
    { name: 'namespaces', path: '/api/v1/namespaces', fingerprint: fingerprints.namespaces, compact: compactNamespace },
    { name: 'nodes', path: '/api/v1/nodes', fingerprint: fingerprints.nodes, compact: compactNode },
    // One-shot lists keep every field of a pod but its status; the live cache keeps what templates read (ClusterCache).
    { name: 'pods', path: '/api/v1/pods', fingerprint: fingerprints.pods, compact: compactPod, inNamespace: (ns) => `/api/v1/namespaces/${ns}/pods` },
    ...services,
  ];
  return watchedFor(resources, scope);
}

/** The pod informers serving the cache (one, or one per cached namespace), or those listing pods with a wider projection to replace them. */
interface PodInformers {
  informers: ResilientInformer<KubernetesObject>[];
  projection: PodProjection;
  /** Of a wider set: the informers whose list has completed. */
  listed: Set<ResilientInformer<KubernetesObject>>;
}

export interface ClusterCacheOptions {
  kc: KubeConfig;
  log: Logger;
  /**
   * A change that can affect entries or federation: the controller should run a pass. `listed`: a list (the
   * first, or a relist) brought it, not a watch event. `previous`: the object it replaced in the cache, if any.
   */
  onChange: (resource: string, change?: { kind: 'add' | 'update' | 'delete'; obj: KubernetesObject; listed: boolean; previous?: KubernetesObject | undefined }) => void;
  /** Pods as the first list brings them, page by page, before the pod cache is synced. */
  onFirstPodPage?: (pods: Pod[]) => void;
  /** What is read (cacheNamespaces, the ClusterSPIFFEID label selector); default everything. */
  scope?: CacheScope;
  /** An informer started a relist (for a metric; the log has the words). */
  onRelist?: (informer: string, reason: RelistReason) => void;
  silenceMs?: number;
  /** Every informer relists this long after its last list (relistInterval); 0 or unset: never. */
  relistMs?: number;
  /** Give up a watch stream silent this long (default WATCH_STALL_MS; tests shorten it). */
  stallMs?: number;
  /** Server-side rotation of each watch stream (default WATCH_TIMEOUT_SECONDS). */
  watchTimeoutSeconds?: number;
  /** Told when EndpointSlices or Endpoints may not be listed (403), and so not watched. */
  onOptionalAccess?: OptionalAccessReporter;
}

export type { ServiceSource };

/**
 * Informers for everything a pass reads. Each keeps a cache that a pass
 * turns into a snapshot; changes that cannot affect the result (status churn,
 * our own status writes) are filtered out before they trigger anything.
 */
export class ClusterCache {
  // By informer key (`pods`, or `pods/shop` in a cache restricted to namespaces).
  private readonly informers = new Map<string, ResilientInformer<KubernetesObject>>();
  // The informers of each resource: one, or one per cached namespace.
  private readonly byResource = new Map<string, ResilientInformer<KubernetesObject>[]>();
  // What the pod cache keeps (see projection.ts), and the informers listing pods again with more, if any.
  private pods: PodInformers | undefined;
  private widening: PodInformers | undefined;
  private podWatched: Watched[] = [];
  // Our CRDs the API server does not serve (their list answered 404), by resource: their kinds are unknown, not empty.
  private readonly missing = new Set<string>();
  serviceSource: ServiceSource = 'endpointslices';
  /** Why the service source is not EndpointSlices, when access was denied: for the ClusterSPIFFEIDs' status. */
  serviceSourceDenied: string | undefined;

  constructor(private readonly opts: ClusterCacheOptions) {}

  async start(): Promise<void> {
    this.serviceSource = await this.chooseServiceSource();
    const watched = watchedResources(this.serviceSource, this.opts.scope ?? {});
    this.podWatched = watched.filter((r) => r.name === 'pods');
    for (const r of watched) if (r.name !== 'pods') this.install(r, this.makeInformer(r));
    // Pods are listed once the ClusterSPIFFEIDs are, so that the pod cache keeps what their templates read
    // (a failed first list of ClusterSPIFFEIDs does not hold them up: the pods are listed again when it succeeds).
    const started = new Map([...this.informers.values()].map((i) => [i, i.start()]));
    await Promise.all((this.byResource.get('clusterspiffeids') ?? []).map((i) => started.get(i)));
    const projection = podProjectionFor(this.items<ClusterSPIFFEID>('clusterspiffeids'));
    const firstPages = this.opts.onFirstPodPage as ((items: KubernetesObject[]) => void) | undefined;
    this.pods = { informers: this.podWatched.map((r) => this.makeInformer(r, podCompactor(projection), firstPages)), projection, listed: new Set() };
    this.pods.informers.forEach((informer, i) => this.install(this.podWatched[i]!, informer));
    this.opts.log.debug(`pod cache keeps ${describeProjection(projection)}`);
    await Promise.all([...started.values(), ...this.pods.informers.map((i) => i.start())]);
  }

  private install(r: Watched, informer: ResilientInformer<KubernetesObject>): void {
    this.informers.set(r.key, informer);
    const siblings = this.byResource.get(r.name);
    if (siblings) siblings.push(informer);
    else this.byResource.set(r.name, [informer]);
  }

  private makeInformer(r: Watched, compact = r.compact, onFirstListPage?: (items: KubernetesObject[]) => void): ResilientInformer<KubernetesObject> {
    const selectors = { labelSelector: r.labelSelector, fieldSelector: r.fieldSelector };
    const informer: ResilientInformer<KubernetesObject> = new ResilientInformer<KubernetesObject>(this.opts.kc, {
      name: r.key,
      path: r.path,
      ...selectors,
      // The cache drops every object's managedFields: cutting them before parsing halves the cost of a list.
      list: (onPage) => listAll(this.opts.kc, r.path, { dropManagedFields: true, ...selectors, onPage }),
      onChange: (kind, obj, previous, listed) => this.changed(r, kind, obj, previous, informer, listed),
      onListed: () => {
        this.served(r);
        // Once each wider pod informer's cache holds its list, they replace those serving.
        this.widened(informer);
      },
      compact,
      onFirstListPage,
      onResync: () => this.resynced(r, informer),
      onError: (err, retryInMs) => this.informerFailed(r, err, retryInMs),
      onRelist: (reason: RelistReason) => {
        // The others are said by onError, with their cause; this one is routine.
        if (reason === 'periodic') this.opts.log.debug({ informer: r.key }, 'informer relisting on schedule (relistInterval)');
        this.opts.onRelist?.(r.key, reason);
      },
      // 0 as unset: the informer's own default (it reads these with ??).
      silenceMs: this.opts.silenceMs || undefined,
      relistMs: this.opts.relistMs || undefined,
      stallMs: this.opts.stallMs || undefined,
      watchTimeoutSeconds: this.opts.watchTimeoutSeconds || undefined,
    });
    return informer;
  }

  /**
   * A failed list or watch is a warning, but for one of our CRDs that is not
   * installed: that is said once (the list is retried with backoff, and would
   * say it on every retry), its kind is unknown from then on (`notInstalled`),
   * and a pass follows, since the caches count as synced without it.
   */
  private informerFailed(r: Watched, err: unknown, retryInMs: number): void {
    if (isMissingCrd(r.name, err)) {
      if (this.missing.has(r.name)) return;
      this.missing.add(r.name);
      // The list is retried with backoff up to 30 s: that is how soon an installed CRD is taken up.
      this.opts.log.warn(`${missingCrdMessage(r.name)}, and it is taken up within 30 s`);
      this.opts.onChange(r.name);
      return;
    }
    this.opts.log.warn({ err, informer: r.key, retryInMs: retryInMs || undefined }, retryInMs ? 'informer failed; restarting' : 'informer failed');
  }

  /** A list completed: a CRD that was missing is installed now, and its kind is known again. */
  private served(r: Watched): void {
    if (!this.missing.delete(r.name)) return;
    this.opts.log.info(installedCrdMessage(r.name));
    this.opts.onChange(r.name);
  }

  /** The kinds whose CRD the API server does not serve: what their objects declare is unknown. */
  notInstalled(): OwnerKind[] {
    return [...this.missing].map((r) => crdKind(r)).filter((k): k is OwnerKind => k !== undefined);
  }

  /** An informer whose resource is not served lists nothing, and waiting for it would hold everything else up. */
  private waitedFor(i: ResilientInformer<KubernetesObject>): boolean {
    return !this.missing.has(i.name);
  }

  /**
   * True when the pod cache holds every field the cached ClusterSPIFFEIDs read. False
   * from the moment one reads a field that is not kept until the pods are listed again
   * with it: a pass must not render then (a missing field would render a wrong entry).
   * That is exactly while a wider list is under way: every ClusterSPIFFEID change is
   * checked (checkPodProjection) before it is reported, so nothing is recomputed here,
   * once per pass.
   */
  podsCoverTemplates(): boolean {
    return this.widening === undefined;
  }

  /** After a ClusterSPIFFEID change: lists the pods again if its templates read a field the pod cache does not keep. */
  private checkPodProjection(): void {
    if (!this.pods) return;
    const needed = podProjectionFor(this.items<ClusterSPIFFEID>('clusterspiffeids'));
    const target = this.widening ?? this.pods;
    if (covers(target.projection, needed)) return;
    const projection = widen(target.projection, needed);
    for (const i of this.widening?.informers ?? []) i.stop();
    this.widening = { informers: this.podWatched.map((r) => this.makeInformer(r, podCompactor(projection))), projection, listed: new Set() };
    this.opts.log.info(`a ClusterSPIFFEID reads pod fields the cache does not keep: listing pods again, keeping ${describeProjection(projection)}`);
    for (const i of this.widening.informers) void i.start();
  }

  /** Once every wider pod informer has listed, they replace those serving, and a full pass follows. */
  private widened(informer: ResilientInformer<KubernetesObject>): void {
    const wider = this.widening;
    if (!wider || !this.pods || !wider.informers.includes(informer)) return;
    wider.listed.add(informer);
    if (wider.listed.size < wider.informers.length) return;
    const old = this.pods.informers;
    this.pods = wider;
    this.widening = undefined;
    this.byResource.set('pods', []);
    wider.informers.forEach((i, n) => this.install(this.podWatched[n]!, i));
    for (const i of old) i.stop();
    this.podWatched.forEach((r, n) => this.resynced(r, wider.informers[n]!));
  }

  private async chooseServiceSource(): Promise<ServiceSource> {
    const chosen = await chooseServiceSource(this.opts.kc, this.opts.log, this.opts.onOptionalAccess);
    this.serviceSourceDenied = chosen.denied;
    return chosen.source;
  }

  /**
   * A change is compared with the object it replaced, as the informer hands it over, so no copy or
   * digest of every object is kept: either would cost memory per pod, and a digest a hash and a
   * serialization per pod at start.
   */
  private changed(r: Watched, kind: 'add' | 'update' | 'delete', obj: KubernetesObject, previous: KubernetesObject | undefined, informer: ResilientInformer<KubernetesObject>, listed: boolean): void {
    // A pod informer listing with a wider projection reports nothing until it replaces the one serving.
    if (informer !== this.informers.get(r.key)) return;
    // A relist starts a fresh cache, which reports every object as added: one held before unchanged is no change.
    if (kind !== 'delete' && previous && r.fingerprint(previous as never) === r.fingerprint(obj as never)) return;
    if (r.name === 'clusterspiffeids' && kind !== 'delete') this.checkPodProjection();
    this.opts.onChange(r.name, { kind, obj, listed, previous });
  }

  /** After a relist, a full pass: the relist reported each change, and a pass compares the whole cache with SPIRE. */
  private resynced(r: Watched, informer: ResilientInformer<KubernetesObject>): void {
    if (informer !== this.informers.get(r.key)) return;
    this.opts.onChange(r.name);
  }

  /** True once every informer has listed, but those of CRDs not installed. */
  get hasSynced(): boolean {
    return [...this.informers.values()].every((i) => i.hasSynced || !this.waitedFor(i));
  }

  /** The informers whose caches may not be current, with since when and why (see ResilientInformer.staleness). */
  stale(): ({ informer: string } & Staleness)[] {
    const out: ({ informer: string } & Staleness)[] = [];
    for (const i of this.informers.values()) {
      const s = i.staleness;
      if (s && this.waitedFor(i)) out.push({ informer: i.name, ...s });
    }
    return out;
  }

  /** Every informer's staleness in seconds, 0 when its cache is current (for the metric). */
  staleSeconds(now = Date.now()): { informer: string; seconds: number }[] {
    return [...this.informers.values()].map((i) => ({ informer: i.name, seconds: i.staleness ? (now - i.staleness.since) / 1000 : 0 }));
  }

  unsynced(): string[] {
    return [...this.informers.values()].filter((i) => !i.hasSynced && this.waitedFor(i)).map((i) => i.name);
  }

  /** One resource's cached objects, without building the whole snapshot. */
  items<T>(name: string): T[] {
    const informers = this.byResource.get(name) ?? [];
    if (informers.length === 1) return informers[0]!.list() as unknown as T[];
    return informers.flatMap((i) => i.list()) as unknown as T[];
  }

  snapshot(): ClusterSnapshot {
    return {
      clusterSPIFFEIDs: this.items<ClusterSPIFFEID>('clusterspiffeids'),
      clusterStaticEntries: this.items<ClusterStaticEntry>('clusterstaticentries'),
      namespaces: this.items<Namespace>('namespaces'),
      pods: this.items<Pod>('pods'),
      nodes: this.items<Node>('nodes'),
      endpointSlices: this.items<EndpointSlice>('endpointslices'),
      endpoints: this.items<Endpoints>('endpoints'),
      notInstalled: this.missing.size > 0 ? this.notInstalled() : undefined,
    };
  }

  federatedTrustDomains(): ClusterFederatedTrustDomain[] {
    return this.items<ClusterFederatedTrustDomain>('clusterfederatedtrustdomains');
  }

  /** The cached object, to compare a status with before writing it. */
  get<T>(resource: string, name: string, namespace?: string): T | undefined {
    for (const informer of this.byResource.get(resource) ?? []) {
      const obj = informer.get(name, namespace);
      if (obj) return obj as T;
    }
    return undefined;
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
    for (const i of this.widening?.informers ?? []) i.stop();
  }
}
