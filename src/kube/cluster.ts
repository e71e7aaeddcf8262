import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ClusterFederatedTrustDomain, ClusterSPIFFEID, ClusterStaticEntry, Endpoints, EndpointSlice, Namespace, Node, Pod } from '../api/index.js';
import type { ClusterSnapshot } from '../entries/index.js';
import { fingerprints } from './fingerprint.js';
import { compactPod, ResilientInformer } from './informer.js';
import { KubeApiError, kubeRequest, listAll } from './rest.js';

const CRD = '/apis/spire.spiffe.io/v1alpha1';

interface Resource {
  name: string;
  path: string;
  fingerprint: (o: never) => string;
  compact?: (o: KubernetesObject) => void;
}

export interface ClusterCacheOptions {
  kc: KubeConfig;
  log: Logger;
  /** A change that can affect entries or federation: the controller should run a pass. */
  onChange: (resource: string, change?: { kind: 'add' | 'update' | 'delete'; obj: KubernetesObject }) => void;
  /** Pods as the first list brings them, page by page, before the pod cache is synced. */
  onFirstPodPage?: (pods: Pod[]) => void;
  silenceMs?: number;
}

function keyOf(obj: KubernetesObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/**
 * Informers for everything a pass reads. Each keeps a cache that a pass
 * turns into a snapshot; changes that cannot affect the result (status churn,
 * our own status writes) are filtered out before they trigger anything.
 */
export class ClusterCache {
  private readonly informers = new Map<string, ResilientInformer<KubernetesObject>>();
  // The last object seen per resource and key: a change is compared with it (not with a digest kept for every
  // object, which at 100,000 pods cost a SHA-1 and a serialization per pod at start, and tens of MiB).
  private readonly seen = new Map<string, Map<string, KubernetesObject>>();
  usesEndpointSlices = true;

  constructor(private readonly opts: ClusterCacheOptions) {}

  async start(): Promise<void> {
    this.usesEndpointSlices = await this.hasEndpointSlices();
    const resources: Resource[] = [
      { name: 'clusterspiffeids', path: `${CRD}/clusterspiffeids`, fingerprint: fingerprints.crd },
      { name: 'clusterstaticentries', path: `${CRD}/clusterstaticentries`, fingerprint: fingerprints.crd },
      { name: 'clusterfederatedtrustdomains', path: `${CRD}/clusterfederatedtrustdomains`, fingerprint: fingerprints.crd },
      { name: 'namespaces', path: '/api/v1/namespaces', fingerprint: fingerprints.namespaces },
      { name: 'nodes', path: '/api/v1/nodes', fingerprint: fingerprints.nodes },
      { name: 'pods', path: '/api/v1/pods', fingerprint: fingerprints.pods, compact: compactPod },
      this.usesEndpointSlices
        ? { name: 'endpointslices', path: '/apis/discovery.k8s.io/v1/endpointslices', fingerprint: fingerprints.endpointslices }
        : { name: 'endpoints', path: '/api/v1/endpoints', fingerprint: fingerprints.endpoints },
    ];
    for (const r of resources) {
      const informer = new ResilientInformer<KubernetesObject>(this.opts.kc, {
        name: r.name,
        path: r.path,
        // The cache drops every object's managedFields: cutting them before parsing halves the cost of a list.
        list: (onPage) => listAll(this.opts.kc, r.path, { dropManagedFields: true, ...(onPage ? { onPage } : {}) }),
        onChange: (kind, obj) => this.changed(r, kind, obj),
        ...(r.compact ? { compact: r.compact } : {}),
        ...(r.name === 'pods' && this.opts.onFirstPodPage ? { onFirstListPage: this.opts.onFirstPodPage as (items: KubernetesObject[]) => void } : {}),
        onResync: () => this.resynced(r, informer),
        onError: (err, retryInMs) => this.opts.log.warn(`${r.name} informer: ${(err as Error).message}${retryInMs ? `; restarting in ${retryInMs} ms` : ''}`),
        ...(this.opts.silenceMs ? { silenceMs: this.opts.silenceMs } : {}),
      });
      this.informers.set(r.name, informer);
    }
    await Promise.all([...this.informers.values()].map((i) => i.start()));
  }

  private async hasEndpointSlices(): Promise<boolean> {
    try {
      await kubeRequest(this.opts.kc, 'GET', '/apis/discovery.k8s.io/v1');
      return true;
    } catch (err) {
      if (err instanceof KubeApiError && err.statusCode === 404) {
        this.opts.log.info('EndpointSlice API not served: reading core Endpoints for autoPopulateDNSNames');
        return false;
      }
      // Unknown: assume the modern API; its informer will report and retry.
      return true;
    }
  }

  private seenOf(r: Resource): Map<string, KubernetesObject> {
    let seen = this.seen.get(r.name);
    if (!seen) this.seen.set(r.name, (seen = new Map()));
    return seen;
  }

  private changed(r: Resource, kind: 'add' | 'update' | 'delete', obj: KubernetesObject): void {
    const seen = this.seenOf(r);
    const key = keyOf(obj);
    if (kind === 'delete') {
      seen.delete(key);
    } else {
      const last = seen.get(key);
      seen.set(key, obj);
      // A relist starts a fresh cache, which reports every object as added: one seen before unchanged is no change.
      if (last && r.fingerprint(last as never) === r.fingerprint(obj as never)) return;
    }
    this.opts.onChange(r.name, { kind, obj });
  }

  /**
   * A relist reports no deletes (its cache starts empty): what was deleted in the gap is only
   * missing from the new list. It is forgotten here, and a full pass finds it gone.
   */
  private resynced(r: Resource, informer: ResilientInformer<KubernetesObject>): void {
    const seen = this.seenOf(r);
    const listed = new Set(informer.list().map(keyOf));
    for (const key of seen.keys()) if (!listed.has(key)) seen.delete(key);
    this.opts.onChange(r.name);
  }

  /** Objects of a resource remembered for comparing changes: as many as its cache holds. */
  remembered(resource: string): number {
    return this.seen.get(resource)?.size ?? 0;
  }

  /** True once every informer has listed. */
  get hasSynced(): boolean {
    return [...this.informers.values()].every((i) => i.hasSynced);
  }

  unsynced(): string[] {
    return [...this.informers.values()].filter((i) => !i.hasSynced).map((i) => i.name);
  }

  /** One resource's cached objects, without building the whole snapshot. */
  items<T>(name: string): T[] {
    return (this.informers.get(name)?.list() ?? []) as unknown as T[];
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
    };
  }

  federatedTrustDomains(): ClusterFederatedTrustDomain[] {
    return this.items<ClusterFederatedTrustDomain>('clusterfederatedtrustdomains');
  }

  /** The cached object, to compare a status with before writing it. */
  get<T>(resource: string, name: string, namespace?: string): T | undefined {
    return this.informers.get(resource)?.get(name, namespace) as T | undefined;
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
  }
}
