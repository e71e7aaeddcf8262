/**
 * deploy/monitoring/: each alert is documented, and the PodMonitor scrapes the
 * port the sidecar patch opens. That the metrics the rules and the dashboard
 * query are exported is test/monitoring/metric-names.test.ts; that the rules
 * fire when they should, npm run check:monitoring (promtool).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { repoRoot } from '../support/cli.js';

const MONITORING = join(repoRoot, 'deploy/monitoring');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}

const rules = (parseYaml(readFileSync(join(MONITORING, 'prometheusrule.yaml'), 'utf8')) as { spec: { groups: { rules: Rule[] }[] } }).spec.groups.flatMap((g) => g.rules);

describe('deploy/monitoring/', () => {
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
