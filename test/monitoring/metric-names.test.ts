/**
 * deploy/monitoring/: every metric the alerting rules and the Grafana
 * dashboard query is one a running controller exports. The names come from
 * /metrics of `run` in live mode with the deployed config, scraped over
 * HTTP, by their HELP and TYPE lines: a labelled metric has no sample until
 * its first event (a relist, a refused write), yet it is exported.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { loadDashboardQueries, loadRuleGroups, MONITORING } from '../../scripts/monitoring/rule-files.js';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { parseExposition, type Exposition } from '../manager/prom-text.js';
import { httpGet, killIfRunning, repoRoot, servedAt, spawnCli } from '../support/cli.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { isExported, metricNames } from './promql-names.js';

describe('metric names in PromQL', () => {
  it('are the selectors, not functions, keywords, label names, durations, strings or Grafana variables', () => {
    expect(metricNames('histogram_quantile(0.99, sum by (namespace, le) (rate(spire_reconciler_pass_seconds_bucket[15m]))) > 30')).toEqual(['spire_reconciler_pass_seconds_bucket']);
    expect(metricNames('max by (namespace) (spire_reconciler_seconds_since_last_success * on (namespace, pod) spire_reconciler_leader) > 300')).toEqual([
      'spire_reconciler_seconds_since_last_success',
      'spire_reconciler_leader',
    ]);
    expect(metricNames('sum(rate(a_total{code!="OK",method=~"Entry\\\\..*"}[$__rate_interval])) without (pod) / ignoring(code) group_left(team) b')).toEqual(['a_total', 'b']);
    expect(metricNames('max(x{namespace=~"$namespace"} offset 1h30m) and bool on() vector(1) or absent(up) unless y @ end()')).toEqual(['x', 'up', 'y']);
    expect(metricNames('topk(5, count_values("version", build_info)) + label_replace(z, "dst", "$1", "src", "(.*)") > Inf')).toEqual(['build_info', 'z']);
    expect(metricNames('{__name__="by_name", job="j"} + {__name__=~"regex_.*"} + rate(r:recorded:rate5m[5m:1m]) # comment naming not_a_metric')).toEqual(['by_name', 'r:recorded:rate5m']);
    expect(metricNames('sum(increase(${counter_total}[1h])) * 1e3')).toEqual([]);
  });

  it('are exported if the exposition has them as a series: histogram suffixes on histograms only', () => {
    const types = new Map([
      ['c_total', 'counter'],
      ['g', 'gauge'],
      ['h_seconds', 'histogram'],
      ['s_seconds', 'summary'],
    ]);
    for (const name of ['c_total', 'g', 'h_seconds_bucket', 'h_seconds_sum', 'h_seconds_count', 's_seconds', 's_seconds_sum', 's_seconds_count']) expect(isExported(name, types), name).toBe(true);
    for (const name of ['c', 'g_total', 'g_bucket', 'h_seconds', 's_seconds_bucket', 'c_total_count', 'unknown']) expect(isExported(name, types), name).toBe(false);
  });
});

describe('deploy/monitoring/ against /metrics of a running controller', () => {
  let kube: FakeKubeApiServer;
  let spire: MemorySpireServer;
  let dir: string;
  let cli: ReturnType<typeof spawnCli>;
  let exposition: Exposition;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'metric-names-'));
    kube = await FakeKubeApiServer.start({ namespace: 'spire-server' });
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'example.org' });
    kube.writeKubeconfig(join(dir, 'kubeconfig'));
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
    // Scraped at once: the metrics are registered before the server serves them, pass or no pass.
    const res = await httpGet(`${await servedAt(cli, 'metrics')}/metrics`);
    expect(res.status).toBe(200);
    exposition = parseExposition(res.body);
  }, 60_000);

  afterAll(async () => {
    await killIfRunning(cli);
    await spire?.stop();
    await kube?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists a metric that has no sample yet by its HELP and TYPE lines', () => {
    // No informer has relisted: the counter has no series, but is declared.
    expect(exposition.types.get('spire_reconciler_informer_relists_total')).toBe('counter');
    expect(exposition.help.get('spire_reconciler_informer_relists_total')).toMatch(/relist/i);
    expect(exposition.samples.filter((s) => s.name === 'spire_reconciler_informer_relists_total')).toEqual([]);
    // And every sample belongs to a declared metric, so TYPE lines are the whole list.
    expect(exposition.samples.filter((s) => !isExported(s.name, exposition.types)).map((s) => s.name)).toEqual([]);
  });

  const unexported = (queries: { where: string; expr: string }[]) =>
    queries.flatMap((q) => metricNames(q.expr).filter((name) => !isExported(name, exposition.types)).map((name) => `${q.where}: ${name}`));

  it('every metric an alerting rule reads is exported', () => {
    const rules = loadRuleGroups().flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert ?? r.record}`, expr: r.expr })));
    expect(rules.length).toBeGreaterThan(5);
    // Not vacuous: the extraction finds the series the rules are about.
    const used = new Set(rules.flatMap((r) => metricNames(r.expr)));
    for (const name of ['spire_reconciler_leader', 'spire_reconciler_pass_failures_total', 'spire_reconciler_entries_total', 'spire_reconciler_pass_seconds_bucket', 'spire_reconciler_spire_rpc_seconds_count']) expect(used).toContain(name);
    expect(unexported(rules)).toEqual([]);
  });

  it('every metric a dashboard query reads is exported', () => {
    const queries = loadDashboardQueries();
    expect(queries.length).toBeGreaterThan(10);
    const used = new Set(queries.flatMap((q) => metricNames(q.expr)));
    for (const name of ['spire_reconciler_leader', 'spire_reconciler_pass_phase_seconds_bucket', 'spire_reconciler_spire_rpc_seconds_bucket', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes']) expect(used).toContain(name);
    expect(unexported(queries)).toEqual([]);
  });

  it('every spire_reconciler_ metric the alerts and the dashboard name in their text is exported', () => {
    const dashboard = readFileSync(join(MONITORING, 'grafana-dashboard.json'), 'utf8');
    const annotations = loadRuleGroups().flatMap((g) => g.rules.flatMap((r) => Object.values(r.annotations ?? {})));
    // Prose names a metric family: a histogram by its own name.
    const named = [...new Set([dashboard, ...annotations].flatMap((text) => [...text.matchAll(/\bspire_reconciler_[a-z0-9_]+/g)].map((m) => m[0])))];
    expect(named).toContain('spire_reconciler_pass_phase_seconds');
    expect(named.filter((name) => !exposition.types.has(name) && !isExported(name, exposition.types))).toEqual([]);
  });
});
