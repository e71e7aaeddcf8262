import {
  type ComparedField,
  describeEntryConflict,
  describeFederationOmission,
  describeMigration,
  describeRenderFailure,
  type EntryPassResult,
  type EntrySpec,
  objectName,
} from '../entries/index.js';

/** An entry as `plan --output json` prints it. */
export interface EntryView {
  id: string;
  spiffeID: string;
  parentID: string;
  /** `type:value`, sorted. */
  selectors: string[];
  dnsNames: string[];
  federatesWith: string[];
  x509SVIDTTL: number;
  jwtSVIDTTL: number;
  admin: boolean;
  downstream: boolean;
  hint: string;
  storeSVID: boolean;
}

const FIELD_NAMES: Record<ComparedField, keyof EntryView> = {
  x509SvidTtl: 'x509SVIDTTL',
  jwtSvidTtl: 'jwtSVIDTTL',
  federatesWith: 'federatesWith',
  admin: 'admin',
  downstream: 'downstream',
  dnsNames: 'dnsNames',
  hint: 'hint',
  storeSvid: 'storeSVID',
};

export function entryView(id: string, s: EntrySpec): EntryView {
  return {
    id,
    spiffeID: s.spiffeId,
    parentID: s.parentId,
    selectors: s.selectors.map((x) => `${x.type}:${x.value}`).sort(),
    dnsNames: [...s.dnsNames],
    federatesWith: [...s.federatesWith].sort(),
    x509SVIDTTL: s.x509SvidTtl,
    jwtSVIDTTL: s.jwtSvidTtl,
    admin: s.admin,
    downstream: s.downstream,
    hint: s.hint,
    storeSVID: s.storeSvid,
  };
}

/** The migration notes with their messages; undefined when there is nothing to say. */
function migrationReport(result: EntryPassResult, entryIDPrefix: string): (EntryPassResult['migration'] & { messages: string[] }) | undefined {
  const notes = result.migration;
  if (!notes || (!notes.serverGenerated && !notes.legacy)) return undefined;
  return { ...notes, messages: describeMigration(notes, entryIDPrefix).map((m) => m.message) };
}

/** The plan as one JSON object (the documented `plan --output json` shape). */
export function planJson(result: EntryPassResult, entryIDPrefix = ''): object {
  const { plan, declared, status } = result;
  const migration = migrationReport(result, entryIDPrefix);
  return {
    create: plan.creates.map((c) => entryView(c.id, c.spec)),
    update: plan.updates.map((u) => ({ entry: entryView(u.id, u.spec), changed: u.changed.map((f) => FIELD_NAMES[f]) })),
    delete: plan.deletes.map((d) => entryView(d.id, d.current)),
    conflicts: plan.conflicts.map((c) => ({ object: objectName(c.owner), entry: entryView('', c.spec), heldBy: c.foreignIds })),
    renderFailures: declared.renderFailures.map((f) => ({ object: objectName(f.owner), ...(f.pod ? { pod: f.pod } : {}), message: f.message })),
    federationOmissions: declared.federationOmissions.map((o) => ({ object: objectName(o.owner), spiffeID: o.spiffeId, missing: o.missing })),
    kept: plan.kept,
    ...(migration ? { migration } : {}),
    status,
  };
}

function show(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? '[]' : v.join(', ');
  return String(v);
}

function entryLine(e: EntryView): string {
  const extras: string[] = [];
  if (e.dnsNames.length) extras.push(`dns=${e.dnsNames.join(',')}`);
  if (e.federatesWith.length) extras.push(`federatesWith=${e.federatesWith.join(',')}`);
  if (e.x509SVIDTTL) extras.push(`ttl=${e.x509SVIDTTL}s`);
  if (e.jwtSVIDTTL) extras.push(`jwtTtl=${e.jwtSVIDTTL}s`);
  if (e.admin) extras.push('admin');
  if (e.downstream) extras.push('downstream');
  if (e.storeSVID) extras.push('storeSVID');
  if (e.hint) extras.push(`hint=${e.hint}`);
  return `${e.spiffeID}  parent=${e.parentID}  selectors=${e.selectors.join(',')}${extras.length ? `  ${extras.join('  ')}` : ''}`;
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

/** The plan for a terminal: creates, updates (old -> new), deletes, status, then what went wrong. */
export function planTable(result: EntryPassResult, entryIDPrefix = ''): string {
  const { plan, declared, status } = result;
  const out: string[] = [];
  const section = (title: string, count: number) => out.push('', `${title} (${count})`);

  section('Create', plan.creates.length);
  for (const c of plan.creates) out.push(`  + ${c.id}  ${entryLine(entryView(c.id, c.spec))}  [${objectName(c.owner)}]`);
  section('Update', plan.updates.length);
  for (const u of plan.updates) {
    const now = entryView(u.id, u.current);
    const next = entryView(u.id, u.spec);
    out.push(`  ~ ${u.id}  ${u.spec.spiffeId}  [${objectName(u.owner)}]`);
    for (const f of u.changed) {
      const name = FIELD_NAMES[f];
      out.push(`      ${name}: ${show(now[name])} -> ${show(next[name])}`);
    }
  }
  section('Delete', plan.deletes.length);
  for (const d of plan.deletes) out.push(`  - ${d.id}  ${entryLine(entryView(d.id, d.current))}  (${d.reason})`);

  const csids = Object.entries(status.clusterSPIFFEIDs);
  if (csids.length > 0) {
    out.push('', 'ClusterSPIFFEID status');
    const rows = csids.map(([name, s]) =>
      [name, s.namespacesSelected, s.namespacesIgnored, s.podsSelected, s.podEntryRenderFailures, s.entriesToSet, s.entriesMasked, s.entryFailures].map(String),
    );
    out.push(...table(['NAME', 'NS SELECTED', 'NS IGNORED', 'PODS', 'RENDER FAILURES', 'TO SET', 'MASKED', 'ENTRY FAILURES'], rows).map((l) => `  ${l}`));
  }
  const statics = Object.entries(status.clusterStaticEntries);
  if (statics.length > 0) {
    out.push('', 'ClusterStaticEntry status');
    const rows = statics.map(([name, s]) => [name, String(s.rendered), String(s.masked), String(s.set)]);
    out.push(...table(['NAME', 'RENDERED', 'MASKED', 'SET'], rows).map((l) => `  ${l}`));
  }
  if (plan.conflicts.length > 0) {
    section('Conflicts: declared entries held by entries outside entryScope, not created', plan.conflicts.length);
    for (const c of plan.conflicts) out.push(`  ! ${objectName(c.owner)}: ${describeEntryConflict(c)}`);
  }
  if (declared.renderFailures.length > 0) {
    section('Render failures', declared.renderFailures.length);
    for (const f of declared.renderFailures) out.push(`  ! ${objectName(f.owner)}: ${describeRenderFailure(f)}`);
  }
  if (declared.federationOmissions.length > 0) {
    section('Set without some federatesWith (no bundle yet; completed once SPIRE has it)', declared.federationOmissions.length);
    for (const o of declared.federationOmissions) out.push(`  ! ${objectName(o.owner)}: ${describeFederationOmission(o)}`);
  }
  if (plan.kept.length > 0) {
    section('Kept (not deleted or changed)', plan.kept.length);
    for (const k of plan.kept) out.push(`  = ${k.id}: ${k.detail}`);
  }
  const migration = migrationReport(result, entryIDPrefix);
  if (migration) {
    out.push('', 'Migration');
    for (const m of migration.messages) out.push(`  ! ${m}`);
    for (const id of migration.legacy?.leftAloneIds ?? []) out.push(`  = ${id}: former default prefix, owner unknown: left alone`);
  }
  return out.join('\n').replace(/^\n/, '');
}

/** What an apply did, for the same terminal. */
export function applySummary(result: EntryPassResult): string {
  const a = result.applied;
  if (!a) return '';
  const lines = [`Applied: ${a.created} created, ${a.updated} updated, ${a.deleted} deleted, ${a.failures.length} failed`];
  for (const f of a.failures) lines.push(`  ! ${f.op} ${f.id}${f.owner ? ` [${objectName(f.owner)}]` : ''}: ${f.codeName}: ${f.message}`);
  for (const h of a.heldBack) lines.push(`  = ${h.id}: ${h.detail}`);
  return lines.join('\n');
}
