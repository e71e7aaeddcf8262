/**
 * A pod network that stays on this machine, for a node of ./node.ts started
 * with `podNetwork`: a Linux bridge the node owns, its pods' veths on it with
 * addresses from a /24 of their own (CNI's bridge and host-local plugins from
 * /usr/lib/cni), and the host on the bridge at the subnet's first address.
 *
 * - The host reaches every pod address (the kubelet's probes, the API server
 *   calling a webhook's endpoint) through the bridge's connected route.
 * - Pods reach the host at `hostAddress`: a host-network server that should
 *   serve them listens there.
 * - Pods reach the API server the in-cluster way, at the `kubernetes`
 *   Service's ClusterIP and port (KUBERNETES_SERVICE_HOST and _PORT, set by
 *   the kubelet): one iptables DNAT rule, matched on packets coming in on this
 *   bridge, sends them to the API server's loopback address. That needs
 *   route_localnet on this bridge alone (else the kernel drops packets to
 *   127.0.0.0/8 that arrive on it), and a filter rule drops every other
 *   packet from the bridge to 127.0.0.0/8, so pods reach the API server and
 *   no other loopback listener (etcd's among them). Chosen over an address plus
 *   a forwarder in the test process: the kernel forwards whatever the test
 *   process is doing, and two nodes at once (each with a ClusterIP of
 *   10.0.0.1) do not collide, the rule matching on each one's bridge; a host
 *   address would be one per machine.
 *
 * Nothing leaves the machine: no masquerade, the bridge has no uplink, pods
 * get routes to their subnet and the Service range only, and IP forwarding is
 * left as it is (the bridge plugin enables it only as a gateway, which it is
 * not told to be; the bridge's address is set here).
 *
 * The bridge is named srnode<N> with subnet 10.213.<N>.0/24, N the first free
 * index: creating the link is the claim, so two nodes started at once get
 * two. Its alias records the owner's PID; a bridge whose owner has died
 * (a test process killed before it could clean up) is removed with its rules
 * when its index is next wanted. Neither collides with podman's
 * cni-podman0 (10.88.0.0/16) nor the Service range (10.0.0.0/24), and an
 * index whose subnet any route of this machine overlaps is skipped.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const BRIDGE_PREFIX = 'srnode';
const OWNER_ALIAS = 'spire-reconciler real-node, pid ';
const MAX_NODES = 64;
/** Where libcni caches each attachment's result, machine-wide; entries are named `<network>-<container>-<interface>`. */
const CNI_RESULTS = '/var/lib/cni/results';

export interface PodNetwork {
  /** The bridge's name, which is also the CNI network's. */
  readonly bridge: string;
  /** The pods' subnet, e.g. 10.213.0.0/24. */
  readonly subnet: string;
  /** The host's address on the bridge: where pods reach a host-network server listening on it. */
  readonly hostAddress: string;
  /** The CNI configuration list containerd loads for pods (a JSON document). */
  readonly cniConfig: string;
  /** Deletes the DNAT rule, the bridge and libcni's cached results for it. */
  remove(): Promise<void>;
}

/** What the machine lacks for a pod network, if anything. */
export function podNetworkUnavailable(): string | undefined {
  for (const plugin of ['bridge', 'host-local']) {
    if (!existsSync(join('/usr/lib/cni', plugin))) return `the CNI ${plugin} plugin is not installed (Debian: apt-get install -y containernetworking-plugins)`;
  }
  for (const bin of ['ip', 'iptables']) {
    if (!['/usr/sbin', '/usr/bin', '/sbin', '/bin'].some((d) => existsSync(join(d, bin)))) return `${bin} is not installed (Debian: apt-get install -y iproute2 iptables)`;
  }
  return undefined;
}

export interface PodNetworkInput {
  /** The node's folder: host-local keeps its allocations here, not in the machine's /var/lib/cni. */
  dir: string;
  /** The `kubernetes` Service's ClusterIP and port, and the Service range pods get a route to. */
  service: { ip: string; port: number; range: string };
  /** Where the API server listens (its loopback address). */
  apiServer: { host: string; port: number };
}

export async function createPodNetwork(input: PodNetworkInput): Promise<PodNetwork> {
  const { index, bridge } = await claimBridge();
  const subnet = `10.213.${index}.0/24`;
  const hostAddress = `10.213.${index}.1`;
  const tag = ['-m', 'comment', '--comment', ruleComment(bridge)];
  const rules: Rule[] = [
    // route_localnet lets a packet that came in on the bridge go to 127.0.0.0/8 at all; only the DNAT's may
    // (kube-proxy's rule for the same sysctl, which the kubelet also installs machine-wide, scoped to this bridge).
    { table: 'filter', chain: 'INPUT', spec: ['-i', bridge, '-d', '127.0.0.0/8', '-m', 'conntrack', '!', '--ctstate', 'DNAT', ...tag, '-j', 'DROP'] },
    {
      table: 'nat',
      chain: 'PREROUTING',
      spec: ['-i', bridge, '-d', `${input.service.ip}/32`, '-p', 'tcp', '--dport', String(input.service.port), ...tag, '-j', 'DNAT', '--to-destination', `${input.apiServer.host}:${input.apiServer.port}`],
    },
  ];
  // Synchronous, so it can run from the process's exit handler too. The bridge first: with it go its routes and sysctl.
  let removed = false;
  const removeSync = () => {
    if (removed) return;
    removed = true;
    process.off('exit', removeSync);
    for (const [cmd, args] of [['ip', ['link', 'del', bridge]] as const, ...rules.map((r) => ['iptables', iptablesArgs('-D', r)] as const)]) {
      try {
        execFileSync(cmd, args, { stdio: 'ignore' });
      } catch {
        // Already gone.
      }
    }
    removeCniResults(bridge);
  };
  process.once('exit', removeSync);
  try {
    // The rules before the sysctl, so there is no moment when the bridge reaches the host's loopback unguarded.
    for (const r of rules) await run('iptables', iptablesArgs('-I', r));
    await run('ip', ['addr', 'add', `${hostAddress}/24`, 'dev', bridge]);
    await run('ip', ['link', 'set', 'dev', bridge, 'up']);
    writeFileSync(`/proc/sys/net/ipv4/conf/${bridge}/route_localnet`, '1');
  } catch (err) {
    removeSync();
    throw err;
  }
  const cniConfig = JSON.stringify({
    cniVersion: '1.0.0',
    name: bridge,
    plugins: [
      {
        type: 'bridge',
        bridge,
        isGateway: false,
        ipMasq: false,
        ipam: {
          type: 'host-local',
          dataDir: join(input.dir, 'cni-ipam'),
          ranges: [[{ subnet, gateway: hostAddress }]],
          routes: [{ dst: input.service.range, gw: hostAddress }],
        },
      },
    ],
  });
  return {
    bridge,
    subnet,
    hostAddress,
    cniConfig,
    async remove() {
      removeSync();
    },
  };
}

interface Rule {
  table: 'filter' | 'nat';
  chain: string;
  spec: string[];
}

const iptablesArgs = (op: '-I' | '-D', r: Rule) => ['-w', '-t', r.table, op, r.chain, ...r.spec];
const ruleComment = (bridge: string) => `spire-reconciler real-node ${bridge}`;

/** The first srnode<N> this process could create (the claim), after removing one a dead process left behind. */
async function claimBridge(): Promise<{ index: number; bridge: string }> {
  const routes = await routedIPv4();
  for (let index = 0; index < MAX_NODES; index++) {
    const bridge = `${BRIDGE_PREFIX}${index}`;
    if (existsSync(`/sys/class/net/${bridge}`)) {
      if (!(await removeIfAbandoned(bridge))) continue;
    } else if (routes.some((r) => overlaps(r, `10.213.${index}.0/24`))) {
      continue;
    }
    try {
      await run('ip', ['link', 'add', 'name', bridge, 'type', 'bridge']);
    } catch {
      continue; // Another node created it first.
    }
    await run('ip', ['link', 'set', 'dev', bridge, 'alias', `${OWNER_ALIAS}${process.pid}`]);
    return { index, bridge };
  }
  throw new Error(`no free pod network bridge: ${BRIDGE_PREFIX}0 to ${BRIDGE_PREFIX}${MAX_NODES - 1} are all taken or their subnets routed`);
}

/** Removes a bridge of ours whose owner process is gone (and its DNAT rule); true if it did. */
async function removeIfAbandoned(bridge: string): Promise<boolean> {
  let alias: string;
  try {
    alias = readFileSync(`/sys/class/net/${bridge}/ifalias`, 'utf8').trim();
  } catch {
    return false;
  }
  if (!alias.startsWith(OWNER_ALIAS)) return false;
  const pid = Number(alias.slice(OWNER_ALIAS.length));
  if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) return false;
  await run('ip', ['link', 'del', bridge]).catch(() => undefined);
  for (const [table, chain] of [
    ['nat', 'PREROUTING'],
    ['filter', 'INPUT'],
  ]) {
    const { stdout } = await run('iptables', ['-w', '-t', table!, '-S', chain!]);
    for (const line of stdout.split('\n').filter((l) => l.startsWith('-A ') && l.includes(`"${ruleComment(bridge)}"`))) {
      // iptables -S prints a rule as the arguments that append it, the comment quoted (it has spaces).
      const args = line.slice(3).match(/"[^"]*"|\S+/g)!.map((a) => a.replace(/^"(.*)"$/, '$1'));
      await run('iptables', ['-w', '-t', table!, '-D', ...args]).catch(() => undefined);
    }
  }
  removeCniResults(bridge);
  return !existsSync(`/sys/class/net/${bridge}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeCniResults(network: string): void {
  let names: string[];
  try {
    names = readdirSync(CNI_RESULTS);
  } catch {
    return;
  }
  for (const name of names.filter((n) => n.startsWith(`${network}-`))) rmSync(join(CNI_RESULTS, name), { force: true });
}

/** Every IPv4 prefix this machine routes, but the default route. */
async function routedIPv4(): Promise<string[]> {
  const { stdout } = await run('ip', ['-j', '-4', 'route', 'show', 'table', 'all']);
  return (JSON.parse(stdout) as { dst: string }[]).map((r) => r.dst).filter((d) => d !== 'default' && /^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(d));
}

/** Whether two IPv4 prefixes (a.b.c.d/n; no length is /32) share an address. */
export function overlaps(a: string, b: string): boolean {
  const parse = (cidr: string) => {
    const [ip, len] = cidr.split('/');
    const n = ip!.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
    return { n, len: len === undefined ? 32 : Number(len) };
  };
  const x = parse(a);
  const y = parse(b);
  const len = Math.min(x.len, y.len);
  const block = 2 ** (32 - len);
  return Math.floor(x.n / block) === Math.floor(y.n / block);
}
