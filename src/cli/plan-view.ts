import { describeEntryConflict, describeFederationOmission, describeRenderFailure, describeUnknownNamespace } from '../entries/index.js';
import { describeInvalidTrustDomain, describeTrustDomainConflict, type FederationPassResult } from '../federation/index.js';
import { relationshipView, type RelationshipView } from './federation-report.js';
import type { EntryView, PlanReport, PlanSummary, ReportedPod } from './report.js';
import { renderReport, type TableView } from './report-templates.js';

/** A problem line (the `problem` partial). */
interface ProblemView {
  object: string;
  message: string;
}

/** The pod an entry is for (the `pod` partial): null when unknown. */
interface PodLabelView {
  pod: string | null;
  podUID: string | null;
}

/** An entry left as it is, and why (the `kept` partial). */
interface KeptLine extends PodLabelView {
  id: string;
  detail: string;
}

/** A federation relationship (the `relationship` partial). */
interface RelationshipLine {
  trustDomain: string;
  bundleEndpointURL: string;
  /** The profile's type, or `no profile`. */
  profile: string;
  endpointSPIFFEID: string | null;
  bundle: { x509Authorities: number; jwtAuthorities: number; sequenceNumber: number } | null;
}

interface FederationView {
  create: (RelationshipLine & { object: string })[];
  update: { trustDomain: string; changed: string[]; object: string }[];
  delete: RelationshipLine[];
  /** Conflicts, then invalid objects. */
  problems: ProblemView[];
  kept: { trustDomain: string; detail: string }[];
  /** Writes that failed, by trust domain. */
  failed: ProblemView[];
}

/** What templates/plan.hbs renders. */
export interface PlanView {
  source: string;
  create: (EntryView & { object: string })[];
  update: { id: string; spiffeID: string; object: string; changes: { field: string; old: string; new: string }[] }[];
  delete: (EntryView & PodLabelView & { reason: string })[];
  clusterSPIFFEIDStatus: TableView | null;
  clusterStaticEntryStatus: TableView | null;
  conflicts: ProblemView[];
  renderFailures: ProblemView[];
  unknownNamespaces: string[];
  federationOmissions: ProblemView[];
  kept: KeptLine[];
  migration: { messages: string[]; leftAlone: { id: string; prefix: string }[] } | null;
  federation: FederationView | null;
  applied: {
    created: number;
    updated: number;
    deleted: number;
    failed: (PodLabelView & { op: string; id: string; object: string | null; code: string; message: string })[];
    heldBack: KeptLine[];
  } | null;
  notes: string[];
  summary: PlanSummary;
}

const podLabel = (p: ReportedPod): PodLabelView => ({ pod: p.pod ?? null, podUID: p.podUID ?? null });

const keptLine = (k: { id: string; detail: string } & ReportedPod): KeptLine => ({ id: k.id, detail: k.detail, ...podLabel(k) });

/** A field's value in an update line: a list joined with commas (`[]` when empty), anything else as it prints. */
function shown(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? '[]' : v.join(', ');
  return String(v);
}

function entryOnly(e: EntryView): EntryView {
  return {
    id: e.id,
    spiffeID: e.spiffeID,
    parentID: e.parentID,
    selectors: e.selectors,
    dnsNames: e.dnsNames,
    federatesWith: e.federatesWith,
    x509SVIDTTL: e.x509SVIDTTL,
    jwtSVIDTTL: e.jwtSVIDTTL,
    admin: e.admin,
    downstream: e.downstream,
    hint: e.hint,
    storeSVID: e.storeSVID,
  };
}

function statusTables(status: PlanReport['status']): Pick<PlanView, 'clusterSPIFFEIDStatus' | 'clusterStaticEntryStatus'> {
  const csids = Object.entries(status.clusterSPIFFEIDs);
  const statics = Object.entries(status.clusterStaticEntries);
  return {
    clusterSPIFFEIDStatus:
      csids.length === 0
        ? null
        : {
            header: ['NAME', 'NS SELECTED', 'NS IGNORED', 'PODS', 'RENDER FAILURES', 'TO SET', 'MASKED', 'ENTRY FAILURES'],
            rows: csids.map(([name, s]) => [name, s.namespacesSelected, s.namespacesIgnored, s.podsSelected, s.podEntryRenderFailures, s.entriesToSet, s.entriesMasked, s.entryFailures].map(String)),
          },
    clusterStaticEntryStatus: statics.length === 0 ? null : { header: ['NAME', 'RENDERED', 'MASKED', 'SET'], rows: statics.map(([name, s]) => [name, String(s.rendered), String(s.masked), String(s.set)]) },
  };
}

function relationshipLine(r: RelationshipView): RelationshipLine {
  const profile = r.bundleEndpointProfile;
  return {
    trustDomain: r.trustDomain,
    bundleEndpointURL: r.bundleEndpointURL,
    profile: profile?.type ?? 'no profile',
    endpointSPIFFEID: profile?.endpointSPIFFEID || null,
    bundle: r.trustDomainBundle ?? null,
  };
}

const trustDomainObject = (name: string) => `ClusterFederatedTrustDomain/${name}`;

function federationView(f: FederationPassResult): FederationView {
  const p = f.plan;
  return {
    create: p.creates.map((c) => ({ ...relationshipLine(relationshipView(c)), object: trustDomainObject(c.owner.name) })),
    update: p.updates.map((u) => ({ trustDomain: u.relationship.trustDomain, changed: [...u.changed], object: trustDomainObject(u.relationship.owner.name) })),
    delete: p.deletes.map((d) => relationshipLine(relationshipView(d))),
    problems: [
      ...p.conflicts.map((c) => ({ object: trustDomainObject(c.owner.name), message: describeTrustDomainConflict(c) })),
      ...p.invalid.map((i) => ({ object: trustDomainObject(i.owner.name), message: describeInvalidTrustDomain(i) })),
    ],
    kept: p.kept.map((k) => ({ trustDomain: k.trustDomain, detail: k.detail })),
    failed: [...(f.applied?.failed ?? [])].map(([td, error]) => ({ object: td, message: error })),
  };
}

/** What the table output of plan and reconcile --once shows, from the JSON report (and the federation pass, when there was one). */
export function planView(report: PlanReport, federation: FederationPassResult | undefined, source: string): PlanView {
  const a = report.applied;
  return {
    source,
    create: report.create.map((c) => ({ ...entryOnly(c), object: c.object })),
    update: report.update.map((u) => ({
      id: u.entry.id,
      spiffeID: u.entry.spiffeID,
      object: u.object,
      changes: u.changed.map((field) => ({ field, old: shown(u.old[field]), new: shown(u.entry[field]) })),
    })),
    delete: report.delete.map((d) => ({ ...entryOnly(d), reason: d.reason, ...podLabel(d) })),
    ...statusTables(report.status),
    conflicts: report.conflicts.map((c) => ({ object: c.object, message: describeEntryConflict({ spec: { spiffeId: c.entry.spiffeID }, foreignIds: c.heldBy }) })),
    renderFailures: report.renderFailures.map((f) => ({ object: f.object, message: describeRenderFailure(f) })),
    unknownNamespaces: report.unknownNamespaces.map((u) => describeUnknownNamespace(u.namespace, u.pods)),
    federationOmissions: report.federationOmissions.map((o) => ({ object: o.object, message: describeFederationOmission({ spiffeId: o.spiffeID, missing: o.missing }) })),
    kept: report.kept.map(keptLine),
    migration: report.migration
      ? { messages: [...report.migration.messages], leftAlone: (report.migration.legacy ?? []).flatMap((l) => l.leftAloneIds.map((id) => ({ id, prefix: l.prefix }))) }
      : null,
    federation: federation ? federationView(federation) : null,
    applied: a
      ? {
          created: a.created,
          updated: a.updated,
          deleted: a.deleted,
          failed: a.failed.map((f) => ({ op: f.op, id: f.id, object: f.object ?? null, code: f.code, message: f.message, ...podLabel(f) })),
          heldBack: a.heldBack.map(keptLine),
        }
      : null,
    notes: [...report.notes],
    summary: { ...report.summary },
  };
}

/** The table output of plan and reconcile --once (templates/plan.hbs). */
export function planText(report: PlanReport, federation: FederationPassResult | undefined, source: string): string {
  return renderReport('plan', planView(report, federation, source));
}
