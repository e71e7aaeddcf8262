import type { Logger } from 'pino';
import { type ClusterFederatedTrustDomain, type ClusterSnapshot, type ControllerConfig, federationOn } from '../api/index.js';
import { type EntryPassOptions, type EntryPassResult, type FullPassOptions, logMigration, type PassMemo, runEntryPass, SpireServerProbe } from '../entries/index.js';
import { federationOptions, type FederationPassResult, runFederationPass } from '../federation/index.js';
import type { SpireClient } from '../spire/index.js';

/** The objects of a pass; equal versions must mean equal objects (PassMemo). */
export interface Snapshot {
  objects: ClusterSnapshot;
  version?: string;
  /** Set when part of the objects could not be read: nothing is deleted this pass. */
  suppressDeletes?: string;
}

export interface ReconcileRequest {
  /** The ClusterFederatedTrustDomains of this pass. */
  federation: readonly ClusterFederatedTrustDomain[];
  /**
   * Their CRD is not installed: which exist is unknown, not none, so no
   * federation pass runs (it would delete the relationships they set). The
   * entry pass lists the federated bundles itself.
   */
  federationUnknown?: boolean;
  /**
   * The objects entries are declared from, asked for when the entries' turn
   * comes (live mode lists SPIRE first), with the
   * reconcile.* switches applied (switchedSnapshot), and a version that
   * names its content when the caller keeps a memo. Undefined: no entry pass
   * this time.
   */
  snapshot: () => Snapshot | undefined | Promise<Snapshot | undefined>;
  /** Ask the SPIRE server which entry fields it drops (writes a probe entry: not for a dry run). Default true. */
  probe?: boolean;
  /** Plan only: nothing is written. */
  dryRun?: boolean;
  /** The leadership term: once aborted, nothing more is written and the pass ends after federation. */
  signal?: AbortSignal;
  /** Told when the probe has answered (manifest mode says the files' problems then). */
  onProbed?: () => void;
  /** Told the federation pass's result at once (statuses, problems), before the entries. */
  onFederation?: (result: FederationPassResult) => void;
  /** The pass's logger (with its reconcileID); default the Reconciler's. */
  log?: Logger;
}

export interface ReconcileOutcome {
  federation?: FederationPassResult;
  /** Absent when the pass stopped before the entries (switches, term ended, snapshot refused). */
  entries?: EntryPassResult;
}

export interface ReconcilerOptions {
  config: ControllerConfig;
  spire: SpireClient;
  log: Logger;
  /**
   * The full pass's options, made once where the mode is wired: the engine's
   * (settings, ownership, policy, claims) and the mode's state and hooks.
   * Each pass adds what only it knows (Reconciler.passOptions).
   */
  options: FullPassOptions;
  /** Log the migration notes of the first pass (the long-running modes; `plan` prints them). */
  logMigration: boolean;
}

/**
 * One reconcile, the same in every mode (live, manifest, `plan` and
 * `reconcile --once`): probe which fields SPIRE stores, then federation
 * relationships, then entries with the federated bundles just found; the
 * caller reports. Holds what lasts from pass to pass: the probe, the
 * relationships this process set, whether the migration was explained.
 */
export class Reconciler {
  readonly probe = new SpireServerProbe();
  // Relationships this process set: under entryScope prefixed only these may be deleted (see federation/relationship-plan.ts).
  private readonly ourRelationships = new Set<string>();
  // The first pass also says what a migration has to deal with (entries of upstream or of our former prefix).
  private migrationExplained = false;
  // The last pass's, if it found nothing to do: the next is that pass again if nothing changed (PassMemo).
  private memo: PassMemo | undefined;
  constructor(private readonly o: ReconcilerOptions) {}

  /** Probes the SPIRE server (at most every 10 minutes): which fields it drops, whether it keeps requested IDs. */
  probeServer(log: Logger = this.o.log) {
    return this.probe.refresh(this.o.spire, this.o.config.trustDomain, this.o.options.ownership.entryIDPrefix, (m, err) => log.warn({ err }, m));
  }

  /** The ownership a pass plans with: on a server that ignores requested IDs, what the entries themselves show. */
  ownership(): EntryPassOptions['ownership'] {
    return this.probe.ignoresEntryIds ? { ...this.o.options.ownership, serverAssignsIds: true } : this.o.options.ownership;
  }

  async once(r: ReconcileRequest): Promise<ReconcileOutcome> {
    const { config, spire } = this.o;
    const log = r.log ?? this.o.log;
    const unsupported = r.probe === false ? undefined : await this.probeServer(log);
    r.onProbed?.();
    let federation: FederationPassResult | undefined;
    if (federationOn(config) && !r.federationUnknown) {
      federation = await runFederationPass(r.federation, spire, {
        ...federationOptions(config),
        ours: this.ourRelationships,
        dryRun: r.dryRun,
        signal: r.signal,
      });
      if (r.signal?.aborted) return { federation };
      r.onFederation?.(federation);
    }
    const snapshot = await r.snapshot();
    if (!snapshot) return { federation };
    const entries = await runEntryPass(snapshot.objects, spire, this.passOptions(r, snapshot, federation, unsupported));
    this.memo = entries.memo;
    if (entries.applied) this.probe.noticeAssignedIds(entries.applied, (m) => log.warn(m));
    if (!this.migrationExplained && this.o.logMigration) logMigration(log, entries.migration, this.o.options.ownership.entryIDPrefix);
    this.migrationExplained = true;
    return { federation, entries };
  }

  /** The mode's options, with what only this pass knows: its snapshot, what the probe and the federation pass found. */
  private passOptions(r: ReconcileRequest, snapshot: Snapshot, federation: FederationPassResult | undefined, unsupported: FullPassOptions['unsupportedFields']): FullPassOptions {
    return {
      ...this.o.options,
      ownership: this.ownership(),
      explainMigration: !this.migrationExplained,
      dryRun: r.dryRun,
      signal: r.signal,
      federatedBundles: federation?.bundles,
      unsupportedFields: unsupported,
      // A snapshot read in part says so itself (manifest files, each read); else the mode's setting stands (plan).
      suppressDeletes: snapshot.suppressDeletes ?? this.o.options.suppressDeletes,
      snapshotVersion: snapshot.version,
      last: this.memo,
    };
  }
}
