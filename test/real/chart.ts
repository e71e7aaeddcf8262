/**
 * The SPIRE helm chart's controller manager container, as the real lane's
 * tests start it: its arguments and environment, its rendered config
 * (test/fixtures/upstream-chart/, written from the chart's values), its
 * ClusterRole, and a stand-in for the container's working directory (/)
 * holding the config where the chart mounts it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { repoRoot } from '../support/cli.js';
import { freePort } from '../support/ports.js';
import { peerBinary } from '../support/real-spire.js';
import { csid, type Obj } from './world.js';

export const CHART = join(repoRoot, 'test/fixtures/upstream-chart');

/** The chart's ClusterRole (with deploy/'s namespace, which it binds in). */
export const CHART_RBAC = [join(repoRoot, 'deploy/namespace.yaml'), join(CHART, 'clusterrole.yaml')];

interface Container {
  name: string;
  args: string[];
  env: { name: string; value: string }[];
}

const containers = (parseYaml(readFileSync(join(CHART, 'container-args.yaml'), 'utf8')) as { containers: Container[] }).containers;

/** The controller manager container in the SPIRE server pod. */
export const chartContainer = containers.find((c) => c.name === 'spire-controller-manager')!;

export type ChartConfig = Record<string, unknown> & {
  className: string;
  trustDomain: string;
  validatingWebhookConfigurationName: string;
  leaderElection: { resourceName: string; resourceNamespace: string };
};

export const chartConfig = parseYaml(readFileSync(join(CHART, 'controller-manager-config.yaml'), 'utf8')) as ChartConfig;

/** A ClusterSPIFFEID of the chart's class (its watchClassless is false). */
export const chartCsid = (name: string, spec: Record<string, unknown>): Obj => csid(name, { className: chartConfig.className, ...spec });

/**
 * Writes the chart's config into `<dir>/root` (the container's / stand-in),
 * changed only by `over` and by free loopback ports for metrics and health
 * probes (the chart's are fixed). Returns that folder and the probe URLs.
 */
export async function writeChartConfig(dir: string, over: Record<string, unknown>): Promise<{ root: string; health: string; metrics: string }> {
  const [healthPort, metricsPort] = [await freePort(), await freePort()];
  const root = join(dir, 'root');
  mkdirSync(root);
  writeFileSync(
    join(root, 'controller-manager-config.yaml'),
    toYaml({ ...chartConfig, ...over, metrics: { bindAddress: `127.0.0.1:${metricsPort}` }, health: { healthProbeBindAddress: `127.0.0.1:${healthPort}` } }),
  );
  return { root, health: `http://127.0.0.1:${healthPort}`, metrics: `http://127.0.0.1:${metricsPort}/metrics` };
}

/**
 * spire-controller-manager (the peer) as the chart's container runs it: its
 * arguments, the container's working directory (`root`, from
 * writeChartConfig) and environment; its output kept.
 */
export function startChartPeer(root: string, env: Record<string, string>): ChildProcess & { output: () => string } {
  let out = '';
  const child = spawn(peerBinary(), chartContainer.args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return Object.assign(child, { output: () => out });
}
