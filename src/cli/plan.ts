import type { Command } from 'commander';
import type { Logger } from 'pino';
import { ClaimedIds, type EntryPassResult, planPass, runEntryPass, SpireServerProbe } from '../entries/index.js';
import { federationOptions, type FederationPassResult, runFederationPass } from '../federation/index.js';
import { formatProblem } from '../manifests/index.js';
import { federationJson, federationTable } from './federation-report.js';
import { addConfigOptions, type ConfigFlags, loadContext, passOptions } from './context.js';
import { CliError, Exit } from './exit.js';
import { spireClientFor } from '../manager/spire-client.js';
import { asCliError, isSkip, manifestPaths, manifestScopeWarnings, readEntriesDump, readManifests } from './inputs.js';
import { loggerFor } from './logger.js';
import { logSettings } from './logging.js';
import { applySummary, planJson, planTable } from './report.js';

export interface OnceFlags extends ConfigFlags {
  manifests?: string[];
  entries?: string;
  output?: string;
}

/**
 * One pass from manifests: a plan (nothing written) or, with `apply`, a
 * reconcile. Returns the exit code. Current entries come from --entries
 * (plan only) or the SPIRE socket.
 */
export async function runOnce(
  flags: OnceFlags,
  opts: { apply: boolean; log?: Logger; print: (s: string) => void },
): Promise<{ code: number; result: EntryPassResult; federation?: FederationPassResult }> {
  const output = flags.output ?? 'table';
  if (output !== 'table' && output !== 'json') throw new CliError(`--output must be table or json, got "${output}"`);
  const { config, warnings } = loadContext(flags);
  const log = opts.log ?? loggerFor(logSettings(config, {}).settings);
  for (const w of [...warnings, ...manifestScopeWarnings(config)]) log.warn(w);
  const options = passOptions(config);
  const manifests = await readManifests(manifestPaths(flags.manifests, config), config);
  for (const p of manifests.problems) log.warn(formatProblem(p));
  const passOpts = { ...options, explainMigration: true, ...(manifests.suppressDeletes ? { suppressDeletes: manifests.suppressDeletes } : {}) };

  let result: EntryPassResult;
  let federation: FederationPassResult | undefined;
  if (flags.entries) {
    if (opts.apply) throw new CliError('--entries is for plan only: reconcile applies to the SPIRE server');
    // The dump holds entries only, so relationships are not planned; bundles are unknown, so federatesWith is left as declared.
    result = planPass(manifests.snapshot, readEntriesDump(flags.entries), passOpts);
  } else {
    const spire = spireClientFor(config);
    try {
      await spire.waitUntilReady({ timeoutMs: Math.min(config.spireRpcTimeoutMs, 30_000) });
      if (config.reconcile.clusterFederatedTrustDomains) {
        federation = await runFederationPass(manifests.set.clusterFederatedTrustDomains, spire, {
          ...federationOptions(config),
          ours: new Set(),
          dryRun: !opts.apply,
        });
      }
      // The probe writes an entry, so only a reconcile asks which fields this SPIRE server drops (without it,
      // a server older than 1.6.3 would get the same hint update on every run) and whether it keeps requested IDs.
      const probe = new SpireServerProbe();
      const warn = (m: string) => log.warn(m);
      const unsupportedFields = opts.apply ? await probe.refresh(spire, config.trustDomain, options.ownership.entryIDPrefix, warn) : undefined;
      result = await runEntryPass(manifests.snapshot, spire, {
        ...passOpts,
        ...(probe.ignoresEntryIds ? { ownership: { ...options.ownership, serverAssignsIds: true } } : {}),
        claims: new ClaimedIds(),
        dryRun: !opts.apply,
        ...(federation ? { federatedBundles: federation.bundles } : {}),
        ...(unsupportedFields ? { unsupportedFields } : {}),
      });
      if (result.applied) probe.noticeAssignedIds(result.applied, warn);
    } catch (err) {
      throw asCliError(err);
    } finally {
      spire.close();
    }
  }

  if (output === 'json') {
    const json = planJson(result, options.ownership.entryIDPrefix) as { status: Record<string, unknown> };
    if (federation) json.status.clusterFederatedTrustDomains = federation.status;
    opts.print(JSON.stringify({ ...json, ...(federation ? { federation: federationJson(federation) } : {}) }, null, 2));
  } else {
    opts.print(planTable(result, options.ownership.entryIDPrefix));
    if (federation) opts.print(federationTable(federation));
    if (result.applied) opts.print(`\n${applySummary(result)}`);
  }
  const failed =
    (result.applied?.failures.length ?? 0) +
    result.plan.conflicts.length +
    result.declared.renderFailures.length +
    (federation ? federation.plan.conflicts.length + federation.plan.invalid.length + (federation.applied?.failed.size ?? 0) : 0) +
    manifests.set.problems.filter(isSkip).length;
  return { code: opts.apply && failed > 0 ? Exit.itemsFailed : Exit.ok, result, ...(federation ? { federation } : {}) };
}

/** The options plan and reconcile share, and an action that runs one pass. */
function oncePass(cmd: Command, apply: boolean): Command {
  return addConfigOptions(cmd)
    .option('--manifests <dir...>', 'manifest files or directories (default: staticManifestPath)')
    .option('--socket <path>', 'SPIRE server API socket (overrides spireServerSocketPath)')
    .option('--output <format>', 'table or json', 'table')
    .action(async (flags: OnceFlags) => {
      const { code } = await runOnce(flags, { apply, print: (s) => console.log(s) });
      process.exitCode = code;
    });
}

export function registerPlan(program: Command): void {
  oncePass(program.command('plan'), false)
    .description('dry run: print what a reconcile would create, update and delete; writes nothing')
    .option('--entries <file>', 'current entries from `spire-server entry show -output json` instead of the SPIRE socket');
  oncePass(program.command('reconcile'), true)
    .description('one reconcile pass from manifests against the SPIRE server: prints the plan, applies it, exits 1 if any item failed')
    .requiredOption('--once', 'run a single pass and exit (the long-running controller is `run`)');
}
