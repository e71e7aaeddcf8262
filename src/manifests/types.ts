import type {
  ClusterFederatedTrustDomain,
  ClusterSPIFFEID,
  ClusterStaticEntry,
  Endpoints,
  EndpointSlice,
  Namespace,
  Node,
  Pod,
} from '../api/index.js';

/**
 * `error`: something was skipped (a file, a document or an object), so what
 * the files declare is not fully known. `warning`: the object was kept (an
 * unknown field, pruned as the API server would; a repeated YAML key).
 */
export type Severity = 'error' | 'warning';

/**
 * One thing wrong with the input. `document` is the 0-based index of the YAML
 * document in the file, or -1 when the problem concerns the whole file (it
 * could not be read, or a path does not exist).
 */
export interface ManifestProblem {
  file: string;
  document: number;
  severity: Severity;
  kind?: string;
  name?: string;
  /** Dotted path inside the document, e.g. "spec.ttl" or "items[2].spec". */
  field?: string;
  message: string;
  /**
   * Not read because reading it could exhaust the heap (budget.ts): the
   * document may well be valid, and what it declares is unknown, so a
   * plan without it cannot be trusted to be complete.
   */
  overHeapBudget?: true;
}

export interface ManifestSet {
  clusterSPIFFEIDs: ClusterSPIFFEID[];
  clusterStaticEntries: ClusterStaticEntry[];
  clusterFederatedTrustDomains: ClusterFederatedTrustDomain[];
  namespaces: Namespace[];
  pods: Pod[];
  nodes: Node[];
  endpointSlices: EndpointSlice[];
  endpoints: Endpoints[];
  /** Every bad file, document or object (each skipped), and every warning (object kept). */
  problems: ManifestProblem[];
  /** Files read, in the order they were read. */
  files: string[];
  /** Where each object above was read, so later checks can name the file too. */
  origins: WeakMap<object, ObjectOrigin>;
  /**
   * Files whose size or times changed while they were read: what was read is
   * not a snapshot of them (a writer was at work), so they are skipped, each
   * with a problem. A long-running reader reads again once they are still.
   */
  changedWhileRead: string[];
  /** The latest modification or status-change time (ms) of the files read: how long ago they last moved. */
  newestChangeMs: number;
  /** With LoadOptions.skipNonKubernetes: the files left out as holding no Kubernetes object. */
  notKubernetes?: string[];
}

interface ObjectOrigin {
  file: string;
  document: number;
  /** The object had no name and is named after its file (load.ts:nameAfterFile). */
  namedAfterFile?: true;
}

export interface LoadOptions {
  /** Replace $VAR and ${VAR} before parsing, like spire-controller-manager's expandEnvStaticManifests. */
  expandEnv?: boolean;
  /** Variables for expandEnv; defaults to process.env. */
  env?: Record<string, string | undefined>;
  /**
   * Leave out, without a problem, a file that parses but holds nothing that
   * looks like a Kubernetes object (see looksLikeKubernetes), listing it in
   * `notKubernetes`: `validate deploy/` meets a Grafana dashboard there. A
   * reconcile does not: a manifest that lost its apiVersion and kind would
   * then be taken as absent, and its entries deleted.
   */
  skipNonKubernetes?: boolean;
}
