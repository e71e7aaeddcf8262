/**
 * deploy/monitoring/: every metric the Grafana dashboard and the alerting
 * rules query is in /metrics of a running controller (`run` in live mode, as
 * deployed, after a pass), and the PodMonitor scrapes the port the sidecar
 * patch opens.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments, stringify as toYaml } from 'yaml';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { httpGet, killIfRunning, repoRoot, servedAt, spawnCli } from '../support/cli.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { parseExposition } from './prom-text.js';

const MONITORING = join(repoRoot, 'deploy/monitoring');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}

const dashboard = JSON.parse(readFileSync(join(MONITORING, 'grafana-dashboard.json'), 'utf8')) as { panels: { type: string; title: string; targets?: { expr: string }[] }[] };
const rules = (parseYaml(readFileSync(join(MONITORING, 'prometheusrule.yaml'), 'utf8')) as { spec: { groups: { rules: Rule[] }[] } }).spec.groups.flatMap((g) => g.rules);
const queries = [...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)), ...rules.map((r) => r.expr)];

/** The metric names a query reads: ours, and the Node.js process metrics prom-client exports. */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\b(spire_reconciler_[a-z0-9_]+|process_[a-z0-9_]+|nodejs_[a-z0-9_]+)\b/g)].map((m) => m[1]!);
}

describe('deploy/monitoring/', () => {
  let kube: FakeKubeApiServer;
  let spire: MemorySpireServer;
  let dir: string;
  let cli: ReturnType<typeof spawnCli>;
  let exposition: ReturnType<typeof parseExposition>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'monitoring-'));
    kube = await FakeKubeApiServer.start({ namespace: 'spire-server' });
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'example.org' });
    kube.writeKubeconfig(join(dir, 'kubeconfig'));
    kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    kube.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, spec: {} });
    kube.create({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'all' }, spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/{{ .PodMeta.Name }}' } });
    kube.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'x' }] } });
    // The deployed config, with what a test cannot share with a cluster (socket, ports).
    const configMap = parseYaml(readFileSync(join(repoRoot, 'deploy/configmap.yaml'), 'utf8')) as { data: Record<string, string> };
    const config = {
      ...(parseYaml(configMap.data['config.yaml']!) as object),
      spireServerSocketPath: join(dir, 'api.sock'),
      clusterDomain: 'cluster.local',
      logEncoding: 'json',
      metrics: { bindAddress: '127.0.0.1:0' },
      health: { healthProbeBindAddress: '127.0.0.1:0' },
    };
    writeFileSync(join(dir, 'config.yaml'), toYaml(config));
    cli = spawnCli(['run', '--config', join(dir, 'config.yaml')], { env: { KUBECONFIG: join(dir, 'kubeconfig'), ENABLE_WEBHOOKS: 'false' } });
    const metricsUrl = `${await servedAt(cli, 'metrics')}/metrics`;
    // After a full pass, every series the queries need has a sample (histograms included).
    const deadline = Date.now() + 60_000;
    for (;;) {
      exposition = parseExposition((await httpGet(metricsUrl)).body);
      if (exposition.samples.some((s) => s.name === 'spire_reconciler_pass_seconds_count' && s.value > 0) && spire.entries.size > 0) break;
      if (Date.now() > deadline) throw new Error(`no pass within 60 s: ${cli.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 120_000);

  afterAll(async () => {
    await killIfRunning(cli);
    await spire?.stop();
    await kube?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('every metric the dashboard and the rules query is exported by a running controller', () => {
    const used = [...new Set(queries.flatMap(metricNames))].sort();
    // The queries cover what the dashboard is for.
    for (const name of ['spire_reconciler_entries_total', 'spire_reconciler_pass_phase_seconds_bucket', 'spire_reconciler_render_failures', 'spire_reconciler_conflicts', 'spire_reconciler_entries_kept', 'spire_reconciler_spire_rpc_seconds_bucket', 'spire_reconciler_spire_rpc_seconds_count', 'spire_reconciler_leader', 'spire_reconciler_seconds_since_last_success']) {
      expect(used).toContain(name);
    }
    const exported = new Set(exposition.samples.map((s) => s.name));
    expect(used.filter((name) => !exported.has(name))).toEqual([]);
  });

  it('each alert has a severity, a summary and a description, and deploy/README.md describes it', () => {
    const readme = readFileSync(join(repoRoot, 'deploy/README.md'), 'utf8');
    expect(rules.length).toBeGreaterThan(5);
    for (const r of rules) {
      expect(['critical', 'warning', 'info']).toContain(r.labels.severity);
      expect(r.annotations.summary.length).toBeGreaterThan(20);
      expect(r.annotations.description.length).toBeGreaterThan(20);
      expect(readme).toContain(`\`${r.alert}\``);
    }
  });

  it('the PodMonitor scrapes the port the sidecar patch names, and the kustomization lists what is here', () => {
    const podMonitor = parseYaml(readFileSync(join(MONITORING, 'podmonitor.yaml'), 'utf8')) as { spec: { podMetricsEndpoints: { port: string; path: string }[] } };
    const patch = parseYaml(readFileSync(join(repoRoot, 'deploy/sidecar/spire-server-sidecar-patch.yaml'), 'utf8')) as {
      spec: { template: { spec: { containers: { name: string; ports: { name: string; containerPort: number }[] }[] } } };
    };
    const ports = patch.spec.template.spec.containers.find((c) => c.name === 'spire-reconciler')!.ports;
    expect(podMonitor.spec.podMetricsEndpoints).toEqual([{ port: 'sr-metrics', path: '/metrics', interval: '30s' }]);
    expect(ports).toContainEqual({ name: 'sr-metrics', containerPort: 8082, protocol: 'TCP' });
    const kustomization = parseAllDocuments(readFileSync(join(MONITORING, 'kustomization.yaml'), 'utf8'))[0]!.toJS() as { resources: string[]; configMapGenerator: { files: string[] }[] };
    expect([...kustomization.resources, ...kustomization.configMapGenerator.flatMap((g) => g.files)].sort()).toEqual(['grafana-dashboard.json', 'podmonitor.yaml', 'prometheusrule.yaml']);
  });
});
