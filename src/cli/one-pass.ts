import type { KubeConfig } from '../kube/connection.js';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import type { ControllerConfig, PodName } from '../api/index.js';
import {
  ClaimedIds,
  type EntryPassOptions,
  type EntryPassResult,
  isOurClass,
  planPass,
  emptyClusterDomainNote,
  type SelectionObserver,
} from '../entries/index.js';
import type { FederationPassResult } from '../federation/index.js';
import { Reconciler } from '../manager/reconcile.js';
import { checkSocketPath, spireClientFor, spireIdentityFor, waitForSpire } from '../manager/spire-client.js';
import { parseSocket } from '../spire/target.js';
import { SILENT_WAITS, type WaitReporter } from '../manager/wait-reports.js';
import { type ClusterDomain, clusterDomainNote, clusterDomainReaders, settleClusterDomain } from './cluster-domain.js';
import { addConfigOptions, addSpireTargetOptions, type ConfigFlags, describeClassRule, loadContext, passOptions } from './context.js';
import { CliError, Exit } from './exit.js';
import { errorMessage } from '../api/errors.js';
import { federationJson } from './federation-report.js';
import { asCliError, describeSource, type Inputs, readEntriesDump, readInputs, unreadDocumentsError } from './inputs.js';
import { loggerFor } from './logger.js';
import { logSettings } from './log-settings.js';
import { NO_PROGRESS, type Progress, terminalProgress } from './terminal-progress.js';
import { cliWaits } from './stderr-waits.js';
import { planText } from './plan-view.js';
import { machineOutput, outputFormat, planReport, type PlanReport, wrapLines } from './report.js';
import { commandDescription } from './command-help.js';

export interface OnceFlags extends ConfigFlags {
  manifests?: string[];
  entries?: string;
  output?: string;
  allowEmpty?: boolean;
}

export interface OnceOptions {
  apply: boolean;
  log?: Logger;
  print: (s: string) => void;
  /** The live cluster's configuration (tests); default: KUBECONFIG, ~/.kube/config or in-cluster. */
  kubeConfig?: () => KubeConfig;
  progress?: Progress;
  /** Where waits for SPIRE and the API server are said; 'stderr': the CLI's (cliWaits, in the config's log encoding). Default: nowhere. */
  waits?: WaitReporter | 'stderr';
  /** How an empty clusterDomain is detected (tests); default DNS, as run detects it. */
  detectClusterDomain?: () => Promise<string | undefined>;
}

/** What every one-pass command reads before it plans: the config, the engine's options and the cluster's objects. */
interface Prepared {
  config: ControllerConfig;
  log: Logger;
  options: EntryPassOptions;
  inputs: Inputs;
  waits: WaitReporter;
  /** The cluster domain rendered with, and where it came from. */
  clusterDomain: ClusterDomain;
}

export async function prepare(
  flags: ConfigFlags & { manifests?: string[] },
  opts: Pick<OnceOptions, 'log' | 'kubeConfig' | 'progress' | 'waits' | 'detectClusterDomain'> & { pod?: PodName },
): Promise<Prepared> {
  const { config, warnings } = loadContext(flags);
  const { settings } = logSettings(config, {});
  const log = opts.log ?? loggerFor(settings);
  const waits = opts.waits === 'stderr' ? cliWaits(settings.encoding, log) : (opts.waits ?? SILENT_WAITS);
  for (const w of warnings) log.warn(w);
  // Before the engine's options take it: the plan renders with the cluster domain run would.
  const clusterDomain = await settleClusterDomain(config, opts.detectClusterDomain);
  if (clusterDomain.from === 'detected') log.info(`cluster domain ${clusterDomain.value} (detected)`);
  const options = passOptions(config);
  const inputs = await readInputs(flags.manifests, config, {
    log,
    waits,
    kubeConfig: opts.kubeConfig,
    pod: opts.pod,
    progress: opts.progress,
  });
  return { config, log, options: { ...options, suppressDeletes: inputs.suppressDeletes }, inputs, waits, clusterDomain };
}

interface PassOutcome {
  result: EntryPassResult;
  federation?: FederationPassResult;
}

/**
 * One pass over prepared inputs: entries (and federation relationships)
 * planned against SPIRE's current state from --entries or the socket, and
 * applied with `apply`. `observe` sees the selection walk (explain).
 */
/** Why a one-pass command stops at once without a socket file, and what to do instead. */
function noSocketMessage(path: string, apply: boolean): string {
  const where = `no SPIRE server socket at ${path} (spireServerSocketPath, or --socket): check the path, and that the SPIRE server runs and shares it`;
  if (apply) return where;
  return `${where}; to plan without a SPIRE server, give --entries FILE (the JSON \`spire-server entry show -output json\` prints), or serve an in-memory one with \`spire-reconciler memory-spire --socket PATH\` and pass --socket PATH`;
}

export async function onePass(p: Prepared, flags: { entries?: string }, opts: { apply: boolean; observe?: SelectionObserver; progress?: Progress }): Promise<PassOutcome> {
  const { config, log, inputs } = p;
  const base: EntryPassOptions = { ...p.options, explainMigration: true };
  const options: EntryPassOptions = opts.observe ? { ...base, settings: { ...base.settings, observe: opts.observe } } : base;
  if (flags.entries) {
    if (opts.apply) throw new CliError('--entries is for plan only: reconcile applies to the SPIRE server');
    // The dump holds entries only, so relationships are not planned; bundles are unknown, so federatesWith is left as declared.
    return { result: planPass(inputs.snapshot, readEntriesDump(flags.entries), options) };
  }
  // A command run by hand with no socket file there has the wrong path far more often than a SPIRE server
  // still starting: say so now rather than after the wait. A file there that does not answer yet is waited
  // for, as is a TCP address (run waits for either: as a sidecar it may start before SPIRE).
  const socketPath = parseSocket(config.spireServerSocketPath).path;
  if (!config.spireServerAddress && checkSocketPath(socketPath) === 'absent') throw new CliError(noSocketMessage(socketPath, opts.apply));
  // Against a remote SPIRE server (spireServerAddress), with an SVID from the agent, for this pass alone.
  const identity = await spireIdentityFor(config, { log }).catch((err: unknown) => {
    throw new CliError(errorMessage(err));
  });
  const spire = spireClientFor(config, undefined, identity);
  try {
    await waitForSpire(spire, { timeoutMs: Math.min(config.spireRpcTimeoutMs, 30_000), waits: p.waits });
    // A fresh start, as a new process: no claims, no relationships set, the migration explained (in the report).
    const progress = opts.progress;
    const onWritten = progress ? (done: number, total: number) => progress.update(`writing entries: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`) : undefined;
    const reconciler = new Reconciler({ config, spire, log, options: { ...options, claims: new ClaimedIds(), onWritten }, logMigration: false });
    const { federation, entries: result } = await reconciler.once({
      federation: inputs.clusterFederatedTrustDomains,
      federationUnknown: inputs.federationUnknown,
      // The probe writes an entry, so only a reconcile asks which fields this SPIRE server drops (without it,
      // a server older than 1.6.3 would get the same hint update on every run) and whether it keeps requested IDs.
      probe: opts.apply,
      dryRun: !opts.apply,
      snapshot: () => ({ objects: inputs.snapshot }),
    });
    progress?.done();
    // Without a signal and with a snapshot, the entry pass always runs.
    if (!result) throw new Error('the entry pass did not run');
    return { result, federation };
  } catch (err) {
    throw asCliError(err);
  } finally {
    spire.close();
    identity?.close();
  }
}

/** Objects of another class, which the walk never reads: a likely reason for a plan that holds less than expected. */
function otherClassObjects(inputs: Inputs, config: ControllerConfig): string[] {
  const settings = { className: config.className, watchClassless: config.watchClassless };
  return [
    ...inputs.snapshot.clusterSPIFFEIDs.filter((o) => !isOurClass(o.spec?.className, settings)).map((o) => `ClusterSPIFFEID/${o.metadata.name}`),
    ...inputs.snapshot.clusterStaticEntries.filter((o) => !isOurClass(o.spec?.className, settings)).map((o) => `ClusterStaticEntry/${o.metadata.name}`),
  ];
}

/** True when no object this controller reads declares entries (none read, or all of another class, or their kinds turned off). */
function nothingDeclares(inputs: Inputs, config: ControllerConfig): boolean {
  const settings = { className: config.className, watchClassless: config.watchClassless };
  return [...inputs.snapshot.clusterSPIFFEIDs, ...inputs.snapshot.clusterStaticEntries].every((o) => !isOurClass(o.spec?.className, settings));
}

/** Why the plan may hold less than expected, in words (table "Notes", JSON `notes`). */
function planNotes(p: Prepared, result: EntryPassResult): { notes: string[]; empty: boolean } {
  const { config, inputs } = p;
  const notes: string[] = [];
  const other = otherClassObjects(inputs, config);
  if (other.length > 0) {
    notes.push(`${other.length} object${other.length === 1 ? '' : 's'} skipped by className (this controller reads ${describeClassRule(config)}): ${other.join(', ')}`);
  }
  if (result.plan.outsideScope > 0) {
    notes.push(`${result.plan.outsideScope} entr${result.plan.outsideScope === 1 ? 'y' : 'ies'} on the server outside entryScope ${config.entryScope} (IDs without the ${p.options.ownership.entryIDPrefix} prefix): never changed or deleted`);
  }
  const domain = clusterDomainNote(p.clusterDomain, clusterDomainReaders(inputs.snapshot.clusterSPIFFEIDs, config));
  if (domain) notes.push(domain);
  const dotted = emptyClusterDomainNote(result.declared.renderFailures, config.clusterDomain);
  if (dotted) notes.push(dotted);
  const empty = !p.options.suppressDeletes && nothingDeclares(inputs, config);
  if (empty) {
    const where = inputs.source.from === 'manifests' ? `the manifests (${inputs.source.location}, ${inputs.source.files} files)` : `the cluster at ${inputs.source.location}`;
    notes.push(
      `WARNING: nothing in ${where} declares an entry (no ClusterSPIFFEID or ClusterStaticEntry of this controller's class), so a sync deletes every entry this controller owns (${result.plan.deletes.length} here). If that is meant, pass --allow-empty.`,
    );
  }
  return { notes, empty };
}

/**
 * One pass from manifests or the live cluster: a plan (nothing written) or,
 * with `apply`, a reconcile. Returns the exit code. Current entries come
 * from --entries (plan only) or the SPIRE socket.
 */
export async function runOnce(flags: OnceFlags, opts: OnceOptions): Promise<{ code: number; result: EntryPassResult; federation?: FederationPassResult; report: PlanReport }> {
  const output = outputFormat(flags.output);
  const progress = opts.progress ?? NO_PROGRESS;
  const p = await prepare(flags, { ...opts, progress });
  const { config, log, inputs } = p;

  // With nothing declared, a sync deletes everything we own: look first, and apply only if asked to.
  const guard = !flags.allowEmpty && !p.options.suppressDeletes && nothingDeclares(inputs, config);
  let apply = opts.apply;
  let outcome = await onePass(p, flags, { apply: apply && !guard, progress });
  let refused = false;
  if (guard && outcome.result.plan.deletes.length > 0) {
    refused = true;
  } else if (guard && apply) {
    outcome = await onePass(p, flags, { apply: true, progress });
  }
  if (refused) apply = false;
  const { result, federation } = outcome;

  const { notes } = planNotes(p, result);
  const podNames = new Map(inputs.snapshot.pods.map((pod) => [pod.metadata.uid, `${pod.metadata.namespace ?? ''}/${pod.metadata.name}`]));
  const report = planReport(result, { source: inputs.source, podNames, notes, entryIDPrefix: p.options.ownership.entryIDPrefix });
  if (federation) {
    report.status.clusterFederatedTrustDomains = federation.status;
    report.federation = federationJson(federation);
  }

  if (output !== 'table') {
    opts.print(machineOutput(report, output));
  } else {
    opts.print(planText(report, federation, capitalise(describeSource(inputs.source))));
  }
  if (refused) {
    const what = `nothing declares an entry, so this plan deletes every entry this controller owns (${result.plan.deletes.length})`;
    log.error(opts.apply ? `not applied: ${what}; pass --allow-empty if that is meant` : `${what}; pass --allow-empty if that is meant`);
    return { code: Exit.cannotRun, result, federation, report };
  }
  // A plan is read to decide on a change: one that silently misses objects must not pass for complete.
  if (!opts.apply && inputs.unread.length > 0) {
    log.error(unreadDocumentsError(inputs.unread));
    return { code: Exit.cannotRun, result, federation, report };
  }
  const failed =
    (result.applied?.failures.length ?? 0) +
    result.plan.conflicts.length +
    result.declared.renderFailures.length +
    (federation ? federation.plan.conflicts.length + federation.plan.invalid.length + (federation.applied?.failed.size ?? 0) : 0) +
    inputs.skipped;
  return { code: apply && failed > 0 ? Exit.itemsFailed : Exit.ok, result, federation, report };
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Table output on a terminal is folded to its width; anything else goes out as it is. */
export function printer(output: string | undefined): (s: string) => void {
  const fold = (output ?? 'table') === 'table' && process.stdout.isTTY;
  return (s) => console.log(fold ? wrapLines(s, process.stdout.columns || 80) : s);
}

/** The options plan and reconcile share, and an action that runs one pass. */
function oncePass(cmd: Command, apply: boolean): Command {
  return addSpireTargetOptions(addConfigOptions(cmd))
    .option('--manifests <dir...>', 'manifest files or directories (default: staticManifestPath; without either, the cluster through KUBECONFIG)')
    .option('-o, --output <format>', 'table, json or yaml', 'table')
    .option('--allow-empty', 'go on when nothing declares an entry, though a sync then deletes every entry this controller owns')
    .action(async (flags: OnceFlags) => {
      const { code } = await runOnce(flags, { apply, print: printer(flags.output), progress: terminalProgress(), waits: 'stderr' });
      process.exitCode = code;
    });
}

export function registerPlan(program: Command): void {
  oncePass(program.command('plan'), false)
    .description(commandDescription('plan'))
    .option('--entries <file>', 'current entries from `spire-server entry show -output json` instead of the SPIRE socket');
  oncePass(program.command('reconcile'), true)
    .description(commandDescription('reconcile'))
    .requiredOption('--once', 'run a single pass and exit (the long-running controller is `run`)');
}
