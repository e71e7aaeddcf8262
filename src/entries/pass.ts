import { performance } from 'node:perf_hooks';
import type { Pod } from '../api/index.js';
import type { SpireClient } from '../spire/index.js';
import { type ApplyResult, applyPlan, type WriteProgress } from './apply.js';
import type { OptionalField } from './compare.js';
import { type ClusterSnapshot, declareEntriesInSteps, type DeclaredState, declarePods, type PodDeclaration, type PodLookup, type SelectionSettings } from './declare.js';
import type { CurrentState } from './current-state.js';
import { type CurrentEntry, type DeclaredEntry, fromSpire, fromSpireWithCreation } from './model.js';
import type { Ownership, Policy } from './ownership.js';
import type { ClaimedIds } from './claims.js';
import { createsOnly, type Plan, planEntries, planEntriesInSteps, type PlanInput } from './plan.js';
import { finish, runSteps, type Steps } from './time-slices.js';
import { computeStatus, computeStatusInSteps, type StatusReport } from './status.js';
import { type MigrationNotes, migrationNotes } from './migration.js';

export type PassPhase = 'list' | 'render' | 'plan' | 'apply';

export interface EntryPassOptions {
  settings: SelectionSettings;
  ownership: Ownership;
  policy: Policy;
  unsupportedFields?: ReadonlySet<OptionalField>;
  /** Set when part of the snapshot could not be read: nothing is deleted this pass. */
  suppressDeletes?: string;
  /** Told how long each step took, e.g. for metrics. */
  onPhase?: (phase: PassPhase, seconds: number) => void;
  /** `skip` (default): federatesWith trust domains without a bundle are left out until one appears. */
  federatesWithMissingBundle?: 'skip' | 'fail';
  /** The federated bundles the federation pass just found or set (FederationPassResult.bundles): not listed again. */
  federatedBundles?: ReadonlySet<string>;
  /** Entries known to be ours whose IDs do not say so, kept across passes by the caller (see ClaimedIds). */
  claims?: ClaimedIds;
  /** Also work out what a migration has to deal with (MigrationNotes): for `plan` and the first pass of a run. */
  explainMigration?: boolean;
  /** Told after each write batch how many of the pass's writes are done, of how many (progress). */
  onWritten?: WriteProgress;
}

/** The ownership a pass plans with: the configured one and what the caller has claimed so far. */
function ownershipOf(opts: Pick<EntryPassOptions, 'ownership' | 'claims'>): Ownership {
  return opts.claims ? { ...opts.ownership, claimed: opts.claims.ids } : opts.ownership;
}

/**
 * SPIRE refuses an entry whose federatesWith names a trust domain it holds
 * no bundle for, so one missing partner bundle would cost every workload
 * that federates with it its identity (spire#7146). Fewer federated trust
 * domains only narrow what a workload trusts, so the entry is sent without
 * them, recorded, and completed by the pass after the bundle appears.
 */
function omitMissingFederation(declared: DeclaredEntry[], bundles: ReadonlySet<string>): DeclaredState['federationOmissions'] {
  const omissions: DeclaredState['federationOmissions'] = [];
  for (const d of declared) {
    // Most entries federate with nothing: no array is built for them.
    if (d.spec.federatesWith.length === 0) continue;
    const missing = d.spec.federatesWith.filter((td) => !bundles.has(td));
    if (missing.length === 0) continue;
    d.spec = { ...d.spec, federatesWith: d.spec.federatesWith.filter((td) => bundles.has(td)) };
    omissions.push({ owner: d.owner, spiffeId: d.spec.spiffeId, missing });
  }
  return omissions;
}

async function federatedBundles(spire: SpireClient, trustDomain: string, known?: ReadonlySet<string>): Promise<Set<string>> {
  return new Set([trustDomain, ...(known ?? (await spire.listFederatedBundles()).map((b) => b.trust_domain))]);
}

export interface EntryPassResult {
  declared: DeclaredState;
  plan: Plan;
  /** Absent for a dry run. */
  applied?: ApplyResult;
  status: StatusReport;
  /**
   * Set when this pass left nothing to do: hand it to the next pass as
   * `last`, and if nothing has changed by then, that pass is this one again.
   */
  memo?: PassMemo;
  /** True when the pass was a previous one again (see PassMemo): nothing was rendered or planned. */
  reused?: boolean;
  /** With `explainMigration`. */
  migration?: MigrationNotes;
  /** SPIRE's entries the plan was made against (dry runs only: explain reads them). */
  current?: readonly CurrentEntry[];
}

/**
 * A pass that found nothing to do, and everything its result depends on.
 * The result keeps what reporting reads, without the per-entry declaration
 * (`declared.entries`) and key table (`plan.keys`). The inputs are the
 * snapshot (as the caller's version of it), SPIRE's entries (as the
 * in-memory state's version), the federated bundles and the fields SPIRE
 * does not store. The same inputs give the same declaration and the same
 * empty plan, so an idle resync costs the list of entries and no more.
 */
export interface PassMemo {
  inputs: string;
  result: EntryPassResult;
}

const NOTHING_APPLIED = (): ApplyResult => ({ created: 0, updated: 0, deleted: 0, failures: [], failedKeys: new Set(), heldBack: [], assigned: new Map() });

/** Declared state, plan and the status they imply from a snapshot and the current entries: no I/O. */
export function planPass(
  snapshot: ClusterSnapshot,
  current: readonly CurrentEntry[],
  opts: EntryPassOptions,
  bundles?: ReadonlySet<string>,
): Omit<EntryPassResult, 'applied'> {
  const { declared, plan, migration } = declareAndPlan(snapshot, current, opts, bundles);
  return { declared, plan, status: computeStatus(declared, plan), current, migration };
}

/**
 * What planEntries is given, built once for the full pass and the pod pass:
 * the declaration with what it could not compute (unknown pods, and for a
 * full pass the whole-kind keeps), the current entries, and the options'
 * ownership, policy, unsupported fields and suppressed deletes.
 */
function planInput(
  declared: Pick<DeclaredState, 'entries' | 'unknownPods'> & Partial<Pick<DeclaredState, 'keepAllPodEntries' | 'keepNonPodEntries'>>,
  current: readonly CurrentEntry[],
  opts: EntryPassOptions,
): PlanInput {
  return {
    declared: declared.entries,
    current,
    ownership: ownershipOf(opts),
    policy: opts.policy,
    unknownPods: declared.unknownPods,
    unsupportedFields: opts.unsupportedFields,
    keepAllPodEntries: declared.keepAllPodEntries,
    keepNonPodEntries: declared.keepNonPodEntries,
    suppressDeletes: opts.suppressDeletes,
  };
}

// Status is left to the caller: after an apply it depends on what was written.
function declareAndPlan(
  snapshot: ClusterSnapshot,
  current: readonly CurrentEntry[],
  opts: EntryPassOptions,
  bundles: ReadonlySet<string> | undefined,
): Pick<EntryPassResult, 'declared' | 'plan' | 'migration'> {
  return finish(declareAndPlanInSteps(snapshot, current, opts, bundles));
}

/** declareAndPlan as Steps (entries/time-slices.ts); the phases are timed from start to end, the turns of the event loop between slices included. */
function* declareAndPlanInSteps(
  snapshot: ClusterSnapshot,
  current: readonly CurrentEntry[],
  opts: EntryPassOptions,
  bundles: ReadonlySet<string> | undefined,
): Steps<Pick<EntryPassResult, 'declared' | 'plan' | 'migration'>> {
  let started = performance.now();
  const declared = yield* declareEntriesInSteps(snapshot, opts.settings);
  if (bundles && opts.federatesWithMissingBundle !== 'fail') declared.federationOmissions.push(...omitMissingFederation(declared.entries, bundles));
  opts.onPhase?.('render', (performance.now() - started) / 1000);
  yield;
  started = performance.now();
  const input = planInput(declared, current, opts);
  const plan = yield* planEntriesInSteps(input);
  opts.onPhase?.('plan', (performance.now() - started) / 1000);
  return { declared, plan, migration: opts.explainMigration ? migrationNotes(input, plan) : undefined };
}

/**
 * What a full entry pass takes: the engine's options, and the run's state,
 * memo and hooks, and dry runs.
 */
export interface FullPassOptions extends EntryPassOptions {
  dryRun?: boolean;
  signal?: AbortSignal;
  state?: CurrentState;
  /** Names the snapshot's content: equal versions must mean equal snapshots. Needed (with `state`) for `last` to be used. */
  snapshotVersion?: string;
  /** The memo of an earlier pass, reused if nothing it depends on has changed. */
  last?: PassMemo;
  /**
   * Given the plan before it is applied; what it returns is applied instead
   * (live mode takes out what pod passes wrote while it planned, and lets them
   * go on for other pods meanwhile).
   */
  beforeApply?: (plan: Plan) => Plan;
  /**
   * Render, plan and compute the status in stretches of about this many
   * milliseconds, the event loop turning between them (live mode: pod passes
   * and watch events go on meanwhile). Without it, each runs in one
   * synchronous step.
   */
  sliceMs?: number;
  /**
   * The caller has just brought `state` up to date (live mode lists before
   * it snapshots the cluster): list again only if it has become uncertain,
   * not because it has aged in between.
   */
  listedByCaller?: boolean;
}

/**
 * One full entry reconcile: list SPIRE's entries, plan against the snapshot,
 * and (unless `dryRun`) apply. A failed list throws: with no current state
 * nothing can be planned safely.
 */
export async function runEntryPass(snapshot: ClusterSnapshot, spire: SpireClient, opts: FullPassOptions): Promise<EntryPassResult> {
  let started = performance.now();
  // With a state kept in memory, the list is only needed when it is stale or uncertain.
  let current: readonly CurrentEntry[];
  const stale = opts.state && (opts.listedByCaller ? !opts.state.isCertain() : opts.state.needsList());
  if (opts.state && !stale) current = opts.state.values();
  else if (opts.state) current = await opts.state.replaceFromPages(spire.entryPages());
  // A dry run keeps when each entry was created: explain shows it.
  else current = (await spire.listEntries()).map(opts.dryRun ? fromSpireWithCreation : fromSpire);
  // The version of the entries planned against, read with them: pod passes may write while this pass plans.
  const stateVersion = opts.state?.version;
  const bundles = opts.federatesWithMissingBundle === 'fail' ? undefined : await federatedBundles(spire, opts.settings.trustDomain, opts.federatedBundles);
  opts.onPhase?.('list', (performance.now() - started) / 1000);
  if (opts.dryRun) return planPass(snapshot, current, opts, bundles);
  const inputs =
    opts.state && opts.snapshotVersion !== undefined
      ? [
          opts.snapshotVersion,
          stateVersion,
          [...(bundles ?? [])].sort().join(','),
          [...(opts.unsupportedFields ?? [])].sort().join(','),
          opts.suppressDeletes ?? '',
          opts.ownership.serverAssignsIds ? 'server-assigns-ids' : '',
        ].join('\u0000')
      : undefined;
  if (inputs !== undefined && opts.last?.inputs === inputs) return { ...opts.last.result, applied: NOTHING_APPLIED(), reused: true, memo: opts.last };
  const steps = declareAndPlanInSteps(snapshot, current, opts, bundles);
  const decided = await runSteps(steps, opts.sliceMs);
  const planned = opts.beforeApply ? { ...decided, plan: opts.beforeApply(decided.plan) } : decided;
  started = performance.now();
  const send = () => applyPlan(planned.plan, spire, opts.signal, opts.onWritten);
  const applied = await (opts.state ? opts.state.whileSending(send) : send());
  opts.state?.record(planned.plan, applied);
  opts.claims?.record(planned.plan, applied);
  opts.onPhase?.('apply', (performance.now() - started) / 1000);
  const result: EntryPassResult = { ...planned, applied, status: await runSteps(computeStatusInSteps(planned.declared, planned.plan, applied), opts.sliceMs) };
  // From the plan as decided: one that beforeApply cut down to nothing still had work to do.
  const { creates, updates, deletes } = decided.plan;
  if (inputs !== undefined && creates.length + updates.length + deletes.length === 0 && applied.failures.length === 0) {
    // What reporting reads (status, failures, conflicts, omissions), not the per-entry declaration and key table, which grow with the pods.
    result.memo = { inputs, result: { ...result, declared: { ...planned.declared, entries: [] }, plan: { ...planned.plan, keys: new Map() } } };
  }
  return result;
}

export interface PodPassInput {
  /** Pods that changed and still exist. */
  pods: readonly Pod[];
  /** UIDs of pods that were deleted. */
  goneUids: readonly string[];
  lookup: PodLookup;
}

/**
 * How a create-only pod pass plans: against the state's entries for the
 * pods, or against none when the state cannot be read for them yet (the
 * probe has not said whether SPIRE keeps requested entry IDs, so which
 * entries are ours is unknown). Against none, every declared entry is sent,
 * and SPIRE answers ALREADY_EXISTS for those it holds.
 */
export type CreateOnly = 'against-state' | 'against-nothing';

/** What a pod pass takes: the engine's options, and SPIRE's entries as this process holds them. */
export interface PodPassOptions extends EntryPassOptions {
  /** SPIRE's entries as this process holds them: the pods' current entries are read from it, and the writes recorded in it. */
  state: CurrentState;
  signal?: AbortSignal;
  createOnly?: CreateOnly;
}

export interface PodPassResult {
  plan: Plan;
  applied: ApplyResult;
  declared: PodDeclaration;
  /** Create-only: entries SPIRE already held (ALREADY_EXISTS), neither written nor failed. */
  alreadyRegistered: number;
  /** Their keys: SPIRE holds an entry under each, though the state does not record it (the registration clock reads them). */
  alreadyRegisteredKeys: ReadonlySet<string>;
}

/**
 * Takes out of a create-only pass's plan and result the creates SPIRE
 * answered ALREADY_EXISTS with a similar entry (ApplyFailure.similarTo): it
 * holds one with the same SPIFFE ID, parent and selectors, and wrote
 * nothing. That is what such a pass expects of an entry already registered
 * (it may plan against no entries at all): not a failure, and nothing to
 * record, since the answer names the entry held without saying whether it
 * is ours or what it holds. A state being listed or due for a list finds it
 * there; a certain state holds every entry we wrote, and this one we did
 * not, so it stays certain.
 */
function withoutAlreadyRegistered(plan: Plan, applied: ApplyResult): Pick<PodPassResult, 'plan' | 'applied' | 'alreadyRegistered' | 'alreadyRegisteredKeys'> {
  const similar = applied.failures.filter((f) => f.similarTo !== undefined);
  if (similar.length === 0) return { plan, applied, alreadyRegistered: 0, alreadyRegisteredKeys: NO_KEYS };
  const held = new Set(similar.map((f) => f.id));
  const failures = applied.failures.filter((f) => !(f.op === 'create' && held.has(f.id)));
  return {
    plan: { ...plan, creates: plan.creates.filter((c) => !held.has(c.id)) },
    applied: { ...applied, failures, failedKeys: new Set(failures.filter((f) => f.op !== 'delete').map((f) => f.key)) },
    alreadyRegistered: held.size,
    alreadyRegisteredKeys: new Set(similar.map((f) => f.key)),
  };
}

const NO_KEYS: ReadonlySet<string> = new Set();

/**
 * A pass for pod events only: declares the changed pods' entries, plans them
 * against their current entries from the in-memory state (and any entry
 * holding one of their keys), and applies. The same rules as a full pass,
 * reached through the same planEntries and applyPlan; the work is in
 * proportion to the pods changed, not to the cluster. Statistics are left to
 * the next full pass, which also corrects anything this one could not know.
 *
 * With `createOnly`, it sends the plan's creates only (createsOnly): for when
 * a full pass may be deciding these pods' entries from a list this pass has
 * not seen (live mode, before a term's first snapshot or while the state is
 * uncertain). Such a pass cannot change, delete or duplicate an entry; the
 * full pass does the rest.
 */
export async function runPodPass(input: PodPassInput, spire: SpireClient, opts: PodPassOptions): Promise<PodPassResult> {
  let started = performance.now();
  const declared = declarePods(input.pods, input.lookup, opts.settings);
  if (opts.federatesWithMissingBundle !== 'fail' && declared.entries.some((d) => d.spec.federatesWith.length > 0)) {
    omitMissingFederation(declared.entries, await federatedBundles(spire, opts.settings.trustDomain));
  }
  opts.onPhase?.('render', (performance.now() - started) / 1000);
  started = performance.now();
  const uids = [...input.pods.map((p) => p.metadata.uid), ...input.goneUids];
  const current =
    opts.createOnly === 'against-nothing'
      ? []
      : opts.state.related(
          uids,
          declared.entries.map((d) => d.key),
        );
  const planned = planEntries(planInput(declared, current, opts));
  const sent = opts.createOnly ? createsOnly(planned) : planned;
  opts.onPhase?.('plan', (performance.now() - started) / 1000);
  started = performance.now();
  const result = await opts.state.whileSending(() => applyPlan(sent, spire, opts.signal, opts.onWritten));
  const { plan, applied, alreadyRegistered, alreadyRegisteredKeys } = opts.createOnly
    ? withoutAlreadyRegistered(sent, result)
    : { plan: sent, applied: result, alreadyRegistered: 0, alreadyRegisteredKeys: NO_KEYS };
  opts.state.record(plan, applied);
  opts.claims?.record(plan, applied);
  opts.onPhase?.('apply', (performance.now() - started) / 1000);
  return { plan, applied, declared, alreadyRegistered, alreadyRegisteredKeys };
}
