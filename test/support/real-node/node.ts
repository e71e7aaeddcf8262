/**
 * A real Kubernetes node for tests: containerd (Debian's) with its own root,
 * state, socket and CNI configuration under a temp folder, never the
 * machine's, and a kubelet (built from the pinned k8s.io/kubernetes by
 * scripts/real-k8s/build.sh) registered with a control plane of
 * ./real-k8s. By default only host-network pods run here: the CNI
 * configuration is loopback alone, so no pod gets an address, and no
 * kube-proxy runs, so host-network pods reach the API server on loopback
 * (KUBERNETES_SERVICE_HOST and _PORT set in their spec, as test/e2e/world.ts
 * does). With `podNetwork` every other pod gets an address on a bridge this
 * node owns and reaches the API server at the `kubernetes` Service's
 * ClusterIP (./pod-network.ts); host-network pods run exactly as without it.
 *
 * stop() ends every container and process this module started, by their
 * PIDs and containerd IDs, unmounts what the kubelet and containerd mounted
 * under its folder (pods' network namespaces included) and removes the pod
 * network.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify as toYaml } from 'yaml';
import { killProcess, startProcess, waitFor } from '../child-processes.js';
import { repoRoot } from '../cli.js';
import { freePort } from '../ports.js';
import { cacheRoot, pinnedKubernetesVersion } from '../real-k8s/binaries.js';
import type { ControlPlane } from '../real-k8s/control-plane.js';
import { SERVICE_CLUSTER_IP_RANGE } from '../real-k8s/pki.js';
import { createPodNetwork, type PodNetwork, podNetworkUnavailable } from './pod-network.js';

const run = promisify(execFile);

export interface NodeVersions {
  kubelet: string;
  containerd: string;
  runc: string;
}

export interface RealNode {
  readonly name: string;
  readonly dir: string;
  readonly versions: NodeVersions;
  /** The kubelet's read-only port on 127.0.0.1 (the SPIRE agent's k8s workload attestor asks it for pods). */
  readonly kubeletReadOnlyPort: number;
  /**
   * With `podNetwork`: the bridge, the pods' subnet and the host's address on
   * it (`hostAddress`), where pods reach a host-network server that listens on it.
   */
  readonly podNetwork?: Pick<PodNetwork, 'bridge' | 'subnet' | 'hostAddress'>;
  /** Imports a docker-archive into containerd's k8s.io namespace, where the kubelet finds it. */
  importImage(archive: string): Promise<void>;
  /** Gives an imported image another name (the same content): a pod spec naming it is a new container to the kubelet. */
  tagImage(source: string, target: string): Promise<void>;
  /** Kills a container's process (its ID as the pod's status gives it, `containerd://` or not) as an out-of-memory kill or a crash would: SIGKILL. */
  killContainer(id: string): Promise<void>;
  stop(): Promise<void>;
}

/** Where scripts/real-k8s/build.sh put the kubelet, for the version the control plane runs. */
export function kubeletBinary(kubernetesVersion: string): string {
  return join(cacheRoot(), `kubelet-${kubernetesVersion}`, 'kubelet');
}

/** What the machine lacks to run a node, if anything (the lane skips with that reason). */
export function nodeUnavailable(kubernetesVersion = pinnedKubernetesVersion(), opts: { podNetwork?: boolean } = {}): string | undefined {
  if (process.getuid?.() !== 0) return 'a node needs root (containerd, the kubelet and cgroups)';
  for (const bin of ['containerd', 'containerd-shim-runc-v2', 'ctr', 'runc']) {
    if (!['/usr/bin', '/usr/sbin', '/bin', '/sbin'].some((d) => existsSync(join(d, bin)))) return `${bin} is not installed (Debian: apt-get install -y containerd runc)`;
  }
  if (!existsSync('/usr/lib/cni/loopback')) return 'the CNI loopback plugin is not installed (Debian: apt-get install -y containernetworking-plugins)';
  if (!existsSync(kubeletBinary(kubernetesVersion))) return `${kubeletBinary(kubernetesVersion)} is not built: run npm run real:build`;
  return opts.podNetwork ? podNetworkUnavailable() : undefined;
}

function containerdConfig(dir: string, wrapper: string): string {
  // TOML; JSON strings are valid TOML basic strings.
  const s = JSON.stringify;
  return `version = 2
root = ${s(join(dir, 'root'))}
state = ${s(join(dir, 'state'))}
# Snapshotters this machine has no use for, kept from probing for their devices.
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs"]

[grpc]
  address = ${s(join(dir, 'containerd.sock'))}
[ttrpc]
  address = ${s(join(dir, 'containerd.sock.ttrpc'))}
[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = ${s(join(dir, 'opt'))}
[plugins."io.containerd.grpc.v1.cri"]
  # The sandbox image is built here (scripts/e2e/images.sh): Kubernetes' own is on a registry these machines cannot reach.
  sandbox_image = "localhost/pause:e2e"
  enable_selinux = false
  # Pods' network namespaces mounted under the state folder, not the machine's /var/run/netns: stop() unmounts them with the rest.
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = ${s(join(dir, 'cni'))}
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        # runc behind the harness's wrapper: see its comment (these VMs lack CAP_SYS_RESOURCE).
        BinaryName = ${s(wrapper)}
        Root = ${s(join(dir, 'runc'))}
        SystemdCgroup = false
`;
}

export interface NodeOptions {
  name?: string;
  /**
   * Pods that are not host-network get an address on a bridge this node owns
   * and reach the API server at the `kubernetes` Service's ClusterIP
   * (./pod-network.ts). Pair it with the control plane's `controllers`, which
   * mounts their service-account tokens and lets the API server call their
   * webhooks. Without it only host-network pods get a network.
   */
  podNetwork?: boolean;
  /** Bound on the node becoming Ready. Default 120 s. */
  readyTimeoutMs?: number;
}

/** Starts containerd and a kubelet registered with `plane`, and waits for the Node to be Ready (and, on a plane with controllers, untainted). */
export async function startNode(plane: ControlPlane, opts: NodeOptions = {}): Promise<RealNode> {
  const reason = nodeUnavailable(plane.versions.kubernetes, { podNetwork: opts.podNetwork });
  if (reason) throw new Error(reason);
  const name = opts.name ?? 'node-1';
  const dir = mkdtempSync(join(tmpdir(), 'real-node-'));
  const children: ChildProcess[] = [];
  const cdDir = join(dir, 'containerd');
  const socket = join(cdDir, 'containerd.sock');
  const ctr = (...args: string[]) => run('ctr', ['--address', socket, '--namespace', 'k8s.io', ...args], { maxBuffer: 64 << 20 });
  const timeoutMs = opts.readyTimeoutMs ?? 120_000;
  let network: PodNetwork | undefined;

  const stopContainers = async () => {
    // Every task this containerd runs, killed and deleted, so no shim outlives the node.
    const tasks = await ctr('tasks', 'ls', '-q').then((r) => r.stdout.split('\n').filter(Boolean), () => [] as string[]);
    for (const id of tasks) await ctr('tasks', 'kill', '--signal', 'SIGKILL', id).catch(() => undefined);
    for (const id of tasks) {
      for (let i = 0; i < 50; i++) {
        const deleted = await ctr('tasks', 'delete', id).then(
          () => true,
          // The CRI plugin deletes a task of its own once it has exited: gone is done.
          (err: Error & { stderr?: string }) => /not found/.test(err.stderr ?? ''),
        );
        if (deleted) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const unmountAll = async () => {
    const mounts = readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' ')[1]?.replace(/\\040/g, ' '))
      .filter((m): m is string => !!m && m.startsWith(`${dir}/`))
      .sort((a, b) => b.length - a.length);
    for (const m of mounts) await run('umount', ['-l', m]).catch(() => undefined);
  };
  const cleanup = async () => {
    for (const child of [...children].reverse()) {
      if (child === children[0]) await stopContainers();
      await killProcess(child);
    }
    await unmountAll();
    // After the unmounts: the pods' network namespaces, and their veths on the bridge, are gone with them.
    await network?.remove();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    mkdirSync(join(cdDir, 'cni'), { recursive: true });
    // containerd's CRI brings every pod's lo up itself and attaches the first network of this folder.
    if (opts.podNetwork) {
      const api = new URL(plane.url);
      network = await createPodNetwork({
        dir,
        service: { ...plane.kubernetesService, range: SERVICE_CLUSTER_IP_RANGE },
        apiServer: { host: api.hostname, port: Number(api.port) },
      });
      writeFileSync(join(cdDir, 'cni', '10-bridge.conflist'), network.cniConfig);
    } else {
      writeFileSync(join(cdDir, 'cni', '10-loopback.conflist'), JSON.stringify({ cniVersion: '1.0.0', name: 'loopback-only', plugins: [{ type: 'loopback' }] }));
    }
    const wrapper = join(repoRoot, 'test/support/real-node/runc-wrapper.sh');
    writeFileSync(join(cdDir, 'config.toml'), containerdConfig(cdDir, wrapper));
    const cdLog = join(dir, 'containerd.log');
    const containerd = startProcess('containerd', ['--config', join(cdDir, 'config.toml'), '--log-level', 'warn'], cdLog);
    children.push(containerd);
    await waitFor('containerd', containerd, cdLog, async () => (await ctr('version')).stdout.includes('Server'), 30_000);

    const [port, readOnlyPort, healthzPort] = [await freePort(), await freePort(), await freePort()];
    const kubeconfig = join(dir, 'kubelet.kubeconfig');
    // The kubelet signs in as the admin: a node identity needs the Node authorizer
    // and a certificate per node, which this one-node cluster has no use for.
    plane.writeKubeconfig(kubeconfig, plane.admin);
    const kubeletConfig = {
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      address: '127.0.0.1',
      port,
      readOnlyPort,
      healthzBindAddress: '127.0.0.1',
      healthzPort,
      containerRuntimeEndpoint: `unix://${socket}`,
      // The machines' hierarchy is cgroup v1 (with a unified mount beside it), without systemd.
      cgroupDriver: 'cgroupfs',
      failCgroupV1: false,
      failSwapOn: false,
      authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
      authorization: { mode: 'AlwaysAllow' },
      podLogsDir: join(dir, 'pod-logs'),
      resolvConf: '/etc/resolv.conf',
      // A test machine's disk is whatever it is: never evict or collect images for it.
      evictionHard: { 'memory.available': '1Mi', 'nodefs.available': '0%', 'imagefs.available': '0%' },
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      localStorageCapacityIsolation: false,
      // ConfigMaps and projected tokens refreshed promptly; pod status reported promptly.
      syncFrequency: '5s',
      nodeStatusUpdateFrequency: '5s',
      serializeImagePulls: false,
      registerNode: true,
    };
    writeFileSync(join(dir, 'kubelet.yaml'), toYaml(kubeletConfig));
    const kubeletLog = join(dir, 'kubelet.log');
    const kubelet = startProcess(
      kubeletBinary(plane.versions.kubernetes),
      [
        `--config=${join(dir, 'kubelet.yaml')}`,
        `--kubeconfig=${kubeconfig}`,
        `--root-dir=${join(dir, 'kubelet')}`,
        `--cert-dir=${join(dir, 'kubelet-pki')}`,
        `--hostname-override=${name}`,
        '--node-ip=127.0.0.1',
        '--v=1',
      ],
      kubeletLog,
    );
    children.push(kubelet);
    await waitFor(
      `the kubelet (node ${name})`,
      kubelet,
      kubeletLog,
      async () => {
        const node = await plane.request<{ spec?: { taints?: { key: string }[] }; status?: { conditions?: { type: string; status: string }[] } }>('GET', `/api/v1/nodes/${name}`);
        const ready = !!node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
        // With controllers, schedulable too: the node lifecycle controller has lifted the not-ready taint the kubelet registers it with.
        return ready && !(plane.controllers && node.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/not-ready'));
      },
      timeoutMs,
    );

    const versionOf = async (cmd: string, args: string[], re: RegExp) => re.exec((await run(cmd, args)).stdout)?.[1] ?? 'unknown';
    const versions: NodeVersions = {
      kubelet: await versionOf(kubeletBinary(plane.versions.kubernetes), ['--version'], /Kubernetes (\S+)/),
      containerd: await versionOf('containerd', ['--version'], /containerd \S+ (\S+)/),
      runc: await versionOf('runc', ['--version'], /runc version (\S+)/),
    };

    return {
      name,
      dir,
      versions,
      kubeletReadOnlyPort: readOnlyPort,
      ...(network ? { podNetwork: { bridge: network.bridge, subnet: network.subnet, hostAddress: network.hostAddress } } : {}),
      async importImage(archive) {
        await ctr('images', 'import', '--no-unpack', archive);
      },
      async tagImage(source, target) {
        await ctr('images', 'tag', '--force', source, target);
      },
      async killContainer(id) {
        await ctr('tasks', 'kill', '--signal', 'SIGKILL', id.replace(/^containerd:\/\//, ''));
      },
      stop: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
