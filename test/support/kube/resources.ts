/**
 * The resource types the fake serves: a fixed table of built-in kinds plus the
 * custom resources read from CRD YAML files. Everything else (routing,
 * discovery, selectors, status handling) is driven by this table.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { CrdSchema } from './schema.js';
import { isPlainObject, type JsonObject, type KubeObject } from './types.js';

export interface ResourceType {
  group: string;
  version: string;
  /** `v1` or `group/version`. */
  apiVersion: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  /** Has a `/status` subresource: the main resource then never writes status, and /status writes nothing else. */
  statusSubresource: boolean;
  /** Field selector labels beyond metadata.name and metadata.namespace. */
  fieldLabels: string[];
  /** Served from a CRD: list items keep kind/apiVersion, strategic merge patch is refused. */
  custom: boolean;
  schema?: CrdSchema;
  /** Server-side defaulting on create (what admission and defaulting functions add on a real cluster). */
  defaults?: (obj: KubeObject) => void;
  /**
   * The status a create request gets, for resources whose status belongs to a
   * subresource (the API server resets it; pods start Pending).
   */
  initialStatus?: () => JsonObject | undefined;
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
export const STATUS_VERBS = ['get', 'patch', 'update'];

/** The default CRD files: this repository's crds/ folder. */
export const DEFAULT_CRD_DIR = fileURLToPath(new URL('../../../crds', import.meta.url));
export const DEFAULT_CRD_FILES = [
  'spire.spiffe.io_clusterspiffeids.yaml',
  'spire.spiffe.io_clusterstaticentries.yaml',
  'spire.spiffe.io_clusterfederatedtrustdomains.yaml',
].map((f) => `${DEFAULT_CRD_DIR}/${f}`);

interface BuiltinSpec {
  group?: string;
  version?: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  shortNames?: string[];
  status?: boolean;
  fieldLabels?: string[];
  defaults?: (obj: KubeObject) => void;
  initialStatus?: () => JsonObject | undefined;
}

function ensureObject(parent: JsonObject, key: string): JsonObject {
  const v = parent[key];
  if (isPlainObject(v)) return v;
  const fresh: JsonObject = {};
  parent[key] = fresh;
  return fresh;
}

/**
 * The pod defaults templates and controllers commonly read. On a real cluster
 * the ServiceAccount admission plugin always fills serviceAccountName, so a
 * template such as `sa/{{ .PodSpec.ServiceAccountName }}` never sees it empty.
 */
function podDefaults(pod: KubeObject): void {
  const spec = ensureObject(pod, 'spec');
  spec.serviceAccountName ??= typeof spec.serviceAccount === 'string' ? spec.serviceAccount : 'default';
  spec.serviceAccount ??= spec.serviceAccountName;
  spec.restartPolicy ??= 'Always';
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.terminationGracePeriodSeconds ??= 30;
  // The rest as kube-apiserver v1.36 stores a pod created with none of it (test/real/crds.test.ts compares).
  spec.securityContext ??= {};
  spec.enableServiceLinks ??= true;
  spec.priority ??= 0;
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
  for (const c of Array.isArray(spec.containers) ? spec.containers : []) {
    if (!isPlainObject(c)) continue;
    c.resources ??= {};
    c.terminationMessagePath ??= '/dev/termination-log';
    c.terminationMessagePolicy ??= 'File';
    // Always for :latest or an untagged image, else IfNotPresent.
    const image = typeof c.image === 'string' ? c.image : '';
    const tag = image.includes('@') ? 'digest' : (image.split('/').pop()!.split(':')[1] ?? 'latest');
    c.imagePullPolicy ??= tag === 'latest' ? 'Always' : 'IfNotPresent';
  }
  // The DefaultTolerationSeconds admission plugin: evicted five minutes after its node goes away.
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    if (!tolerations.some((t) => isPlainObject(t) && t.key === key && t.effect === 'NoExecute')) tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  }
  spec.tolerations = tolerations;
}

/** As kube-apiserver stores a Node: podCIDRs from podCIDR, and status structs at their zero values. */
function nodeDefaults(node: KubeObject): void {
  const spec = ensureObject(node, 'spec');
  if (typeof spec.podCIDR === 'string' && spec.podCIDRs === undefined) spec.podCIDRs = [spec.podCIDR];
  const status = ensureObject(node, 'status');
  status.daemonEndpoints ??= { kubeletEndpoint: { Port: 0 } };
  status.nodeInfo ??= Object.fromEntries(
    ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'].map((k) => [k, '']),
  );
}

/** Every endpoint has conditions (empty meaning unknown, taken as ready). */
function endpointSliceDefaults(slice: KubeObject): void {
  for (const e of Array.isArray(slice.endpoints) ? slice.endpoints : []) if (isPlainObject(e)) e.conditions ??= {};
}

function namespaceDefaults(ns: KubeObject): void {
  const spec = ensureObject(ns, 'spec');
  spec.finalizers ??= ['kubernetes'];
  const status = ensureObject(ns, 'status');
  status.phase ??= 'Active';
  const labels = ensureObject(ns.metadata, 'labels') as Record<string, string>;
  // Set by the API server since 1.21; namespace selectors commonly use it.
  labels['kubernetes.io/metadata.name'] = ns.metadata.name ?? '';
}

function serviceDefaults(svc: KubeObject): void {
  const spec = ensureObject(svc, 'spec');
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
}

const BUILTINS: BuiltinSpec[] = [
  {
    kind: 'Pod',
    plural: 'pods',
    namespaced: true,
    shortNames: ['po'],
    status: true,
    fieldLabels: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
    defaults: podDefaults,
    initialStatus: () => ({ phase: 'Pending' }),
  },
  {
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    shortNames: ['ns'],
    status: true,
    fieldLabels: ['status.phase'],
    defaults: namespaceDefaults,
    initialStatus: () => ({ phase: 'Active' }),
  },
  { kind: 'Node', plural: 'nodes', namespaced: false, shortNames: ['no'], status: true, fieldLabels: ['spec.unschedulable'], defaults: nodeDefaults },
  { kind: 'Endpoints', plural: 'endpoints', namespaced: true, shortNames: ['ep'] },
  {
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    fieldLabels: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
  },
  {
    kind: 'Service',
    plural: 'services',
    namespaced: true,
    shortNames: ['svc'],
    status: true,
    fieldLabels: ['spec.clusterIP', 'spec.type'],
    defaults: serviceDefaults,
    initialStatus: () => ({ loadBalancer: {} }),
  },
  { kind: 'ConfigMap', plural: 'configmaps', namespaced: true, shortNames: ['cm'] },
  { kind: 'Secret', plural: 'secrets', namespaced: true, fieldLabels: ['type'] },
  { kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true, shortNames: ['sa'] },
  { group: 'discovery.k8s.io', kind: 'EndpointSlice', plural: 'endpointslices', namespaced: true, defaults: endpointSliceDefaults },
  { group: 'coordination.k8s.io', kind: 'Lease', plural: 'leases', namespaced: true },
  { group: 'events.k8s.io', kind: 'Event', plural: 'events', namespaced: true, shortNames: ['ev'] },
  {
    group: 'admissionregistration.k8s.io',
    kind: 'ValidatingWebhookConfiguration',
    plural: 'validatingwebhookconfigurations',
    namespaced: false,
  },
  {
    group: 'admissionregistration.k8s.io',
    kind: 'MutatingWebhookConfiguration',
    plural: 'mutatingwebhookconfigurations',
    namespaced: false,
  },
  {
    group: 'apiextensions.k8s.io',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    status: true,
  },
];

function fromBuiltin(b: BuiltinSpec): ResourceType {
  const group = b.group ?? '';
  const version = b.version ?? 'v1';
  return {
    group,
    version,
    apiVersion: group ? `${group}/${version}` : version,
    kind: b.kind,
    listKind: `${b.kind}List`,
    plural: b.plural,
    singular: b.kind.toLowerCase(),
    namespaced: b.namespaced,
    shortNames: b.shortNames ?? [],
    statusSubresource: b.status ?? false,
    fieldLabels: b.fieldLabels ?? [],
    custom: false,
    ...(b.defaults ? { defaults: b.defaults } : {}),
    ...(b.initialStatus ? { initialStatus: b.initialStatus } : {}),
  };
}

/** Reads CRD documents from YAML files: the CRD objects themselves and a resource type per served version. */
export function loadCrds(files: readonly string[]): { crds: KubeObject[]; resources: ResourceType[] } {
  const crds: KubeObject[] = [];
  const resources: ResourceType[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const crd: unknown = doc.toJS();
      if (!isPlainObject(crd) || crd.kind !== 'CustomResourceDefinition') continue;
      const spec = crd.spec;
      if (!isPlainObject(spec) || !isPlainObject(spec.names) || !Array.isArray(spec.versions)) {
        throw new Error(`${file}: not a CustomResourceDefinition with spec.names and spec.versions`);
      }
      const names = spec.names as Record<string, unknown>;
      const group = String(spec.group);
      const kind = String(names.kind);
      crds.push(crd as KubeObject);
      for (const v of spec.versions as unknown[]) {
        if (!isPlainObject(v) || v.served !== true) continue;
        const schema = isPlainObject(v.schema) && isPlainObject(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : undefined;
        const version = String(v.name);
        resources.push({
          group,
          version,
          apiVersion: `${group}/${version}`,
          kind,
          listKind: typeof names.listKind === 'string' ? names.listKind : `${kind}List`,
          plural: String(names.plural),
          singular: typeof names.singular === 'string' ? names.singular : kind.toLowerCase(),
          namespaced: spec.scope === 'Namespaced',
          shortNames: Array.isArray(names.shortNames) ? names.shortNames.map(String) : [],
          statusSubresource: isPlainObject(v.subresources) && v.subresources.status !== undefined,
          fieldLabels: [],
          custom: true,
          ...(schema ? { schema: new CrdSchema(schema) } : {}),
        });
      }
    }
  }
  return { crds, resources };
}

/** Looks resource types up by URL (group, version, plural) and by object (apiVersion, kind). */
export class ResourceRegistry {
  readonly all: readonly ResourceType[];
  private readonly byPathKey = new Map<string, ResourceType>();
  private readonly byKindKey = new Map<string, ResourceType>();

  constructor(custom: readonly ResourceType[]) {
    this.all = [...BUILTINS.map(fromBuiltin), ...custom];
    for (const r of this.all) {
      this.byPathKey.set(`${r.group}/${r.version}/${r.plural}`, r);
      this.byKindKey.set(`${r.apiVersion}/${r.kind}`, r);
    }
  }

  byPath(group: string, version: string, plural: string): ResourceType | undefined {
    return this.byPathKey.get(`${group}/${version}/${plural}`);
  }

  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.byKindKey.get(`${apiVersion}/${kind}`);
  }

  /** Served group versions, in table order, core first. */
  groupVersions(): { group: string; version: string }[] {
    const seen = new Map<string, { group: string; version: string }>();
    for (const r of this.all) seen.set(r.apiVersion, { group: r.group, version: r.version });
    return [...seen.values()];
  }

  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.all.filter((r) => r.group === group && r.version === version);
  }

  namespaces(): ResourceType {
    return this.byPath('', 'v1', 'namespaces')!;
  }
}

/** Field labels every resource accepts, then the resource's own. */
export function fieldLabelsOf(r: ResourceType): string[] {
  return ['metadata.name', 'metadata.namespace', ...r.fieldLabels];
}
