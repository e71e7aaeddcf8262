import type { ClusterFederatedTrustDomain, ClusterSPIFFEID, ClusterStaticEntry } from '../api/index.js';
import type { ServiceSource } from './cluster.js';
import { type Condition, clusterSPIFFEIDConditions, sameConditions } from './conditions.js';
import type { StatusKind } from './status.js';

/** Writers write only differences: true when `next` differs from what the object's status holds. */
export function statusChanged<T extends object>(current: Partial<T> | undefined, next: T): boolean {
  if (!current) return true;
  return Object.entries(next).some(([k, v]) => (current as Record<string, unknown>)[k] !== v);
}

/** Where statuses go (StatusWriter: merge patches off the reconcile path). */
interface StatusSink {
  write(kind: StatusKind, name: string, status: object): void;
}

/** What the publisher reads of the cluster cache: the objects as they are now, and where Service DNS names come from. */
export interface StatusObjects {
  get<T>(resource: string, name: string): T | undefined;
  readonly serviceSource: ServiceSource;
  readonly serviceSourceDenied: string | undefined;
}

/** The statuses a pass computed, by object name. */
interface PassStatuses {
  clusterSPIFFEIDs: Record<string, object>;
  clusterStaticEntries: Record<string, object>;
}

/**
 * Turns the statuses a pass computed into status writes, and only those that
 * change something: a status equal to the object's is not written, and
 * neither is one equal to what this process last wrote while the object's
 * resourceVersion has not moved (the watch may not have brought our own
 * write back yet, and writing it again is noise).
 */
export class StatusPublisher {
  // What we last wrote per object, with the object's resourceVersion at that time.
  private readonly written = new Map<string, { json: string; rv: string | undefined }>();

  constructor(
    private readonly sink: StatusSink,
    private readonly objects: StatusObjects,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Federation relationship statuses. */
  federation(statuses: Record<string, object>): void {
    for (const [name, status] of Object.entries(statuses)) {
      const obj = this.objects.get<ClusterFederatedTrustDomain>('clusterfederatedtrustdomains', name);
      this.publish('ClusterFederatedTrustDomain', name, obj?.status, obj?.metadata.resourceVersion, status);
    }
  }

  /** ClusterSPIFFEID statistics (with their conditions) and ClusterStaticEntry statuses. */
  entries(statuses: PassStatuses): void {
    for (const [name, stats] of Object.entries(statuses.clusterSPIFFEIDs)) {
      const obj = this.objects.get<ClusterSPIFFEID>('clusterspiffeids', name);
      const had = obj?.status?.conditions;
      const conditions = clusterSPIFFEIDConditions(obj?.spec.autoPopulateDNSNames === true, this.objects.serviceSource, this.objects.serviceSourceDenied, had, this.now());
      this.publish('ClusterSPIFFEID', name, obj?.status?.stats, obj?.metadata.resourceVersion, stats, sameConditions(had, conditions) ? undefined : conditions);
    }
    for (const [name, status] of Object.entries(statuses.clusterStaticEntries)) {
      const obj = this.objects.get<ClusterStaticEntry>('clusterstaticentries', name);
      this.publish('ClusterStaticEntry', name, obj?.status, obj?.metadata.resourceVersion, status);
    }
  }

  /** The writes still pending were dropped (the term ended): a later term must not take them for written. */
  forget(): void {
    this.written.clear();
  }

  // `conditions`, for a ClusterSPIFFEID, only when they differ from the object's: [] removes them.
  private publish(kind: StatusKind, name: string, current: object | undefined, rv: string | undefined, next: object, conditions?: Condition[]): void {
    const key = `${kind}/${name}`;
    const json = JSON.stringify([next, conditions]);
    if (!conditions && !statusChanged(current as Partial<typeof next> | undefined, next)) return;
    const last = this.written.get(key);
    if (last && last.json === json && last.rv === rv) return;
    this.written.set(key, { json, rv });
    const withConditions = conditions ? { conditions: conditions.length > 0 ? conditions : null } : {};
    this.sink.write(kind, name, kind === 'ClusterSPIFFEID' ? { stats: next, ...withConditions } : next);
  }
}
