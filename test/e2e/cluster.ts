/**
 * The e2e lane's cluster as users have one, for what runs as Deployments:
 * a control plane with kube-controller-manager and kube-scheduler
 * (../support/real-k8s, `controllers`) and a node whose pods get addresses on
 * a bridge of its own (../support/real-node, `podNetwork`). And what a test
 * does there as a user would: apply a folder of manifests, wait for a
 * rollout, find a workload's pods and their addresses.
 *
 * How things reach each other on it:
 * - the test process and the API server reach a pod at its `status.podIP`
 *   (the bridge's connected route);
 * - a pod reaches the API server the in-cluster way (KUBERNETES_SERVICE_HOST
 *   and _PORT, which the kubelet sets to the `kubernetes` Service's ClusterIP,
 *   routed by the node; its ServiceAccount token, CA and namespace mounted by
 *   the ServiceAccount admission plugin);
 * - a pod reaches a host-network server (the test process, or a SPIRE server
 *   run host-network) at `hostAddress(node)`, if it listens there rather
 *   than on 127.0.0.1;
 * - the API server calls a webhook Service at one of its EndpointSlices' ready
 *   addresses, so a webhook served by pods behind a Service with a selector
 *   just works; an ExternalName Service does not (see ControlPlaneOptions).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { controllerBinaries, type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { pinnedKubernetesVersion } from '../support/real-k8s/binaries.js';
import { nodeUnavailable, type RealNode, startNode } from '../support/real-node/node.js';
import { eventually, type Obj, yamlObjects } from '../real/world.js';
import { imageArchives } from './world.js';

/** The images a cluster's node imports at start: the pod sandbox and podprobe. */
const CLUSTER_IMAGES = ['pause', 'podprobe'];

/** What the machine lacks to start a cluster, if anything (a test skips with that reason). */
export function clusterUnavailable(): string | undefined {
  const version = pinnedKubernetesVersion();
  const node = nodeUnavailable(version, { podNetwork: true });
  if (node) return node;
  try {
    controllerBinaries(version);
  } catch (err) {
    return (err as Error).message;
  }
  const archives = imageArchives();
  const missing = CLUSTER_IMAGES.map((n) => archives[n]!).filter((a) => {
    try {
      return !statSync(a).isFile();
    } catch {
      return true;
    }
  });
  return missing.length ? `images not built (npm run test:e2e builds them): ${missing.join(', ')}` : undefined;
}

export interface Cluster {
  plane: ControlPlane;
  node: RealNode;
  /** How long each part took to start, in ms (the lane's start-up cost). */
  startup: { controlPlaneMs: number; nodeMs: number };
  stop(): Promise<void>;
}

/** Starts the control plane with controllers, one node with a pod network, and imports the pause and podprobe images. */
export async function startCluster(): Promise<Cluster> {
  let t = Date.now();
  const plane = await startControlPlane({ controllers: true });
  const controlPlaneMs = Date.now() - t;
  let node: RealNode | undefined;
  try {
    t = Date.now();
    node = await startNode(plane, { podNetwork: true });
    const nodeMs = Date.now() - t;
    const archives = imageArchives();
    for (const n of CLUSTER_IMAGES) await node.importImage(archives[n]!);
    const started = node;
    return {
      plane,
      node,
      startup: { controlPlaneMs, nodeMs },
      async stop() {
        await started.stop();
        await plane.stop();
      },
    };
  } catch (err) {
    await node?.stop();
    await plane.stop();
    throw err;
  }
}

/** The host's address on the node's pod network: where pods reach a host-network server listening on it. */
export function hostAddress(node: RealNode): string {
  if (!node.podNetwork) throw new Error(`node ${node.name} has no pod network: start it with { podNetwork: true }`);
  return node.podNetwork.hostAddress;
}

interface Resource {
  /** The collection's path, with `{namespace}` where a namespaced one goes. */
  path: string;
  namespaced: boolean;
}

/** The API server's own answer to where a kind lives and whether it is namespaced (discovery), per group version. */
function discovery(plane: ControlPlane) {
  const cache = new Map<string, Map<string, Resource>>();
  const load = async (apiVersion: string) => {
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const list = await plane.request<{ resources: { name: string; kind: string; namespaced: boolean }[] }>('GET', base);
    const kinds = new Map<string, Resource>();
    for (const r of list.resources.filter((r) => !r.name.includes('/'))) {
      kinds.set(r.kind, { path: r.namespaced ? `${base}/namespaces/{namespace}/${r.name}` : `${base}/${r.name}`, namespaced: r.namespaced });
    }
    cache.set(apiVersion, kinds);
    return kinds;
  };
  return async (apiVersion: string, kind: string): Promise<Resource> => {
    let found = cache.get(apiVersion)?.get(kind);
    // A kind a CRD applied just before defines is served a moment after: ask again until it is.
    if (!found) {
      await eventually(
        async () => {
          found = (await load(apiVersion)).get(kind);
          return !!found;
        },
        `the API server serves ${kind} (${apiVersion})`,
        30_000,
      );
    }
    return found!;
  };
}

/**
 * Applies every object of a YAML file, or of every .yaml/.yml file of a folder
 * (by name), as `kubectl apply --server-side` would: a server-side apply per
 * object, as field manager `e2e`, Namespaces and CRDs first. A namespaced
 * object with no namespace goes to `opts.namespace` (default `default`).
 * Returns the objects as the API server stored them.
 */
export async function applyManifests(plane: ControlPlane, path: string, opts: { namespace?: string } = {}): Promise<Obj[]> {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => /\.ya?ml$/.test(f))
        .sort()
        .map((f) => join(path, f))
    : [path];
  const first = (o: Obj) => (o.kind === 'Namespace' ? 0 : o.kind === 'CustomResourceDefinition' ? 1 : 2);
  const objs = files.flatMap(yamlObjects).sort((a, b) => first(a) - first(b));
  const resource = discovery(plane);
  const applied: Obj[] = [];
  for (const o of objs) {
    const r = await resource(o.apiVersion, o.kind);
    const namespace = o.metadata.namespace ?? opts.namespace ?? 'default';
    const body = r.namespaced ? { ...o, metadata: { ...o.metadata, namespace } } : o;
    const url = `${r.path.replace('{namespace}', namespace)}/${encodeURIComponent(o.metadata.name)}`;
    applied.push(await plane.request<Obj>('PATCH', url, { body, contentType: 'application/apply-patch+yaml', query: { fieldManager: 'e2e', force: 'true' } }));
  }
  return applied;
}

export interface PodView {
  metadata: { name: string; namespace: string; uid: string; deletionTimestamp?: string; labels?: Record<string, string> };
  spec: { nodeName?: string; hostNetwork?: boolean; volumes?: { name: string }[]; containers: { name: string; volumeMounts?: { name: string; mountPath: string }[] }[] };
  status: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] };
}

export const isReady = (p: PodView) => !!p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

/** A namespace's pods matching a label selector (`app=web`), terminating ones included. */
export async function podsOf(plane: ControlPlane, namespace: string, labelSelector: string): Promise<PodView[]> {
  return (await plane.request<{ items: PodView[] }>('GET', `/api/v1/namespaces/${namespace}/pods`, { query: { labelSelector } })).items;
}

/** The addresses of a selector's Ready pods that are not terminating, sorted. */
export async function readyPodIPs(plane: ControlPlane, namespace: string, labelSelector: string): Promise<string[]> {
  return (await podsOf(plane, namespace, labelSelector))
    .filter((p) => isReady(p) && !p.metadata.deletionTimestamp && p.status.podIP)
    .map((p) => p.status.podIP!)
    .sort();
}

interface DeploymentView {
  metadata: { generation: number };
  spec: { replicas?: number };
  status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; readyReplicas?: number; availableReplicas?: number };
}

/**
 * Waits, as `kubectl rollout status` does, until a Deployment's controller has
 * seen its latest spec and every replica is updated and available, with no
 * old one left.
 */
export async function waitForRollout(plane: ControlPlane, namespace: string, name: string, timeoutMs = 120_000): Promise<void> {
  let last: DeploymentView | undefined;
  try {
    await eventually(
      async () => {
        last = await plane.request<DeploymentView>('GET', `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`);
        const want = last.spec.replicas ?? 1;
        const s = last.status ?? {};
        return (s.observedGeneration ?? 0) >= last.metadata.generation && s.updatedReplicas === want && s.replicas === want && s.availableReplicas === want;
      },
      `Deployment ${namespace}/${name} is rolled out`,
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\nstatus: ${JSON.stringify(last?.status)}`, { cause: err });
  }
}
