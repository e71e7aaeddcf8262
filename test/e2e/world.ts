/**
 * The deployment a user runs, on a real node: kube-apiserver and etcd
 * (../support/real-k8s), containerd and a kubelet (../support/real-node), and
 * on that node, as pods from images built here (scripts/image/build.sh,
 * scripts/e2e/images.sh):
 *
 * - the SPIRE server's pod as the SPIRE helm chart shapes it: spire-server and
 *   the controller manager container (ours or spire-controller-manager) sharing
 *   the admin socket on an emptyDir, the controller with the chart's arguments,
 *   config (a ConfigMap mounted at /controller-manager-config.yaml), RBAC,
 *   probes and security context (non-root, read-only root file system);
 * - the SPIRE agent as a host-network, host-PID pod: k8s_psat node attestation
 *   (a projected token the server checks with a TokenReview against the real
 *   API server) and the k8s workload attestor asking the real kubelet;
 * - workloads (test/e2e/images/workload) that hold their X.509 SVID from the
 *   agent's Workload API and write it to a host folder the test reads.
 *
 * Network: every pod is host-network and everything listens on 127.0.0.1. No
 * kube-proxy runs, so pods reach the API server through KUBERNETES_SERVICE_HOST
 * and _PORT set to its loopback address, and the webhook Service is an
 * ExternalName for localhost; no pod resolves names (dnsPolicy None, a
 * loopback nameserver). On the cluster Deployments run on (./cluster.ts:
 * controllers and a pod network) workloadNamespace waits for the root CA
 * publisher's ConfigMap instead of writing it, and prepareDeployment's
 * ExternalName webhook Service does not resolve (that API server calls a
 * webhook Service's endpoints).
 */
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { KubeApiError } from '../../src/kube/rest.js';
import * as x509 from '@peculiar/x509';
import { stringify as toYaml } from 'yaml';
import { freePort } from '../support/ports.js';
import type { ControlPlane } from '../support/real-k8s/index.js';
import type { RealNode } from '../support/real-node/node.js';
import { realSpireVersions } from '../support/real-spire.js';
import { CHART, CHART_RBAC, chartConfig, chartContainer } from '../real/chart.js';
import { controllerKubeConfig, eventually, type Obj, objects, yamlObjects } from '../real/world.js';

export const TD = chartConfig.trustDomain;
export const CLUSTER = chartConfig.clusterName as string;
export const SERVER_NS = 'spire-server';
export const AGENT_NS = 'spire-system';
export const SERVER_POD = 'spire-server-0';
export const CONTROLLER = chartContainer.name;

export const IMAGES = {
  ours: 'localhost/spire-reconciler:dev',
  peer: 'localhost/spire-controller-manager:e2e',
  server: 'localhost/spire-server:e2e',
  agent: 'localhost/spire-agent:e2e',
  workload: 'localhost/workload:e2e',
  /** Says what a pod reaches (test/e2e/images/podprobe). */
  podprobe: 'localhost/podprobe:e2e',
};

/** The archives scripts/image/build.sh and scripts/e2e/images.sh wrote, by image. */
export function imageArchives(): Record<string, string> {
  const dir = join(process.env.SPIRE_RECONCILER_CACHE || join(process.env.HOME ?? '/root', '.cache', 'spire-reconciler'), 'images');
  const archives: Record<string, string> = { ours: join(dir, 'spire-reconciler.tar') };
  for (const n of ['pause', 'workload', 'podprobe', 'spire-server', 'spire-agent', 'spire-controller-manager']) archives[n] = join(dir, `${n}.tar`);
  return archives;
}

export function imagesMissing(): string | undefined {
  const missing = Object.values(imageArchives()).filter((a) => !existsSync(a));
  return missing.length ? `images not built (npm run test:e2e builds them): ${missing.join(', ')}` : undefined;
}

export interface Ports {
  spireServer: number;
  spireServerHealth: number;
  agentHealth: number;
  controllerHealth: number;
  controllerMetrics: number;
  webhook: number;
}

/**
 * The env every host-network pod here gets: the API server on loopback instead of the `kubernetes` Service's ClusterIP
 * (or `via`, a proxy in front of it that a test can cut).
 */
export function apiEnv(plane: ControlPlane, via?: { host: string; port: number }) {
  const url = new URL(plane.url);
  return [
    { name: 'KUBERNETES_SERVICE_HOST', value: via?.host ?? url.hostname },
    { name: 'KUBERNETES_SERVICE_PORT', value: String(via?.port ?? url.port) },
  ];
}

/**
 * What the ServiceAccount admission plugin adds to a pod (the lane's API server
 * runs without it unless it has controllers; with it, a container that mounts
 * this at the same path keeps this mount and gets no other): a projected
 * token, the cluster's CA and the namespace.
 */
export const apiAccessVolume = {
  name: 'kube-api-access',
  projected: {
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  },
};
export const apiAccessMount = { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true };

/** Pod spec fields every pod here shares. */
function podBase(node: RealNode) {
  return {
    nodeName: node.name,
    hostNetwork: true,
    dnsPolicy: 'None',
    dnsConfig: { nameservers: ['127.0.0.1'] },
    automountServiceAccountToken: false,
    enableServiceLinks: false,
  };
}

function serverConf(ports: Ports, bind: string, healthBind = '127.0.0.1'): string {
  return `server {
  bind_address = "${bind}"
  bind_port = "${ports.spireServer}"
  socket_path = "/tmp/spire-server/private/api.sock"
  trust_domain = "${TD}"
  data_dir = "/run/spire/data"
  log_level = "INFO"
  ca_ttl = "24h"
  default_x509_svid_ttl = "1h"
}

plugins {
  DataStore "sql" {
    plugin_data {
      database_type = "sqlite3"
      connection_string = "/run/spire/data/datastore.sqlite3"
    }
  }
  KeyManager "disk" {
    plugin_data {
      keys_path = "/run/spire/data/keys.json"
    }
  }
  NodeAttestor "k8s_psat" {
    plugin_data {
      clusters = {
        "${CLUSTER}" = {
          service_account_allow_list = ["${AGENT_NS}:spire-agent"]
        }
      }
    }
  }
}

health_checks {
  listener_enabled = true
  bind_address = "${healthBind}"
  bind_port = "${ports.spireServerHealth}"
  live_path = "/live"
  ready_path = "/ready"
}
`;
}

function agentConf(ports: Ports, node: RealNode, server: string, agentSync?: string): string {
  return `agent {
  data_dir = "/run/spire/data"
  log_level = "INFO"
  server_address = "${server}"
  server_port = "${ports.spireServer}"
  socket_path = "/run/spire/agent-sockets/spire-agent.sock"
  trust_domain = "${TD}"
  insecure_bootstrap = true
${agentSync ? `  experimental {\n    sync_interval = "${agentSync}"\n  }\n` : ''}}

plugins {
  NodeAttestor "k8s_psat" {
    plugin_data {
      cluster = "${CLUSTER}"
      token_path = "/var/run/secrets/tokens/spire-agent"
    }
  }
  KeyManager "memory" {
    plugin_data {}
  }
  WorkloadAttestor "k8s" {
    plugin_data {
      kubelet_read_only_port = ${node.kubeletReadOnlyPort}
      node_name_env = "MY_NODE_NAME"
    }
  }
}

health_checks {
  listener_enabled = true
  bind_address = "127.0.0.1"
  bind_port = "${ports.agentHealth}"
  live_path = "/live"
  ready_path = "/ready"
}
`;
}

/** The blocks of the chart's controller config that a config may leave out (upstream's defaults then apply). */
const OPTIONAL_BLOCKS = ['metrics', 'health', 'leaderElection', 'webhook', 'tlsConfig', 'reconcile'];

/**
 * The controller manager's config: the chart's, with loopback ports, the admin
 * socket the pod shares, and no DNS look-up; with `chartDefaults`, the chart's
 * without a single optional block, so that every port is the default's.
 */
function controllerConfig(ports: Ports, chartDefaults = false): string {
  if (chartDefaults) return toYaml({ ...Object.fromEntries(Object.entries(chartConfig).filter(([k]) => !OPTIONAL_BLOCKS.includes(k))), clusterDomain: 'cluster.local' });
  return toYaml({
    ...chartConfig,
    metrics: { bindAddress: `127.0.0.1:${ports.controllerMetrics}` },
    health: { healthProbeBindAddress: `127.0.0.1:${ports.controllerHealth}` },
    // The cluster domain is detected from DNS when unset; no DNS answers here.
    clusterDomain: 'cluster.local',
    webhook: { host: '127.0.0.1', port: ports.webhook },
  });
}

export type ControllerKind = 'ours' | 'peer';

/** The folders a SPIRE server pod keeps across pods with `persistentServer`: its datastore and keys, and its admin socket. */
const serverDirs = (node: RealNode) => ({ data: join(node.dir, 'spire-server-data'), socket: join(node.dir, 'spire-server-socket') });

/** The controller manager container of the SPIRE server's pod (ours or the peer), as the chart runs it. */
function controllerContainer(plane: ControlPlane, ports: Ports, controller: ControllerKind, opts: DeploymentOptions): Record<string, unknown> {
  const probe = (port: number, path: string) => ({ httpGet: { host: '127.0.0.1', port, path }, periodSeconds: 2, failureThreshold: 3 });
  return {
    name: CONTROLLER,
    image: controller === 'ours' ? IMAGES.ours : IMAGES.peer,
    // The chart sets none by default (a BestEffort pod); a request gives the container its CPU share.
    ...(opts.controllerCpu ? { resources: { requests: { cpu: opts.controllerCpu } } } : {}),
    imagePullPolicy: 'Never',
    args: chartContainer.args,
    env: [...chartContainer.env, ...apiEnv(plane, opts.controllerApi)],
    // Without a health block nothing serves probes (as upstream), so the container has none.
    ...(opts.chartDefaults ? {} : { livenessProbe: probe(ports.controllerHealth, '/healthz'), readinessProbe: probe(ports.controllerHealth, '/readyz') }),
    securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    // The chart's mounts: the socket read-only, the config as one file, a /tmp of its own.
    volumeMounts: [
      { name: 'spire-server-socket', mountPath: '/tmp/spire-server/private', readOnly: true },
      { name: 'controller-manager-config', mountPath: '/controller-manager-config.yaml', subPath: 'controller-manager-config.yaml', readOnly: true },
      { name: 'spire-controller-manager-tmp', mountPath: '/tmp', subPath: 'spire-controller-manager' },
      apiAccessMount,
    ],
  };
}

/** The SPIRE server's pod: spire-server and the controller manager container, as the chart runs them. */
function serverPod(plane: ControlPlane, node: RealNode, ports: Ports, controller: ControllerKind | 'none', opts: DeploymentOptions): Obj {
  const probe = (port: number, path: string) => ({ httpGet: { host: '127.0.0.1', port, path }, periodSeconds: 2, failureThreshold: 3 });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: SERVER_POD, namespace: SERVER_NS, labels: { app: 'spire-server' } },
    spec: {
      ...podBase(node),
      serviceAccountName: 'spire-server',
      // The chart's pod security context: both containers run as 1000 and share the socket's emptyDir.
      securityContext: { runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, runAsNonRoot: true },
      terminationGracePeriodSeconds: 10,
      containers: [
        {
          name: 'spire-server',
          image: IMAGES.server,
          imagePullPolicy: 'Never',
          args: ['-config', '/run/spire/config/server.conf'],
          env: apiEnv(plane),
          ports: [{ name: 'grpc', containerPort: ports.spireServer }],
          // As the SPIRE helm chart's (a minute apart): a busy two-core node must not get the SPIRE server killed.
          livenessProbe: { httpGet: { host: '127.0.0.1', port: ports.spireServerHealth, path: '/live' }, periodSeconds: 60, timeoutSeconds: 3, failureThreshold: 2 },
          readinessProbe: probe(ports.spireServerHealth, '/ready'),
          securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          volumeMounts: [
            { name: 'spire-config', mountPath: '/run/spire/config', readOnly: true },
            { name: 'spire-data', mountPath: '/run/spire/data' },
            { name: 'server-tmp', mountPath: '/tmp' },
            { name: 'spire-server-socket', mountPath: '/tmp/spire-server/private' },
            apiAccessMount,
          ],
        },
        ...(controller === 'none' ? [] : [controllerContainer(plane, ports, controller, opts)]),
      ],
      volumes: [
        { name: 'spire-config', configMap: { name: 'spire-server' } },
        // A StatefulSet's volume in the chart: with persistentServer, a new pod finds the entries and keys the last one had.
        opts.persistentServer ? { name: 'spire-data', hostPath: { path: serverDirs(node).data, type: 'Directory' } } : { name: 'spire-data', emptyDir: {} },
        { name: 'server-tmp', emptyDir: {} },
        opts.persistentServer ? { name: 'spire-server-socket', hostPath: { path: serverDirs(node).socket, type: 'Directory' } } : { name: 'spire-server-socket', emptyDir: {} },
        { name: 'spire-controller-manager-tmp', emptyDir: {} },
        { name: 'controller-manager-config', configMap: { name: 'spire-controller-manager' } },
        apiAccessVolume,
      ],
    },
  };
}

function agentPod(plane: ControlPlane, node: RealNode, ports: Ports): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'spire-agent-0', namespace: AGENT_NS, labels: { app: 'spire-agent' } },
    spec: {
      ...podBase(node),
      serviceAccountName: 'spire-agent',
      // The k8s workload attestor reads a caller's cgroups in /proc: it sees the node's processes.
      hostPID: true,
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: 'spire-agent',
          image: IMAGES.agent,
          imagePullPolicy: 'Never',
          args: ['-config', '/run/spire/config/agent.conf'],
          env: [...apiEnv(plane), { name: 'MY_NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
          readinessProbe: { httpGet: { host: '127.0.0.1', port: ports.agentHealth, path: '/ready' }, periodSeconds: 2 },
          volumeMounts: [
            { name: 'spire-config', mountPath: '/run/spire/config', readOnly: true },
            { name: 'spire-data', mountPath: '/run/spire/data' },
            { name: 'agent-sockets', mountPath: '/run/spire/agent-sockets' },
            { name: 'spire-token', mountPath: '/var/run/secrets/tokens', readOnly: true },
            apiAccessMount,
          ],
        },
      ],
      volumes: [
        { name: 'spire-config', configMap: { name: 'spire-agent' } },
        { name: 'spire-data', emptyDir: {} },
        { name: 'agent-sockets', hostPath: { path: agentSocketDir(node), type: 'DirectoryOrCreate' } },
        { name: 'spire-token', projected: { sources: [{ serviceAccountToken: { path: 'spire-agent', expirationSeconds: 7200, audience: 'spire-server' } }] } },
        apiAccessVolume,
      ],
    },
  };
}

/** Where the SPIRE agent puts its Workload API socket on the node (a hostPath every pod here mounts). */
export const agentSocketDir = (node: RealNode) => join(node.dir, 'agent-sockets');
/** Where a workload pod writes what it holds, on the node. */
export const workloadOut = (node: RealNode, namespace: string, name: string) => join(node.dir, 'workloads', namespace, name);

export function workloadPod(node: RealNode, namespace: string, name: string, labels: Record<string, string>, serviceAccount = 'default'): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: {
      ...podBase(node),
      serviceAccountName: serviceAccount,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'workload',
          image: IMAGES.workload,
          imagePullPolicy: 'Never',
          env: [
            { name: 'SPIFFE_ENDPOINT_SOCKET', value: 'unix:///run/spire/agent-sockets/spire-agent.sock' },
            { name: 'WORKLOAD_OUT', value: '/out' },
          ],
          volumeMounts: [
            { name: 'agent-sockets', mountPath: '/run/spire/agent-sockets', readOnly: true },
            { name: 'out', mountPath: '/out' },
          ],
        },
      ],
      volumes: [
        { name: 'agent-sockets', hostPath: { path: agentSocketDir(node), type: 'DirectoryOrCreate' } },
        { name: 'out', hostPath: { path: workloadOut(node, namespace, name), type: 'DirectoryOrCreate' } },
      ],
    },
  };
}

export interface Held {
  /** SPIFFE IDs the agent gave the workload (empty when it holds none). */
  spiffeIDs: string[];
  error?: string;
  /** When the workload's process started, and when it first held an SVID. */
  startedAt?: string;
  firstSVIDAt?: string;
  /** The default SVID's URI SAN and DNS SANs, read from its certificate. */
  svid?: { uri: string; dnsNames: string[]; serial: string };
}

/** What a workload holds now, from the files it writes. */
export function held(node: RealNode, namespace: string, name: string): Held | undefined {
  const dir = workloadOut(node, namespace, name);
  let state: Held;
  try {
    state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as Held;
  } catch {
    return undefined;
  }
  if (state.spiffeIDs.length === 0) return state;
  let pem: string;
  try {
    pem = readFileSync(join(dir, 'svid.pem'), 'utf8');
  } catch {
    return state;
  }
  const leaf = new x509.X509Certificate(pem.split(/(?<=-----END CERTIFICATE-----)/)[0]!.trim());
  const san = leaf.getExtension(x509.SubjectAlternativeNameExtension);
  const names = san?.names.toJSON() ?? [];
  return {
    ...state,
    svid: {
      uri: names.find((n) => n.type === 'url')?.value ?? '',
      dnsNames: names.filter((n) => n.type === 'dns').map((n) => n.value),
      serial: leaf.serialNumber,
    },
  };
}

export interface Deployment {
  ports: Ports;
  /** The controller's metrics, scraped on the node's loopback. */
  metricsUrl: string;
  healthUrl: string;
  /** Deploys the SPIRE server pod (with this controller, or none) and the agent pod, and waits for both to be ready. */
  deploy(controller: ControllerKind | 'none'): Promise<void>;
  /**
   * Deletes the SPIRE server pod and creates it again with this controller (or none), as a
   * StatefulSet rolls a pod whose containers changed; waits for it to be ready. With persistentServer
   * it keeps its entries and keys, unless `fresh`: then the pod starts as on a new install, its
   * folders emptied and the leader-election Lease deleted once the old pod is gone. Resolves with
   * the time (ms since the epoch) the new pod was created.
   */
  recreateServer(controller: ControllerKind | 'none', opts?: { fresh?: boolean }): Promise<number>;
  /**
   * Replaces the controller container's image in the running server pod, as a values change of the chart would roll it;
   * `image` names another tag of that controller's image (RealNode.tagImage), so the kubelet sees a new container.
   */
  swapController(controller: ControllerKind, image?: string): Promise<void>;
  /** The server pod's status for one container. */
  containerStatus(name: string): Promise<{ ready: boolean; restartCount: number; image: string; containerID?: string } | undefined>;
  serverReady(): Promise<boolean>;
}

export interface DeploymentOptions {
  agentSync?: string;
  controllerCpu?: string;
  /** Where the controller container reaches the API server (a proxy a test cuts for an outage of its own); default the API server itself. */
  controllerApi?: { host: string; port: number };
  /** The address the SPIRE server's TCP port binds, and the agent dials: a pod network's host address, for pods to reach. Default 127.0.0.1. */
  serverBind?: string;
  /** The chart's ValidatingWebhookConfiguration and its ExternalName Service (a cluster with controllers refuses ExternalName webhook Services). Default true. */
  webhook?: boolean;
  /** The SPIRE server's datastore, keys and admin socket in folders of the node, kept across its pods, as a StatefulSet's volume keeps them. */
  persistentServer?: boolean;
  /**
   * The chart's fixed ports in the pod's network namespace (the node's): the
   * SPIRE server on 0.0.0.0:8081 and its health checks on 0.0.0.0:8080, the
   * controller's config without an optional block (so its webhook on the
   * default :9443, no probes, no metrics). Those ports must be free on the machine.
   */
  chartDefaults?: boolean;
}

/** The ports `chartDefaults` takes on the machine: the SPIRE server's, its health checks', and the webhook's default. */
export const CHART_DEFAULT_PORTS = { spireServer: 8081, spireServerHealth: 8080, webhook: 9443 };

/**
 * Applies what the helm chart would install (namespaces, the ServiceAccounts,
 * the controller manager's ClusterRole and Role, the server's TokenReview
 * access, ConfigMaps, the webhook configuration and Service), imports the
 * images, and returns a handle to deploy the pods.
 */
export async function prepareDeployment(plane: ControlPlane, node: RealNode, opts: DeploymentOptions = {}): Promise<Deployment> {
  const o = objects(plane);
  const archives = imageArchives();
  for (const archive of Object.values(archives)) await node.importImage(archive);

  const ports: Ports = {
    spireServer: await freePort(),
    spireServerHealth: await freePort(),
    agentHealth: await freePort(),
    controllerHealth: await freePort(),
    controllerMetrics: await freePort(),
    webhook: await freePort(),
    ...(opts.chartDefaults ? CHART_DEFAULT_PORTS : {}),
  };
  mkdirSync(agentSocketDir(node), { recursive: true });

  await controllerKubeConfig(plane, CHART_RBAC);
  for (const n of [AGENT_NS]) await plane.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
  await plane.serviceAccount(AGENT_NS, 'spire-agent');
  // What kube-controller-manager's root-CA publisher would write in every namespace the pods here use.
  for (const n of [SERVER_NS, AGENT_NS]) await rootCa(plane, n);
  // The SPIRE server's own access: k8s_psat reviews the agent's token and reads its pod and node.
  await plane.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'spire-server' },
    rules: [
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list'] },
    ],
  });
  await plane.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'spire-server' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'spire-server' },
    subjects: [{ kind: 'ServiceAccount', name: 'spire-server', namespace: SERVER_NS }],
  });
  // The chart binds the SPIRE server and its health checks on every address; the agent dials loopback then.
  const bind = opts.serverBind ?? (opts.chartDefaults ? '0.0.0.0' : '127.0.0.1');
  const serverConfText = serverConf(ports, bind, opts.chartDefaults ? '0.0.0.0' : '127.0.0.1');
  await plane.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'spire-server', namespace: SERVER_NS }, data: { 'server.conf': serverConfText } });
  await plane.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'spire-agent', namespace: AGENT_NS }, data: { 'agent.conf': agentConf(ports, node, bind === '0.0.0.0' ? '127.0.0.1' : bind, opts.agentSync) } });
  if (opts.persistentServer) {
    // The pod runs as 1000, and a hostPath folder is not given to fsGroup as an emptyDir is.
    for (const dir of Object.values(serverDirs(node))) {
      mkdirSync(dir, { recursive: true });
      chownSync(dir, 1000, 1000);
    }
  }
  await plane.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'spire-controller-manager', namespace: SERVER_NS }, data: { 'controller-manager-config.yaml': controllerConfig(ports, opts.chartDefaults) } });

  if (opts.webhook !== false) {
    // The chart's webhook configuration; its Service an ExternalName to localhost on the webhook's port.
    const [vwc] = yamlObjects(join(CHART, 'webhook.yaml')) as [Obj & { webhooks: { clientConfig: { service: { name: string; namespace: string; port?: number } } }[] }];
    for (const w of vwc.webhooks) w.clientConfig.service.port = ports.webhook;
    const { name: serviceName, namespace: serviceNamespace } = vwc.webhooks[0]!.clientConfig.service;
    await plane.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: serviceName, namespace: serviceNamespace }, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'webhook', port: ports.webhook }] } });
    await plane.apply(vwc);
  }

  const podPath = `/api/v1/namespaces/${SERVER_NS}/pods/${SERVER_POD}`;
  const containerStatus: Deployment['containerStatus'] = async (name) => {
    const p = await o.get<{ status?: { containerStatuses?: { name: string; ready: boolean; restartCount: number; image: string; containerID?: string }[] } }>({ apiVersion: 'v1', kind: 'Pod', metadata: { name: SERVER_POD, namespace: SERVER_NS } });
    return p?.status?.containerStatuses?.find((c) => c.name === name);
  };
  const podReady = async (namespace: string, name: string) => {
    const p = await o.get<{ status?: { conditions?: { type: string; status: string }[] } }>({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace } });
    return !!p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  };
  const metricsUrl = `http://127.0.0.1:${ports.controllerMetrics}/metrics`;
  const healthUrl = `http://127.0.0.1:${ports.controllerHealth}`;

  return {
    ports,
    metricsUrl,
    healthUrl,
    async deploy(controller) {
      await o.create(serverPod(plane, node, ports, controller, opts));
      await eventuallyPod(plane, node, SERVER_NS, SERVER_POD, () => podReady(SERVER_NS, SERVER_POD), `the SPIRE server pod is ready (${controller})`, 120_000);
      await o.create(agentPod(plane, node, ports));
      await eventuallyPod(plane, node, AGENT_NS, 'spire-agent-0', () => podReady(AGENT_NS, 'spire-agent-0'), 'the SPIRE agent pod is ready', 120_000);
    },
    async recreateServer(controller, { fresh = false } = {}) {
      const gone = (await o.get<{ metadata: { uid: string } }>({ apiVersion: 'v1', kind: 'Pod', metadata: { name: SERVER_POD, namespace: SERVER_NS } }))?.metadata.uid;
      await o.deleteGracefully({ apiVersion: 'v1', kind: 'Pod', metadata: { name: SERVER_POD, namespace: SERVER_NS } });
      await eventually(async () => (await o.get<{ metadata: { uid: string } }>({ apiVersion: 'v1', kind: 'Pod', metadata: { name: SERVER_POD, namespace: SERVER_NS } }))?.metadata.uid !== gone, 'the SPIRE server pod is gone', 60_000);
      if (fresh) {
        if (!opts.persistentServer) throw new Error('recreateServer(fresh) needs persistentServer: an emptyDir is new with every pod anyway');
        for (const dir of Object.values(serverDirs(node))) for (const f of readdirSync(dir)) rmSync(join(dir, f), { recursive: true, force: true });
        const lease = chartConfig.leaderElection;
        // None yet (no controller took it) is the only refusal that leaves the install fresh.
        await o.delete({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: lease.resourceName, namespace: lease.resourceNamespace } }).catch((err: unknown) => {
          if (!(err instanceof KubeApiError && err.statusCode === 404)) throw err;
        });
      }
      const created = Date.now();
      await o.create(serverPod(plane, node, ports, controller, opts));
      await eventuallyPod(plane, node, SERVER_NS, SERVER_POD, () => podReady(SERVER_NS, SERVER_POD), `the SPIRE server pod is ready again (${controller})`, 120_000);
      return created;
    },
    async swapController(controller, tagged) {
      const image = tagged ?? (controller === 'ours' ? IMAGES.ours : IMAGES.peer);
      const before = (await containerStatus(CONTROLLER))?.containerID;
      await plane.request('PATCH', podPath, {
        body: { spec: { containers: [{ name: CONTROLLER, image }] } },
        contentType: 'application/strategic-merge-patch+json',
      });
      await eventuallyPod(
        plane,
        node,
        SERVER_NS,
        SERVER_POD,
        async () => {
          const s = await containerStatus(CONTROLLER);
          return !!s && s.containerID !== before && s.image.includes(image.split('/')[1]!.split(':')[0]!) && s.ready;
        },
        `the controller container runs ${image} and is ready`,
        120_000,
      );
    },
    containerStatus,
    serverReady: () => podReady(SERVER_NS, SERVER_POD),
  };
}

/**
 * The SPIRE server pod's admin socket, on the node: the emptyDir its two
 * containers share, through a short link (its path under the kubelet's folder
 * is longer than a Unix socket address may be).
 */
export function adminSocket(node: RealNode): string {
  const kept = join(serverDirs(node).socket, 'api.sock');
  if (existsSync(kept)) return kept;
  const link = join(node.dir, 'admin');
  if (existsSync(join(link, 'api.sock'))) return join(link, 'api.sock');
  const pods = join(node.dir, 'kubelet', 'pods');
  for (const uid of readdirSync(pods)) {
    const dir = join(pods, uid, 'volumes', 'kubernetes.io~empty-dir', 'spire-server-socket');
    if (!existsSync(join(dir, 'api.sock'))) continue;
    symlinkSync(dir, link);
    return join(link, 'api.sock');
  }
  throw new Error(`no SPIRE admin socket under ${pods}`);
}

/** The last lines each container of a pod wrote (the kubelet's log files on the node). */
export function podLogs(node: RealNode, namespace: string, pod: string, lines = 30): string {
  const root = join(node.dir, 'pod-logs');
  const out: string[] = [];
  for (const dir of existsSync(root) ? readdirSync(root).filter((d) => d.startsWith(`${namespace}_${pod}_`)) : []) {
    for (const container of readdirSync(join(root, dir))) {
      const files = readdirSync(join(root, dir, container)).sort();
      const last = files[files.length - 1];
      if (!last) continue;
      const text = readFileSync(join(root, dir, container, last), 'utf8').split('\n').slice(-lines).join('\n');
      out.push(`--- ${namespace}/${pod} ${container} (${last}):\n${text}`);
    }
  }
  return out.join('\n') || `(no logs for ${namespace}/${pod})`;
}

/** `eventually`, with the pod's container statuses and logs in the error when it times out. */
export async function eventuallyPod(plane: ControlPlane, node: RealNode, namespace: string, pod: string, cond: () => Promise<boolean> | boolean, what: string, timeoutMs: number): Promise<void> {
  try {
    await eventually(cond, what, timeoutMs);
  } catch (err) {
    const p = await objects(plane)
      .get<{ status?: unknown }>({ apiVersion: 'v1', kind: 'Pod', metadata: { name: pod, namespace } })
      .catch(() => undefined);
    throw new Error(`${(err as Error).message}\nstatus: ${JSON.stringify(p?.status)}\n${podLogs(node, namespace, pod)}`, { cause: err });
  }
}

async function rootCa(plane: ControlPlane, namespace: string): Promise<void> {
  await plane.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace } };
  // With controllers, the root CA publisher writes it (and would take back any change); wait for it instead.
  if (plane.controllers) await eventually(async () => !!(await objects(plane).get(configMap)), `kube-root-ca.crt in ${namespace}`, 30_000);
  else await plane.apply({ ...configMap, data: { 'ca.crt': plane.caPem } });
}

/** A namespace for workloads, with its root CA ConfigMap and a ServiceAccount. */
export async function workloadNamespace(plane: ControlPlane, namespace: string, serviceAccount = 'default'): Promise<void> {
  await rootCa(plane, namespace);
  await plane.serviceAccount(namespace, serviceAccount);
}

export function versionsLine(plane: ControlPlane, node: RealNode): string {
  const v = realSpireVersions();
  return `kube-apiserver ${plane.versions.kubernetes}, etcd ${plane.versions.etcd}, kubelet ${node.versions.kubelet}, containerd ${node.versions.containerd}, runc ${node.versions.runc}, SPIRE server and agent ${v.SPIRE_VERSION}, spire-controller-manager ${v.SPIRE_CONTROLLER_MANAGER_VERSION}`;
}

