import { readFileSync } from 'node:fs';
import { cacheScope, type ControllerConfig, inCachedNamespaces, matchesLabels, unsupportedFieldSelectors } from '../api/index.js';
import type { ClusterSnapshot, CurrentEntry } from '../entries/index.js';
import { fromSpire } from '../entries/index.js';
import { formatProblem, loadManifests, type ManifestProblem, type ManifestSet } from '../manifests/index.js';
import { entriesFromJson, SpireConnectError, SpireRpcError } from '../spire/index.js';
import { checkManifestObjects } from '../webhook/checks.js';
import { CliError } from './exit.js';

export function manifestPaths(flag: string[] | undefined, config: ControllerConfig): string[] {
  if (flag && flag.length > 0) return flag;
  if (config.staticManifestPath) return [config.staticManifestPath];
  throw new CliError('no manifests: give --manifests DIR or set staticManifestPath in the config (live Kubernetes mode is not implemented yet)');
}

/** A warning leaves the object in; anything else skipped something. */
export function isSkip(p: ManifestProblem): boolean {
  return p.severity !== 'warning';
}

export interface LoadedManifests {
  set: ManifestSet;
  /**
   * What to tell the operator, each naming its file: the set's problems, and
   * the objects the shared checks refuse (kept in the snapshot: the pass
   * reports them too, and keeps what they declared).
   */
  problems: ManifestProblem[];
  snapshot: ClusterSnapshot;
  /** Set when something was skipped: then nothing may be deleted (unknown is not absent). */
  suppressDeletes?: string;
}

export async function readManifests(paths: string[], config: ControllerConfig): Promise<LoadedManifests> {
  const set = await loadManifests(paths, { expandEnv: config.expandEnvStaticManifests });
  const skipped = set.problems.filter(isSkip);
  // What live mode's cache would hold (cacheNamespaces, the ClusterSPIFFEID label selector), from the files.
  const scope = cacheScope(config);
  const cached = <T extends Parameters<typeof inCachedNamespaces>[0]>(objects: T[]) => (scope.namespaces ? objects.filter((o) => inCachedNamespaces(o, scope)) : objects);
  const csids = scope.clusterSPIFFEIDLabels ? set.clusterSPIFFEIDs.filter((o) => matchesLabels(o.metadata.labels, scope.clusterSPIFFEIDLabels)) : set.clusterSPIFFEIDs;
  const snapshot: ClusterSnapshot = {
    clusterSPIFFEIDs: config.reconcile.clusterSPIFFEIDs ? csids : [],
    clusterStaticEntries: config.reconcile.clusterStaticEntries ? set.clusterStaticEntries : [],
    namespaces: set.namespaces,
    pods: cached(set.pods),
    nodes: set.nodes,
    endpointSlices: cached(set.endpointSlices),
    endpoints: cached(set.endpoints),
  };
  // Upstream runs no entry reconciler with both kinds off; an empty declaration must not delete everything.
  const entriesOff = !config.reconcile.clusterSPIFFEIDs && !config.reconcile.clusterStaticEntries;
  const suppressDeletes = entriesOff
    ? 'reconcile.clusterSPIFFEIDs and reconcile.clusterStaticEntries are both off'
    : skipped.length > 0
      ? `nothing is deleted while manifests have problems (${skipped.length}): first: ${formatProblem(skipped[0]!)}`
      : undefined;
  const problems = [...set.problems, ...checkManifestObjects(set, config.trustDomain)];
  return { set, problems, snapshot, ...(suppressDeletes ? { suppressDeletes } : {}) };
}

/** cacheNamespaces field selectors manifest files cannot be filtered by (live mode's API server applies them). */
export function manifestScopeWarnings(config: ControllerConfig): string[] {
  return unsupportedFieldSelectors(cacheScope(config)).map(
    (k) => `cacheNamespaces: the field selector ${k} is not applied to manifest files (metadata.name, metadata.namespace, spec.nodeName, spec.serviceAccountName and status.phase are)`,
  );
}

export function readEntriesDump(path: string): CurrentEntry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError(`--entries ${path}: ${(err as Error).message}`);
  }
  try {
    return entriesFromJson(doc).map(fromSpire);
  } catch (err) {
    throw new CliError(`--entries ${path}: ${(err as Error).message}`);
  }
}

/** SPIRE errors end a command with their own one-line message. */
export function asCliError(err: unknown): unknown {
  if (err instanceof SpireRpcError || err instanceof SpireConnectError) return new CliError(err.message);
  return err;
}
