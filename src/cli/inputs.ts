import { readFileSync } from 'node:fs';
import type { KubeConfig } from '../kube/connection.js';
import type { Logger } from 'pino';
import { cacheScope, type ClusterFederatedTrustDomain, type ControllerConfig, entriesOff, type FieldSource, inCachedNamespaces, matchesLabels, type PodName, switchedSnapshot, unsupportedFieldSelectors } from '../api/index.js';
import type { ClusterSnapshot, CurrentEntry } from '../entries/index.js';
import { fromSpireWithCreation } from '../entries/index.js';
import { describeKubeConfig, loadKubeConfig, NoKubeConfigError } from '../kube/kubeconfig.js';
import { readCluster } from '../kube/snapshot.js';
import { formatProblem, loadManifests, type ManifestProblem, type ManifestSet } from '../manifests/index.js';
import { entriesFromJson } from '../spire/index.js';
import { checkManifestObjects } from '../webhook/checks.js';
import { CliError } from './exit.js';
import { requirePaths } from './paths.js';
import type { Progress } from './terminal-progress.js';
import type { WaitReporter } from '../manager/wait-reports.js';
import { errorMessage } from '../api/errors.js';
import { manifestPaths } from './manifest-paths.js';

// Their own modules, so that `run` loads them without the rest of this one; here for the other commands.
export { manifestPaths };
export { asCliError } from './spire-errors.js';

/** A warning leaves the object in; anything else skipped something. */
export function isSkip(p: ManifestProblem): boolean {
  return p.severity !== 'warning';
}

interface LoadedManifests {
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
  const cached = <T extends FieldSource>(objects: T[]) => (scope.namespaces ? objects.filter((o) => inCachedNamespaces(o, scope)) : objects);
  const csids = scope.clusterSPIFFEIDLabels ? set.clusterSPIFFEIDs.filter((o) => matchesLabels(o.metadata.labels, scope.clusterSPIFFEIDLabels)) : set.clusterSPIFFEIDs;
  const objects: ClusterSnapshot = {
    ...set,
    clusterSPIFFEIDs: csids,
    pods: cached(set.pods),
    endpointSlices: cached(set.endpointSlices),
    endpoints: cached(set.endpoints),
  };
  const suppressDeletes =
    entriesOff(config) ??
    (skipped.length > 0 ? `nothing is deleted while manifests have problems (${skipped.length}): first: ${formatProblem(skipped[0]!)}` : undefined);
  const problems = [...set.problems, ...checkManifestObjects(set, config.trustDomain)];
  return { set, problems, snapshot: switchedSnapshot(config, objects), suppressDeletes };
}

/**
 * Why a plan fails when documents were too large to read: whatever they
 * declare is missing from it, so its creates and its silence may both be
 * wrong. Names each file and document.
 */
export function unreadDocumentsError(unread: readonly ManifestProblem[]): string {
  const n = unread.length;
  return `this plan is incomplete: ${n} manifest document${n === 1 ? ' was' : 's were'} too large to read, so what ${n === 1 ? 'it declares is' : 'they declare is'} not in it: ${unread.map(formatProblem).join('; ')}`;
}

/** cacheNamespaces field selectors manifest files cannot be filtered by (live mode's API server applies them). */
export function manifestScopeWarnings(config: ControllerConfig): string[] {
  return unsupportedFieldSelectors(cacheScope(config)).map(
    (k) => `cacheNamespaces: the field selector ${k} is not applied to manifest files (metadata.name, metadata.namespace, spec.nodeName, spec.serviceAccountName and status.phase are)`,
  );
}

/** Where a command's cluster objects came from, and how many of each it read. */
export interface SourceInfo {
  from: 'manifests' | 'cluster';
  /** The manifest paths, or the API server (and context). */
  location: string;
  /** Manifest files read (manifests only). */
  files?: number;
  /** Objects read, by kind. */
  objects: Record<string, number>;
}

const KINDS: [Exclude<keyof ClusterSnapshot, 'notInstalled'> | 'clusterFederatedTrustDomains', string][] = [
  ['clusterSPIFFEIDs', 'ClusterSPIFFEID'],
  ['clusterStaticEntries', 'ClusterStaticEntry'],
  ['clusterFederatedTrustDomains', 'ClusterFederatedTrustDomain'],
  ['namespaces', 'Namespace'],
  ['nodes', 'Node'],
  ['pods', 'Pod'],
  ['endpointSlices', 'EndpointSlice'],
  ['endpoints', 'Endpoints'],
];

function countObjects(objects: ClusterSnapshot & { clusterFederatedTrustDomains: readonly unknown[] }): Record<string, number> {
  return Object.fromEntries(KINDS.map(([field, kind]) => [kind, objects[field].length]));
}

/** One line: what was read from where. */
export function describeSource(s: SourceInfo): string {
  const plural = (kind: string) => (kind.endsWith('s') ? kind : kind.endsWith('y') ? `${kind.slice(0, -1)}ies` : `${kind}s`);
  const counts = Object.entries(s.objects)
    .map(([kind, n]) => `${n} ${n === 1 ? kind : plural(kind)}`)
    .join(', ');
  return s.from === 'manifests'
    ? `read ${s.files} manifest file${s.files === 1 ? '' : 's'} from ${s.location}: ${counts}`
    : `read from the cluster at ${s.location}: ${counts}`;
}

export interface Inputs {
  snapshot: ClusterSnapshot;
  clusterFederatedTrustDomains: ClusterFederatedTrustDomain[];
  /** The ClusterFederatedTrustDomain CRD is not installed: which exist is unknown, so no relationship is planned. */
  federationUnknown?: boolean;
  /** Set when nothing may be deleted this pass, with the reason. */
  suppressDeletes?: string;
  /** Manifest problems that skipped an object, a document or a file. */
  skipped: number;
  /** Manifest documents not read because they could exhaust the heap: what they declare is missing from the pass. */
  unread: ManifestProblem[];
  source: SourceInfo;
}

interface ReadInputsOptions {
  log: Logger;
  /** The live cluster's configuration; default: KUBECONFIG, ~/.kube/config or in-cluster. */
  kubeConfig?: () => KubeConfig;
  /** For explain pod: read only what this pod's entries depend on. */
  pod?: PodName;
  progress?: Progress;
  /** Where a wait for the API server is said. */
  waits?: WaitReporter;
}

const RESOURCE_LABELS: Record<string, string> = {
  clusterspiffeids: 'ClusterSPIFFEIDs',
  clusterstaticentries: 'ClusterStaticEntries',
  clusterfederatedtrustdomains: 'ClusterFederatedTrustDomains',
  namespaces: 'namespaces',
  nodes: 'nodes',
  pods: 'pods',
  endpointslices: 'EndpointSlices',
  endpoints: 'Endpoints',
};

/**
 * The cluster's objects from manifests (--manifests or staticManifestPath)
 * or, without either, from the live cluster by one-shot paged lists (no
 * informers). Manifest problems are logged; what was read is logged too.
 */
export async function readInputs(manifests: string[] | undefined, config: ControllerConfig, opts: ReadInputsOptions): Promise<Inputs> {
  const paths = manifestPaths(manifests, config);
  let inputs: Inputs;
  if (paths) {
    for (const w of manifestScopeWarnings(config)) opts.log.warn(w);
    const m = await readManifests(paths, config);
    for (const p of m.problems) opts.log.warn(formatProblem(p));
    inputs = {
      snapshot: m.snapshot,
      clusterFederatedTrustDomains: m.set.clusterFederatedTrustDomains,
      suppressDeletes: m.suppressDeletes,
      skipped: m.set.problems.filter(isSkip).length,
      unread: m.set.problems.filter((p) => p.overHeapBudget === true),
      source: { from: 'manifests', location: paths.join(', '), files: m.set.files.length, objects: countObjects(m.set) },
    };
  } else {
    let kc: KubeConfig;
    try {
      kc = await (opts.kubeConfig ?? loadKubeConfig)();
    } catch (err) {
      if (err instanceof NoKubeConfigError) throw new CliError(`${err.message}; or give --manifests DIR (or staticManifestPath) to read manifest files instead`);
      throw err;
    }
    const location = describeKubeConfig(kc);
    opts.log.info(`reading the cluster at ${location}`);
    let read;
    // A wait is the time without an answer: each page ends one. An API server that does not answer
    // (a dead VPN, a firewall dropping packets) holds a request up to 60 s.
    const waitForApiServer = () => (opts.waits ? opts.waits.begin(`the Kubernetes API server at ${location}`, { graceMs: 1_000 }) : () => {});
    let endWait = waitForApiServer();
    try {
      read = await readCluster(kc, {
        pod: opts.pod,
        scope: cacheScope(config),
        log: opts.log,
        onProgress: (resource, listed) => {
          endWait();
          endWait = waitForApiServer();
          opts.progress?.update(`listing ${RESOURCE_LABELS[resource] ?? resource}: ${listed.toLocaleString('en-US')}`);
        },
      });
    } catch (err) {
      throw new CliError(`cannot read the cluster at ${location}: ${errorMessage(err)}`);
    } finally {
      endWait();
      opts.progress?.done();
    }
    const entriesOffReason = entriesOff(config);
    inputs = {
      snapshot: switchedSnapshot(config, read.snapshot),
      clusterFederatedTrustDomains: read.clusterFederatedTrustDomains,
      federationUnknown: read.snapshot.notInstalled?.includes('ClusterFederatedTrustDomain') || undefined,
      suppressDeletes: entriesOffReason,
      skipped: 0,
      unread: [],
      source: { from: 'cluster', location, objects: countObjects({ ...read.snapshot, clusterFederatedTrustDomains: read.clusterFederatedTrustDomains }) },
    };
  }
  opts.log.info(describeSource(inputs.source));
  return inputs;
}

export function readEntriesDump(path: string): CurrentEntry[] {
  requirePaths('--entries', path);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError(`--entries ${path}: ${errorMessage(err)}`);
  }
  try {
    return entriesFromJson(doc).map(fromSpireWithCreation);
  } catch (err) {
    throw new CliError(`--entries ${path}: ${errorMessage(err)}`);
  }
}
