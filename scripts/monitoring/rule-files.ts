/**
 * deploy/monitoring/ in the shapes Prometheus's own tools read, for
 * scripts/check-monitoring.sh (promtool) and test/monitoring/ (the metric
 * names the queries use).
 *
 * The PrometheusRule is a Prometheus Operator custom resource: its `spec` is
 * the content of a Prometheus rule file, but promtool refuses the object
 * around it (apiVersion, kind, metadata), so the spec is taken out. The
 * dashboard's queries are written as recording rules, so that promtool parses
 * them with Prometheus's PromQL parser as it does the alerts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export const MONITORING = fileURLToPath(new URL('../../deploy/monitoring/', import.meta.url));

export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface RuleGroup {
  name: string;
  rules: Rule[];
}

/** The rule groups of a PrometheusRule manifest (its spec.groups). */
export function prometheusRuleGroups(manifest: string): RuleGroup[] {
  const doc = parseYaml(manifest) as { kind?: unknown; spec?: { groups?: unknown } } | null;
  if (doc?.kind !== 'PrometheusRule' || !Array.isArray(doc.spec?.groups)) {
    throw new Error('not a PrometheusRule with spec.groups');
  }
  return doc.spec.groups as RuleGroup[];
}

export function loadRuleGroups(): RuleGroup[] {
  return prometheusRuleGroups(readFileSync(join(MONITORING, 'prometheusrule.yaml'), 'utf8'));
}

/** A query of the dashboard, and where it is. */
export interface DashboardQuery {
  /** For messages: the panel's id and title, and the target's refId. */
  where: string;
  /**
   * Its name as a recording rule: dashboard:panel_<panel id>_<refId>,
   * dashboard:variable_<name> or dashboard:annotation_<n>. Grafana keeps
   * panel ids and refIds, so tests can name a query by it.
   */
  record: string;
  /** As written, Grafana variables included. */
  expr: string;
}

const metricNameChars = (s: string) => s.replace(/[^a-zA-Z0-9_:]/g, '_');

interface Panel {
  id?: number;
  title?: string;
  targets?: { refId?: string; expr?: unknown }[];
  /** A collapsed row holds its panels. */
  panels?: Panel[];
}

interface Dashboard {
  panels?: Panel[];
  templating?: { list?: { name?: string; type?: string; query?: unknown }[] };
  annotations?: { list?: { name?: string; expr?: unknown }[] };
}

/**
 * Every PromQL query of a Grafana dashboard: panel targets (rows' nested
 * panels included), annotation queries, and the series selector inside a
 * query variable's `label_values(selector, label)` or `query_result(query)`.
 * Other variable queries (`label_values(label)`, `label_names()`,
 * `metrics(regex)`) are Grafana functions with no PromQL in them.
 */
export function dashboardQueries(dashboard: Dashboard): DashboardQuery[] {
  const out: DashboardQuery[] = [];
  const visit = (panels: Panel[] | undefined) => {
    for (const p of panels ?? []) {
      for (const t of p.targets ?? []) {
        if (typeof t.expr !== 'string' || t.expr.trim() === '') continue;
        out.push({ where: `panel ${p.id ?? '?'} "${p.title ?? ''}" target ${t.refId ?? '?'}`, record: metricNameChars(`dashboard:panel_${p.id ?? ''}_${t.refId ?? ''}`), expr: t.expr });
      }
      visit(p.panels);
    }
  };
  visit(dashboard.panels);
  (dashboard.annotations?.list ?? []).forEach((a, i) => {
    if (typeof a.expr === 'string' && a.expr.trim() !== '') out.push({ where: `annotation "${a.name ?? ''}"`, record: `dashboard:annotation_${i + 1}`, expr: a.expr });
  });
  for (const v of dashboard.templating?.list ?? []) {
    if (v.type !== 'query') continue;
    const q = typeof v.query === 'string' ? v.query : (v.query as { query?: unknown } | undefined)?.query;
    if (typeof q !== 'string') continue;
    const inner = /^\s*label_values\(\s*(.+?)\s*,\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)\s*$/s.exec(q) ?? /^\s*query_result\(\s*(.+)\s*\)\s*$/s.exec(q);
    if (inner) out.push({ where: `variable $${v.name ?? '?'}`, record: metricNameChars(`dashboard:variable_${v.name ?? ''}`), expr: inner[1]! });
  }
  return out;
}

export function loadDashboardQueries(): DashboardQuery[] {
  return dashboardQueries(JSON.parse(readFileSync(join(MONITORING, 'grafana-dashboard.json'), 'utf8')) as Dashboard);
}

/**
 * A dashboard query as plain PromQL: Grafana's interval variables become a
 * duration, and the others, which the dashboard uses only inside label
 * matcher strings (`namespace=~"$namespace"`), a regular expression matching
 * anything. A variable used anywhere else is left broken on purpose, so that
 * promtool reports it.
 */
export function asPromQL(expr: string): string {
  return expr
    .replace(/\$(?:__rate_interval|__interval|__range)\b|\$\{(?:__rate_interval|__interval|__range)\}/g, '5m')
    .replace(/"([^"\\]*(?:\\.[^"\\]*)*)"/g, (_, s: string) => `"${s.replace(/\$\{[^}]*\}|\$[a-zA-Z_][a-zA-Z0-9_]*/g, '.*')}"`);
}
