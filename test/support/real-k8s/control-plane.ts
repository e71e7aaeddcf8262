/**
 * A real Kubernetes control plane for tests: etcd and kube-apiserver (built
 * by scripts/real-k8s/build.sh) as child processes on free loopback ports,
 * with everything in a fresh temp folder: certificates made at start, a
 * service-account signing key, RBAC authorization, an admin client
 * certificate, and this repository's CRDs applied. By default no
 * controller-manager, scheduler or kubelet runs: nothing schedules,
 * garbage-collects, finalizes namespaces or runs pods, so tests create what
 * those would (nodeName, EndpointSlices) and delete pods with a zero grace
 * period. With `controllers: true` (the e2e lane's cluster) kube-controller-manager
 * and kube-scheduler run too (./controllers.ts), and the API server is set up
 * for pods on a pod network (see ControlPlaneOptions).
 *
 * stop() kills only the processes this module started, by their PIDs.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { Agent, fetch } from 'undici';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { KubeApiError, kubeRequest } from '../../../src/kube/rest.js';
import { killProcess, startProcess, waitFor } from '../child-processes.js';
import { repoRoot } from '../cli.js';
import { freePort } from '../ports.js';
import { etcdutlBinary, type RealK8sBinaries, realK8sBinaries } from './binaries.js';
import { startControllers } from './controllers.js';
import { type EtcdSnapshot, etcdRevisionAt, type RestoreOptions, restoreEtcdSnapshot, saveEtcdSnapshot } from './etcd-restore.js';
import { createControlPlanePki, type ControlPlanePki, KUBERNETES_SERVICE_IP, SERVICE_CLUSTER_IP_RANGE } from './pki.js';

export interface ControlPlaneVersions {
  /** kube-apiserver's /version gitVersion, e.g. v1.36.3. */
  kubernetes: string;
  /** etcd's /version etcdserver, e.g. 3.6.8. */
  etcd: string;
}

type Method = 'GET' | 'PATCH' | 'POST' | 'PUT' | 'DELETE';

export type { EtcdSnapshot, RestoreOptions };

export interface ControlPlane {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  readonly dir: string;
  readonly versions: ControlPlaneVersions;
  readonly caPem: string;
  /** Whether kube-controller-manager and kube-scheduler run (the `controllers` option). */
  readonly controllers: boolean;
  /**
   * The `kubernetes` Service's ClusterIP and port: what the kubelet gives every
   * pod as KUBERNETES_SERVICE_HOST and _PORT. No kube-proxy runs, so nothing
   * routes it but a node with a pod network (../real-node), for its pods.
   */
  readonly kubernetesService: { ip: string; port: number };
  /** An admin (system:masters) client: RBAC does not apply to it. */
  readonly admin: KubeConfig;
  /** A request as the admin; the JSON answer. */
  request<T = unknown>(method: Method, path: string, opts?: { query?: Record<string, string>; body?: unknown; contentType?: string }): Promise<T>;
  /** A request as the admin, answered as it comes (a watch ends after its timeoutSeconds): status and body text. */
  raw(path: string): Promise<{ status: number; text: string }>;
  /** The same KubeConfig, for another server address (a proxy in front of this API server). */
  via(kc: KubeConfig, server: string): KubeConfig;
  /** Creates the object, or replaces it if it exists (metadata.resourceVersion taken from the stored one). */
  apply<T = unknown>(obj: object): Promise<T>;
  /**
   * A KubeConfig for a ServiceAccount (created, with its namespace, if missing), with a
   * token from the TokenRequest API: what a pod running as that account presents.
   */
  serviceAccount(namespace: string, name: string): Promise<KubeConfig>;
  /** Writes a KubeConfig as a kubeconfig file, for a child process (KUBECONFIG). */
  writeKubeconfig(path: string, kc: KubeConfig): void;
  /** etcd's current revision (the API server's resourceVersion). */
  etcdRevision(): Promise<number>;
  /** Installs one of crds/ left out at start (`leaveOutCrds`) and waits until the API server serves its resource. */
  installCrd(name: string): Promise<void>;
  /** Compacts etcd's history up to its current revision: older resourceVersions are gone. Returns that revision. */
  compactEtcd(): Promise<number>;
  /** Stops kube-apiserver (SIGTERM) and starts it again on the same port and etcd: every connection drops, its watch cache starts afresh. */
  restartApiServer(): Promise<void>;
  /** Saves a snapshot of the running etcd into the plane's folder, as `etcdctl snapshot save` does. */
  snapshotEtcd(): Promise<EtcdSnapshot>;
  /**
   * Restores etcd from `snapshot` as an operator restores a cluster's: kube-apiserver and
   * etcd stopped, `etcdutl snapshot restore` into a new data directory (with the
   * revision options given), etcd started on it and kube-apiserver after it, both on
   * their ports. Returns etcd's revision once the API server is ready again.
   */
  restoreEtcd(snapshot: EtcdSnapshot, opts: RestoreOptions): Promise<number>;
  stop(): Promise<void>;
}

function kubeConfigFor(url: string, caPem: string, user: { token?: string; certPem?: string; keyPem?: string }, namespace = 'default'): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'real', server: url, caData: Buffer.from(caPem).toString('base64') }],
    users: [
      {
        name: 'user',
        ...(user.token ? { token: user.token } : {}),
        ...(user.certPem ? { certData: Buffer.from(user.certPem).toString('base64') } : {}),
        ...(user.keyPem ? { keyData: Buffer.from(user.keyPem).toString('base64') } : {}),
      },
    ],
    contexts: [{ name: 'real', cluster: 'real', user: 'user', namespace }],
    currentContext: 'real',
  });
  return kc;
}

/** A KubeConfig as a kubeconfig file, for a child process (KUBECONFIG, --kubeconfig). */
function writeKubeconfigFile(path: string, kc: KubeConfig): void {
  const cluster = kc.getCurrentCluster()!;
  const user = kc.getCurrentUser()!;
  const context = kc.getContextObject(kc.getCurrentContext())!;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'real', cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } }],
    users: [
      {
        name: 'user',
        user: {
          ...(user.token ? { token: user.token } : {}),
          ...(user.certData ? { 'client-certificate-data': user.certData } : {}),
          ...(user.keyData ? { 'client-key-data': user.keyData } : {}),
        },
      },
    ],
    contexts: [{ name: 'real', context: { cluster: 'real', user: 'user', namespace: context.namespace ?? 'default' } }],
    'current-context': 'real',
  };
  writeFileSync(path, toYaml(doc), { mode: 0o600 });
}

function crdObjects(): { metadata: { name: string } }[] {
  const dir = join(repoRoot, 'crds');
  return readdirSync(dir)
    .filter((f) => f.startsWith('spire.spiffe.io_') && f.endsWith('.yaml'))
    .sort()
    .map((f) => parseYaml(readFileSync(join(dir, f), 'utf8')) as { metadata: { name: string } });
}

export interface ControlPlaneOptions {
  /** Extra kube-apiserver flags (`--name=value`), after ours. */
  apiServerFlags?: string[];
  /** Bound on start-up; cold (first start after a build) is a few seconds more than warm. Default 90 s. */
  startTimeoutMs?: number;
  /**
   * A cluster as users have one, for pods on a pod network (the e2e lane's
   * real-node `podNetwork`): kube-controller-manager and kube-scheduler run
   * (./controllers.ts), and kube-apiserver
   * - admits pods through the ServiceAccount plugin, which mounts their
   *   projected token, CA and namespace (a container already mounting
   *   something at /var/run/secrets/kubernetes.io/serviceaccount keeps its
   *   own; a pod with automountServiceAccountToken false gets none), and
   *   requires the ServiceAccount a pod names to exist;
   * - calls a webhook's Service at one of its EndpointSlices' ready addresses
   *   (--enable-aggregator-routing), since no kube-proxy routes a ClusterIP;
   *   it still checks the certificate for <service>.<namespace>.svc. That resolver takes ClusterIP, NodePort and LoadBalancer Services only:
   *   an ExternalName webhook Service (the sidecar lane's) is refused with
   *   `unsupported service type "ExternalName"`, so that lane runs without
   *   this option.
   * Off by default: the real API server lane neither needs nor waits for them.
   */
  controllers?: boolean;
  /**
   * CRDs of crds/ not installed at start, by name (`clusterstaticentries.spire.spiffe.io`):
   * a cluster that has only some of them. `installCrd` adds one later.
   */
  leaveOutCrds?: string[];
}

/** Starts etcd and kube-apiserver, waits for /readyz, applies crds/ and waits until they are served. */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const bins: RealK8sBinaries = realK8sBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'real-k8s-'));
  const timeoutMs = opts.startTimeoutMs ?? 90_000;
  const children: ChildProcess[] = [];
  try {
    const pki: ControlPlanePki = await createControlPlanePki();
    const file = (name: string, content: string) => {
      const path = join(dir, name);
      writeFileSync(path, content, { mode: 0o600 });
      return path;
    };
    const caFile = file('ca.crt', pki.caPem);
    const servingCert = file('apiserver.crt', pki.serving.certPem);
    const servingKey = file('apiserver.key', pki.serving.keyPem);
    const saPub = file('sa.pub', pki.serviceAccount.publicKeyPem);
    const saKey = file('sa.key', pki.serviceAccount.privateKeyPem);

    const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const etcdLog = join(dir, 'etcd.log');
    const member = { name: 'real-k8s', peerUrl: `http://127.0.0.1:${peerPort}` };
    /** etcd on `dataDir`; a restored one starts on the directory etcdutl made, the same flags otherwise. */
    const startEtcd = async (dataDir: string) => {
      const child = startProcess(
        bins.etcd,
        [
          `--name=${member.name}`,
          `--data-dir=${dataDir}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=${member.peerUrl}`,
          `--initial-advertise-peer-urls=${member.peerUrl}`,
          `--initial-cluster=${member.name}=${member.peerUrl}`,
          // A test's data is thrown away: no fsync makes every write much cheaper on a shared disk.
          '--unsafe-no-fsync',
          '--log-level=warn',
        ],
        etcdLog,
      );
      children.push(child);
      await waitFor('etcd', child, etcdLog, async () => ((await (await fetch(`${etcdUrl}/health`)).json()) as { health?: string }).health === 'true', timeoutMs);
      return child;
    };
    let etcd = await startEtcd(join(dir, 'etcd-data'));

    const url = `https://127.0.0.1:${apiPort}`;
    const apiLog = join(dir, 'kube-apiserver.log');
    const apiArgs = [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--tls-cert-file=${servingCert}`,
      `--tls-private-key-file=${servingKey}`,
      `--client-ca-file=${caFile}`,
      `--service-account-key-file=${saPub}`,
      `--service-account-signing-key-file=${saKey}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      '--authorization-mode=RBAC',
      ...(opts.controllers
        ? ['--enable-aggregator-routing=true']
        : // Pods name service accounts nobody created; no controller would mount their tokens anyway.
          ['--disable-admission-plugins=ServiceAccount']),
      // Nothing routes to the `kubernetes` Service's endpoints here.
      '--endpoint-reconciler-type=none',
      '--profiling=false',
      `--cert-dir=${join(dir, 'certs')}`,
      ...(opts.apiServerFlags ?? []),
    ];
    const caAgent = new Agent({ connect: { ca: pki.caPem } });
    const adminAgent = new Agent({ connect: { ca: pki.caPem, cert: pki.admin.certPem, key: pki.admin.keyPem } });
    const startApiServer = async () => {
      const child = startProcess(bins.kubeApiserver, apiArgs, apiLog);
      await waitFor('kube-apiserver', child, apiLog, async () => (await fetch(`${url}/readyz`, { dispatcher: caAgent })).status === 200, timeoutMs);
      return child;
    };
    let apiServer = await startApiServer();
    children.push(apiServer);

    const admin = kubeConfigFor(url, pki.caPem, { certPem: pki.admin.certPem, keyPem: pki.admin.keyPem });
    const request = <T>(method: Method, path: string, o: { query?: Record<string, string>; body?: unknown; contentType?: string } = {}) => kubeRequest<T>(admin, method, path, o);

    const allCrds = crdObjects();
    const unknown = (opts.leaveOutCrds ?? []).filter((n) => !allCrds.some((c) => c.metadata.name === n));
    if (unknown.length > 0) throw new Error(`leaveOutCrds: no CRD ${unknown.join(', ')} in crds/`);
    const install = async (crds: { metadata: { name: string } }[]) => {
      for (const crd of crds) await request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
      const established = async () => {
        for (const crd of crds) {
          const got = await request<{ status?: { conditions?: { type: string; status: string }[] } }>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
          if (!got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return false;
          // Established is set before the resource is in discovery and servable: ask for it.
          await request('GET', `/apis/spire.spiffe.io/v1alpha1/${crd.metadata.name.split('.')[0]}`);
        }
        return true;
      };
      await waitFor('the CRDs', apiServer, apiLog, established, timeoutMs);
    };
    await install(allCrds.filter((c) => !opts.leaveOutCrds?.includes(c.metadata.name)));

    const versions: ControlPlaneVersions = {
      kubernetes: (await request<{ gitVersion: string }>('GET', '/version')).gitVersion,
      etcd: ((await (await fetch(`${etcdUrl}/version`)).json()) as { etcdserver: string }).etcdserver,
    };

    if (opts.controllers) {
      const kubeconfig = join(dir, 'admin.kubeconfig');
      writeKubeconfigFile(kubeconfig, admin);
      children.push(...(await startControllers({ kubernetesVersion: versions.kubernetes, dir, kubeconfig, caFile, timeoutMs })));
      // Healthy is not yet working: the first namespace's ServiceAccount and CA ConfigMap show the controllers have synced.
      await waitFor(
        'the default ServiceAccount and kube-root-ca.crt',
        apiServer,
        apiLog,
        async () => {
          await request('GET', '/api/v1/namespaces/default/serviceaccounts/default');
          await request('GET', '/api/v1/namespaces/default/configmaps/kube-root-ca.crt');
          return true;
        },
        timeoutMs,
      );
    }

    const etcdPost = async <T>(path: string, body: unknown): Promise<T> => {
      const res = await fetch(`${etcdUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
      const text = await res.text();
      if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as T;
    };
    const etcdRevision = () => etcdRevisionAt(etcdUrl);
    let restores = 0;

    const plane: ControlPlane = {
      url,
      dir,
      versions,
      caPem: pki.caPem,
      controllers: !!opts.controllers,
      kubernetesService: { ip: KUBERNETES_SERVICE_IP, port: 443 },
      admin,
      request,
      async raw(path) {
        const res = await fetch(`${url}${path}`, { dispatcher: adminAgent });
        return { status: res.status, text: await res.text() };
      },
      via(kc, server) {
        const user = kc.getCurrentUser()!;
        const context = kc.getContextObject(kc.getCurrentContext())!;
        return kubeConfigFor(server, pki.caPem, { ...(user.token ? { token: user.token } : {}) }, context.namespace);
      },
      async apply<T>(obj: object) {
        const path = objectPath(obj);
        try {
          return await request<T>('POST', path.collection, { body: obj });
        } catch (err) {
          if (!(err instanceof KubeApiError && err.statusCode === 409)) throw err;
          const current = await request<{ metadata: { resourceVersion: string } }>('GET', path.object);
          const o = obj as { metadata?: Record<string, unknown> };
          return request<T>('PUT', path.object, { body: { ...o, metadata: { ...o.metadata, resourceVersion: current.metadata.resourceVersion } } });
        }
      },
      async serviceAccount(namespace, name) {
        for (const [path, body] of [
          ['/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }],
          [`/api/v1/namespaces/${namespace}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } }],
        ] as const) {
          await request('POST', path, { body }).catch((err: unknown) => {
            if (!(err instanceof KubeApiError && err.statusCode === 409)) throw err;
          });
        }
        const tr = await request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
        });
        return kubeConfigFor(url, pki.caPem, { token: tr.status.token }, namespace);
      },
      writeKubeconfig: writeKubeconfigFile,
      async installCrd(name) {
        const crd = allCrds.find((c) => c.metadata.name === name);
        if (!crd) throw new Error(`installCrd: no CRD ${name} in crds/`);
        await install([crd]);
      },
      etcdRevision,
      async compactEtcd() {
        const revision = await etcdRevision();
        await etcdPost('/v3/kv/compaction', { revision: String(revision), physical: true });
        return revision;
      },
      async restartApiServer() {
        await killProcess(apiServer);
        apiServer = await startApiServer();
        children.push(apiServer);
      },
      async snapshotEtcd() {
        return saveEtcdSnapshot(etcdUrl, join(dir, `etcd-snapshot-${Date.now()}.db`));
      },
      async restoreEtcd(snapshot, o) {
        const etcdutl = etcdutlBinary();
        // The API server first, as a cluster's restore stops them: none may write to, or serve from, the etcd being replaced.
        await killProcess(apiServer);
        await killProcess(etcd);
        const dataDir = join(dir, `etcd-restored-${++restores}`);
        await restoreEtcdSnapshot(etcdutl, snapshot.path, dataDir, member, o);
        etcd = await startEtcd(dataDir);
        apiServer = await startApiServer();
        children.push(apiServer);
        return etcdRevision();
      },
      async stop() {
        // The API server first: it would log etcd's absence for its whole shutdown.
        for (const child of [...children].reverse()) await killProcess(child);
        await caAgent.close();
        await adminAgent.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return plane;
  } catch (err) {
    for (const child of children.reverse()) await killProcess(child);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Resource paths of an object: the plural is the lowercased kind + 's' for every kind the tests create here. */
export function objectPath(obj: object): { collection: string; object: string } {
  const o = obj as { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };
  const plural = PLURALS[o.kind] ?? `${o.kind.toLowerCase()}s`;
  const base = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  const ns = o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : '';
  const collection = `${base}${ns}/${plural}`;
  return { collection, object: `${collection}/${encodeURIComponent(o.metadata.name)}` };
}

const PLURALS: Record<string, string> = {
  Endpoints: 'endpoints',
  ClusterSPIFFEID: 'clusterspiffeids',
  ClusterStaticEntry: 'clusterstaticentries',
  ClusterFederatedTrustDomain: 'clusterfederatedtrustdomains',
};
