import type { ClusterSPIFFEIDStats, ClusterStaticEntryStatus } from '../api/index.js';
import type { ApplyResult } from './apply.js';
import type { DeclaredState } from './declare.js';
import type { Plan } from './plan.js';
import { finish, sliceCounter, type Steps } from './time-slices.js';

export interface StatusReport {
  /** By object name. */
  clusterSPIFFEIDs: Record<string, ClusterSPIFFEIDStats>;
  clusterStaticEntries: Record<string, ClusterStaticEntryStatus>;
}

/**
 * Per-object status for one pass. Without an apply result (a plan) it says
 * what the status will be if the plan succeeds. A static entry is `set`
 * whenever its entry is on the server, not only in the pass that created it.
 */
export function computeStatus(declared: DeclaredState, plan: Plan, applied?: ApplyResult): StatusReport {
  return finish(computeStatusInSteps(declared, plan, applied));
}

/** computeStatus as Steps: the same report, yielding between keys of the plan (entries/time-slices.ts). */
export function* computeStatusInSteps(declared: DeclaredState, plan: Plan, applied?: ApplyResult): Steps<StatusReport> {
  const due = sliceCounter();
  const spiffe = new Map<string, ClusterSPIFFEIDStats>();
  for (const [uid, sel] of declared.selection) {
    spiffe.set(uid, { ...sel, entriesMasked: 0, entriesToSet: 0, entryFailures: 0, entriesWithoutFederation: 0 });
  }
  const statics = new Map<string, ClusterStaticEntryStatus>();
  for (const [uid, rendered] of declared.staticRendered) statics.set(uid, { rendered, masked: false, set: false });

  const conflictKeys = new Set(plan.conflicts.map((c) => c.key));
  for (const state of plan.keys.values()) {
    const w = state.winner.owner;
    const ok = !conflictKeys.has(state.key) && !applied?.failedKeys.has(state.key);
    const s = spiffe.get(w.uid);
    if (s) s.entriesToSet++;
    const st = statics.get(w.uid);
    if (st && ok) st.set = true;
    for (const m of state.masked) {
      const ms = spiffe.get(m.owner.uid);
      if (ms) ms.entriesMasked++;
      const mst = statics.get(m.owner.uid);
      if (mst) mst.masked = true;
    }
    if (due()) yield;
  }
  const countFailure = (uid: string) => {
    const s = spiffe.get(uid);
    if (s) s.entryFailures++;
  };
  for (const c of plan.conflicts) countFailure(c.owner.uid);
  for (const o of declared.federationOmissions) {
    const s = spiffe.get(o.owner.uid);
    if (s) s.entriesWithoutFederation++;
  }
  for (const f of applied?.failures ?? []) if (f.owner) countFailure(f.owner.uid);

  const name = (uid: string) => declared.owners.get(uid)?.name ?? uid;
  const report: StatusReport = { clusterSPIFFEIDs: {}, clusterStaticEntries: {} };
  for (const [uid, stats] of spiffe) report.clusterSPIFFEIDs[name(uid)] = stats;
  for (const [uid, status] of statics) report.clusterStaticEntries[name(uid)] = status;
  return report;
}
