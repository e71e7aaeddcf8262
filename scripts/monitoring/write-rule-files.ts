/**
 * Writes deploy/monitoring/ as two Prometheus rule files into the directory
 * given, for scripts/check-monitoring.sh: alerts.rules.yaml (the
 * PrometheusRule's groups, as Prometheus would load them) and
 * dashboard.rules.yaml (each dashboard query as a recording rule, to be
 * parsed, and some evaluated by test/monitoring/dashboard-test.yaml).
 * Prints what it wrote.
 *
 *   tsx scripts/monitoring/write-rule-files.ts DIR
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { stringify } from 'yaml';
import { asPromQL, loadDashboardQueries, loadRuleGroups } from './rule-files.js';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: write-rule-files.ts DIR');
  process.exit(2);
}

const groups = loadRuleGroups();
writeFileSync(join(dir, 'alerts.rules.yaml'), stringify({ groups }));

const queries = loadDashboardQueries();
const records = queries.map((q) => ({ record: q.record, expr: asPromQL(q.expr) }));
writeFileSync(join(dir, 'dashboard.rules.yaml'), stringify({ groups: [{ name: 'grafana-dashboard', rules: records }] }));

const alerts = groups.flatMap((g) => g.rules).filter((r) => r.alert !== undefined).length;
console.log(`alerts.rules.yaml: ${alerts} alerts in ${groups.length} group(s) from deploy/monitoring/prometheusrule.yaml`);
console.log(`dashboard.rules.yaml: ${queries.length} queries from deploy/monitoring/grafana-dashboard.json`);
