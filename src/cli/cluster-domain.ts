import { type ClusterSPIFFEID, type ControllerConfig, isOurClass } from '../api/index.js';
import { detectClusterDomain } from '../manager/cluster-domain.js';
import { templatesOf } from './template-fields.js';

/** Where a one-pass command's cluster domain came from: the config or --cluster-domain, DNS as run detects it, or nowhere. */
export interface ClusterDomain {
  value: string;
  from: 'config' | 'detected' | 'not-detected';
}

/**
 * The cluster domain `plan`, `reconcile --once` and `explain` render with,
 * found as `run` finds it (cli/run.ts): the config's (or --cluster-domain),
 * else detected from DNS (manager/cluster-domain.ts). In a pod of the
 * cluster that gives what run gives; elsewhere DNS names no
 * kubernetes.default.svc, and the plan says what that can change
 * (clusterDomainNote). Sets it in the config when detected.
 */
export async function settleClusterDomain(config: ControllerConfig, detect: () => Promise<string | undefined> = () => detectClusterDomain()): Promise<ClusterDomain> {
  if (config.clusterDomain) return { value: config.clusterDomain, from: 'config' };
  const detected = await detect();
  if (!detected) return { value: '', from: 'not-detected' };
  config.clusterDomain = detected;
  return { value: detected, from: 'detected' };
}

/**
 * The ClusterSPIFFEIDs of this controller's class whose entries the cluster
 * domain can change: Service DNS names (autoPopulateDNSNames), or a
 * template that names .ClusterDomain (a label or selector value spelling it
 * does not count).
 */
export function clusterDomainReaders(objects: readonly ClusterSPIFFEID[], config: Pick<ControllerConfig, 'className' | 'watchClassless'>): string[] {
  return objects
    .filter((o) => isOurClass(o.spec?.className, config) && (o.spec?.autoPopulateDNSNames === true || templatesOf(o).some((t) => t.source.includes('.ClusterDomain'))))
    .map((o) => `ClusterSPIFFEID/${o.metadata.name}`);
}

/** What a plan says of its cluster domain when the config did not give it. */
export function clusterDomainNote(cd: ClusterDomain, readers: readonly string[]): string | undefined {
  if (cd.from === 'detected') return `clusterDomain is not set: ${cd.value}, detected from DNS (the canonical name of kubernetes.default.svc) as run detects it`;
  if (cd.from === 'config' || readers.length === 0) return undefined;
  return (
    `clusterDomain is not set and DNS here does not name kubernetes.default.svc (not in a pod of the cluster?), where run, in the cluster, detects it: ` +
    `the DNS names of ${readers.join(', ')} depend on it, so this plan may differ from run's there. Pass --cluster-domain with the cluster's domain ` +
    '(spire-controller-manager logs the one it detected at start: "cluster domain" in its "Config loaded" line)'
  );
}
