/**
 * `run` with a config file that names only what it must (trust domain,
 * cluster name, the socket): no metrics, health, leaderElection, webhook or
 * tlsConfig block. Beside it, in the same network namespace, a process holds
 * 0.0.0.0:8080 and 0.0.0.0:8081, as a SPIRE server deployed by the SPIRE helm
 * chart does (its health checks and its agents' port). The controller must
 * start and reconcile, and take neither port: upstream serves no probes
 * without a health block, and ours serves no metrics without a metrics block
 * (docs/configuration.md says why ours differs there).
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { endProcessTest, exitCode, logLines, spawnCli, waitForOutput } from '../support/cli.js';
import { ns, pod } from '../support/deployed.js';
import { eventually } from '../live/world.js';
import { FakeKubeApiServer } from '../support/kube/index.js';

const TD = 'example.org';
const SPIRE_SERVER_PORTS = [8080, 8081];

/** Holds 0.0.0.0:port; undefined when another process on this machine holds it already (held either way). */
function hold(port: number): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(undefined) : reject(err)));
    server.listen({ port, host: '0.0.0.0' }, () => resolve(server));
  });
}

/** The TCP ports a process listens on, from Linux's /proc: its socket inodes against the kernel's listening sockets. */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // Closed while being read.
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; st 0A is LISTEN; inode is the tenth field.
      if (f[3] === '0A' && inodes.has(f[9]!)) ports.push(parseInt(f[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

let dir: string;
let kube: FakeKubeApiServer;
let spire: MemorySpireServer;
let holders: (Server | undefined)[];
let cli: ReturnType<typeof spawnCli> | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'run-defaults-'));
  holders = await Promise.all(SPIRE_SERVER_PORTS.map(hold));
  kube = await FakeKubeApiServer.start();
  kube.writeKubeconfig(join(dir, 'kubeconfig'));
  spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: TD });
  kube.create(ns('shop'));
  kube.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, spec: {} });
  kube.create({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'workloads' }, spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}' } });
  kube.create(pod('shop', 'web', {}));
});

afterEach(async () => {
  await endProcessTest({ cli, servers: [spire, kube], dir });
  cli = undefined;
  await Promise.all(holders.map((h) => h && new Promise((resolve) => h.close(resolve))));
});

it('a config with no optional blocks starts beside a SPIRE server holding 8080 and 8081, reconciles, and listens on neither', { timeout: 90_000 }, async () => {
  const config = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ControllerManagerConfig', trustDomain: TD, clusterName: 'demo', clusterDomain: 'cluster.local', spireServerSocketPath: join(dir, 'api.sock'), logEncoding: 'json' };
  writeFileSync(join(dir, 'config.yaml'), toYaml(config));
  cli = spawnCli(['run', '--config', join(dir, 'config.yaml')], { env: { KUBECONFIG: join(dir, 'kubeconfig') } });

  await waitForOutput(cli, /"msg":"live mode started"/, 60_000);
  await eventually(() => spire.entries.all().some((e) => e.spiffeId.path === '/ns/shop/sa/web'), "the pod's entry is written");
  kube.create(pod('shop', 'api', {}));
  await eventually(() => spire.entries.all().some((e) => e.spiffeId.path === '/ns/shop/sa/api'), 'a new pod gets its entry');

  // Nothing of ours listens: no probes, no metrics, and no webhook while no ValidatingWebhookConfiguration names it.
  expect(listeningPorts(cli.pid!)).toEqual([]);
  const messages = logLines(cli).map((l) => String(l.msg));
  expect(messages.filter((m) => /^serving /.test(m))).toEqual([]);
  expect(cli.output()).not.toMatch(/address already in use/);

  cli.kill('SIGTERM');
  expect(await exitCode(cli)).toBe(0);
});
