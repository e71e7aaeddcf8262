import { stringify } from 'yaml';
import {
  type ComparedField,
  FIELD_VIEW_NAMES,
  describeMigration,
  type EntryPassResult,
  type EntrySpec,
  type KeptEntry,
  objectName,
  type StatusReport,
} from '../entries/index.js';
import type { SourceInfo } from './inputs.js';

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

/** Each compared field's name in EntryView (the field table in entries/compare.ts names them). */
export const FIELD_NAMES: Record<ComparedField, keyof EntryView> = FIELD_VIEW_NAMES;

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

/** The fields of an update, before and after, by their JSON names. */
export function changedValues(current: EntrySpec, next: EntrySpec, changed: readonly ComparedField[]): { old: Partial<EntryView>; new: Partial<EntryView> } {
  const was = entryView('', current);
  const now = entryView('', next);
  const old: Record<string, unknown> = {};
  const neu: Record<string, unknown> = {};
  for (const f of changed) {
    old[FIELD_NAMES[f]] = was[FIELD_NAMES[f]];
    neu[FIELD_NAMES[f]] = now[FIELD_NAMES[f]];
  }
  return { old: old as Partial<EntryView>, new: neu as Partial<EntryView> };
}

/** The pod an entry is for: its UID, and `namespace/name` when the pod was read. */
export type ReportedPod = { podUID?: string; pod?: string };

interface KeptView extends ReportedPod {
  id: string;
  reason: KeptEntry['reason'];
  detail: string;
}

interface AppliedView {
  created: number;
  updated: number;
  deleted: number;
  failed: ({ op: 'create' | 'update' | 'delete'; id: string; object?: string; code: string; message: string } & ReportedPod)[];
  heldBack: KeptView[];
}

export interface PlanSummary {
  create: number;
  update: number;
  delete: number;
  kept: number;
  conflicts: number;
  renderFailures: number;
}

/** Everything `plan` and `reconcile --once` say, as `--output json` prints it; the table is drawn from it. */
export interface PlanReport {
  source?: SourceInfo;
  create: (EntryView & ReportedPod & { object: string })[];
  update: ({ entry: EntryView; object: string; changed: (keyof EntryView)[]; old: Partial<EntryView> } & ReportedPod)[];
  delete: (EntryView & ReportedPod & { reason: string })[];
  conflicts: { object: string; entry: EntryView; heldBy: string[] }[];
  renderFailures: { object: string; pod?: string; message: string }[];
  federationOmissions: { object: string; spiffeID: string; missing: string[] }[];
  /** Namespaces that pods name but the snapshot does not hold: their pods' entries are kept. */
  unknownNamespaces: { namespace: string; pods: number }[];
  kept: KeptView[];
  status: StatusReport & { clusterFederatedTrustDomains?: Record<string, unknown> };
  /** Why a plan may hold less than expected: objects of another class, entries outside entryScope, nothing declared. */
  notes: string[];
  summary: PlanSummary;
  /** What a migration from spire-controller-manager has to deal with (entries it left), with the messages. */
  migration?: NonNullable<EntryPassResult['migration']> & { messages: string[] };
  /** reconcile --once only. */
  applied?: AppliedView;
  federation?: object;
}

interface ReportContext {
  source?: SourceInfo;
  /** Pod UID to `namespace/name`, for the pods read. */
  podNames: ReadonlyMap<string, string>;
  notes: readonly string[];
  /** The configured prefix, for the migration messages. */
  entryIDPrefix?: string;
}

/** The migration notes with their messages; undefined when there is nothing to say. */
function migrationReport(result: EntryPassResult, entryIDPrefix: string): PlanReport['migration'] {
  const notes = result.migration;
  if (!notes || (!notes.serverGenerated && !notes.legacy)) return undefined;
  return { ...notes, messages: describeMigration(notes, entryIDPrefix).map((m) => m.message) };
}

function podRef(uid: string | undefined, names: ReadonlyMap<string, string>): ReportedPod {
  if (uid === undefined) return {};
  const name = names.get(uid);
  return name ? { podUID: uid, pod: name } : { podUID: uid };
}

function keptView(k: KeptEntry, names: ReadonlyMap<string, string>): KeptView {
  return { id: k.id, reason: k.reason, detail: k.detail, ...podRef(k.podUid, names) };
}

function summarise(result: Pick<EntryPassResult, 'plan' | 'declared'>): PlanSummary {
  const { plan, declared } = result;
  return {
    create: plan.creates.length,
    update: plan.updates.length,
    delete: plan.deletes.length,
    kept: plan.kept.length,
    conflicts: plan.conflicts.length,
    renderFailures: declared.renderFailures.length,
  };
}

/** The plan (and what was applied) as one JSON object: the documented `--output json` shape. */
export function planReport(result: EntryPassResult, ctx: ReportContext): PlanReport {
  const { plan, declared, status, applied } = result;
  const names = ctx.podNames;
  const migration = migrationReport(result, ctx.entryIDPrefix ?? '');
  return {
    source: ctx.source || undefined,
    create: plan.creates.map((c) => ({ ...entryView(c.id, c.spec), object: objectName(c.owner), ...podRef(c.podUid, names) })),
    update: plan.updates.map((u) => ({
      entry: entryView(u.id, u.spec),
      object: objectName(u.owner),
      ...podRef(u.podUid, names),
      changed: u.changed.map((f) => FIELD_NAMES[f]),
      old: changedValues(u.current, u.spec, u.changed).old,
    })),
    delete: plan.deletes.map((d) => ({ ...entryView(d.id, d.current), reason: d.reason, ...podRef(d.podUid, names) })),
    conflicts: plan.conflicts.map((c) => ({ object: objectName(c.owner), entry: entryView('', c.spec), heldBy: c.foreignIds })),
    renderFailures: declared.renderFailures.map((f) => ({ object: objectName(f.owner), pod: f.pod || undefined, message: f.message })),
    federationOmissions: declared.federationOmissions.map((o) => ({ object: objectName(o.owner), spiffeID: o.spiffeId, missing: o.missing })),
    unknownNamespaces: [...declared.unknownNamespaces].map(([namespace, pods]) => ({ namespace, pods })),
    kept: plan.kept.map((k) => keptView(k, names)),
    migration,
    status,
    notes: [...ctx.notes],
    summary: summarise(result),
    // JSON.stringify and yaml's stringify drop an undefined key.
    applied: applied
      ? {
            created: applied.created,
            updated: applied.updated,
            deleted: applied.deleted,
            failed: applied.failures.map((f) => ({
              op: f.op,
              id: f.id,
              object: f.owner ? objectName(f.owner) : undefined,
              ...podRef(plan.deletes.find((d) => d.id === f.id)?.podUid, names),
              code: f.codeName,
              message: f.message,
            })),
            heldBack: applied.heldBack.map((k) => keptView(k, names)),
        }
      : undefined,
  };
}

/** JSON or YAML for machines. */
export function machineOutput(value: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? JSON.stringify(value, null, 2) : stringify(value, { lineWidth: 0 }).trimEnd();
}

type OutputFormat = 'table' | 'json' | 'yaml';

export function outputFormat(flag: string | undefined): OutputFormat {
  const output = flag ?? 'table';
  if (output !== 'table' && output !== 'json' && output !== 'yaml') throw new Error(`--output must be table, json or yaml, got "${output}"`);
  return output;
}

/**
 * Long lines folded at spaces to fit a terminal `width` columns wide; a
 * folded part is indented 4 more than its line, so it reads as a
 * continuation. A word longer than the width is cut.
 */
export function wrapLines(text: string, width: number): string {
  if (width < 20) return text;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (line.length <= width) {
      out.push(line);
      continue;
    }
    const indent = `${/^ */.exec(line)![0]}    `;
    let rest = line;
    let first = true;
    while (rest.length > 0) {
      const room = first ? width : width - indent.length;
      if (rest.length <= room) {
        out.push(first ? rest : indent + rest);
        break;
      }
      let cut = rest.lastIndexOf(' ', room);
      if (cut <= (first ? indent.length : 0)) cut = room;
      out.push((first ? '' : indent) + rest.slice(0, cut).trimEnd());
      rest = rest.slice(cut).trimStart();
      first = false;
    }
  }
  return out.join('\n');
}
