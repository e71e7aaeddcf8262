/**
 * Writes deploy/monitoring/ as two Prometheus rule files into the directory
 * given, for scripts/check-monitoring.sh: alerts.rules.yaml (the
 * PrometheusRule's groups, as Prometheus would load them) and
 * dashboard.rules.yaml (each dashboard query as a recording rule, only to be
 * parsed), with dashboard.queries.txt saying which query each record is.
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
// Recording rule names must be metric names; the record is only a label for promtool's messages, so the index keeps them unique.
const records = queries.map((q, i) => ({ record: `dashboard:query_${i + 1}`, expr: asPromQL(q.expr) }));
writeFileSync(join(dir, 'dashboard.rules.yaml'), stringify({ groups: [{ name: 'grafana-dashboard', rules: records }] }));

const alerts = groups.flatMap((g) => g.rules).filter((r) => r.alert !== undefined).length;
console.log(`alerts.rules.yaml: ${alerts} alerts in ${groups.length} group(s) from deploy/monitoring/prometheusrule.yaml`);
console.log(`dashboard.rules.yaml: ${queries.length} queries from deploy/monitoring/grafana-dashboard.json`);
writeFileSync(join(dir, 'dashboard.queries.txt'), queries.map((q, i) => `${records[i]!.record}: ${q.where}: ${q.expr}\n`).join(''));
