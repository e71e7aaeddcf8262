import type { ControllerConfig } from './config.js';
import type { ClusterSnapshot } from './objects.js';

/**
 * The reconcile.* switches, read here and nowhere else, as upstream reads
 * them: each turns one of its reconcilers off.
 */

/** reconcile.clusterFederatedTrustDomains: relationships are reconciled. */
export function federationOn(config: ControllerConfig): boolean {
  return config.reconcile.clusterFederatedTrustDomains;
}

/** reconcile.clusterSPIFFEIDs: pods get entries (with it off, no pod event changes an entry). */
export function podEntriesOn(config: ControllerConfig): boolean {
  return config.reconcile.clusterSPIFFEIDs;
}

/**
 * Both entry kinds off: upstream runs no entry reconciler at all, and an
 * empty declaration must not delete everything. The reason, or undefined.
 */
export function entriesOff(config: ControllerConfig): string | undefined {
  return !config.reconcile.clusterSPIFFEIDs && !config.reconcile.clusterStaticEntries ? 'reconcile.clusterSPIFFEIDs and reconcile.clusterStaticEntries are both off' : undefined;
}

/**
 * The objects an entry pass declares from: a kind switched off declares
 * nothing, whether or not its CRD is installed.
 */
export function switchedSnapshot(config: ControllerConfig, objects: ClusterSnapshot): ClusterSnapshot {
  const on = (kind: string) => (kind === 'ClusterSPIFFEID' ? config.reconcile.clusterSPIFFEIDs : kind === 'ClusterStaticEntry' ? config.reconcile.clusterStaticEntries : false);
  const notInstalled = objects.notInstalled?.filter(on);
  const { notInstalled: _, ...rest } = objects;
  return {
    ...rest,
    clusterSPIFFEIDs: config.reconcile.clusterSPIFFEIDs ? objects.clusterSPIFFEIDs : [],
    clusterStaticEntries: config.reconcile.clusterStaticEntries ? objects.clusterStaticEntries : [],
    notInstalled: notInstalled && notInstalled.length > 0 ? notInstalled : undefined,
  };
}

// Only ClusterSPIFFEIDs read these.
const SELECTED_BY_CLUSTER_SPIFFEIDS = new Set(['pods', 'namespaces', 'nodes', 'endpointslices', 'endpoints']);

/** Whether a change to this resource can change an entry or a relationship: with ClusterSPIFFEIDs off, a pod's cannot. */
export function changeMatters(config: ControllerConfig, resource: string): boolean {
  return config.reconcile.clusterSPIFFEIDs || !SELECTED_BY_CLUSTER_SPIFFEIDS.has(resource);
}
