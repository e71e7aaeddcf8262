/**
 * The SPIRE helm chart's controller manager container with our image: its
 * command line (flags, no command), its config file as the chart renders it,
 * named relative to the working directory (/ in the image), its webhook
 * configuration's name and its className. The fixtures in
 * test/fixtures/upstream-chart/ were written from the chart's values (see the
 * README there). Only what cannot be the same in a test differs: the SPIRE
 * socket, the ports, and the cluster domain (detected from DNS in a pod).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments, stringify as toYaml } from 'yaml';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { exitCode, endProcessTest, repoRoot, spawnCli } from '../support/cli.js';
import { freePort } from '../support/ports.js';
import { eventually } from '../live/world.js';
import { FakeKubeApiServer } from '../support/kube/index.js';

const FIXTURES = join(repoRoot, 'test/fixtures/upstream-chart');
const CSID = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID' } as const;

interface Container {
  name: string;
  args: string[];
  env: { name: string; value: string }[];
}

const chart = parseYaml(readFileSync(join(FIXTURES, 'container-args.yaml'), 'utf8')) as { containers: Container[]; workingDir: string };
const chartConfig = () => parseYaml(readFileSync(join(FIXTURES, 'controller-manager-config.yaml'), 'utf8')) as Record<string, unknown>;

async function status(url: string): Promise<number> {
  try {
    return (await fetch(url)).status;
  } catch {
    return 0;
  }
}

/** deploy/webhook.yaml's ValidatingWebhookConfiguration, under the name the chart gives it. */
function webhookConfiguration(name: string): object {
  const docs = parseAllDocuments(readFileSync(join(repoRoot, 'deploy/webhook.yaml'), 'utf8'));
  if (!Array.isArray(docs)) throw new Error('deploy/webhook.yaml is empty');
  const vwc = docs.map((d) => d.toJS() as { kind: string; metadata: { name: string } }).find((o) => o.kind === 'ValidatingWebhookConfiguration')!;
  return { ...vwc, metadata: { ...vwc.metadata, name } };
}

const ns = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const pod = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace },
  spec: { nodeName: 'node-1', serviceAccountName: 'default', containers: [{ name: 'main', image: 'app:1' }] },
  status: { phase: 'Running' },
});

describe("the helm chart's controller manager container, with our image in it", () => {
  let dir: string;
  let root: string;
  let kube: FakeKubeApiServer;
  let spire: MemorySpireServer;
  let cli: ReturnType<typeof spawnCli> | undefined;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'upstream-chart-'));
    // Stands in for the container's /.
    root = join(dir, 'root');
    mkdirSync(root);
    kube = await FakeKubeApiServer.start({ namespace: 'spire-server' });
    kube.writeKubeconfig(join(dir, 'kubeconfig'));
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'example.org' });
  });

  afterEach(async () => {
    await endProcessTest({ cli, servers: [spire, kube], dir });
    cli = undefined;
  });

  it('starts from its arguments and its config relative to the working directory, becomes ready and registers the workloads the chart would', { timeout: 120_000 }, async () => {
    const container = chart.containers.find((c) => c.name === 'spire-controller-manager')!;
    expect(container.args).toEqual(['--config=controller-manager-config.yaml']);
    expect(chart.workingDir).toBe('/');

    const config = chartConfig();
    const health = await freePort();
    Object.assign(config, {
      spireServerSocketPath: join(dir, 'api.sock'),
      clusterDomain: 'cluster.local',
      metrics: { bindAddress: `127.0.0.1:${await freePort()}` },
      health: { healthProbeBindAddress: `127.0.0.1:${health}` },
      webhook: { host: '127.0.0.1', port: await freePort() },
    });
    // The file the --config argument names, where a path relative to the working directory finds it.
    writeFileSync(join(root, 'controller-manager-config.yaml'), toYaml(config));

    kube.create(webhookConfiguration(config.validatingWebhookConfigurationName as string));
    kube.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, spec: {} });
    for (const name of ['shop', 'openshift', 'kube-system', 'openshift-monitoring', 'my-openshift-apps', 'ibm-system', 'not-kube-system-x']) {
      kube.create(ns(name));
      kube.create(pod(name, `app-${name}`));
    }
    const template = 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}';
    // The chart's default ClusterSPIFFEID carries its className (and the label filterByClassName would select on).
    kube.create({ ...CSID, metadata: { name: 'spire-server-spire-default', labels: { 'spire.spiffe.io/class-name': 'spire-server-spire' } }, spec: { className: 'spire-server-spire', spiffeIDTemplate: template, fallback: true } });
    // Another install's object: not this controller's class.
    kube.create({ ...CSID, metadata: { name: 'classless' }, spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/classless/{{ .PodMeta.Name }}' } });

    const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
    cli = spawnCli(container.args, { cwd: root, env: { ...env, KUBECONFIG: join(dir, 'kubeconfig') } });

    await eventually(async () => (await status(`http://127.0.0.1:${health}/readyz`)) === 200, `/readyz answers 200: ${cli.output()}`, 60_000);
    // Upstream's ignoreNamespaces as the chart writes them, matched as upstream matches them (Go regexp, anywhere in the
    // name): openshift-.* ignores openshift-monitoring and my-openshift-apps but not openshift; kube-system ignores
    // not-kube-system-x.
    const paths = () => spire.entries.all().map((e) => e.spiffeId.path).sort();
    await eventually(() => paths().length === 2, `the chart's workloads have entries: ${paths().join()} ${cli.output()}`, 30_000);
    expect(paths()).toEqual(['/ns/openshift/sa/default', '/ns/shop/sa/default']);
    // entryIDPrefix is the cluster name, with the dot upstream appends.
    for (const e of spire.entries.all()) expect(e.id).toMatch(/^example-cluster\.[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The config loaded without a problem worth a warning.
    expect(cli.output()).not.toMatch(/WARN/);

    cli.kill('SIGTERM');
    expect(await exitCode(cli)).toBe(0);
  });
});
