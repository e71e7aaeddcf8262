import { watch, type FSWatcher } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeKubeConfig, loadKubeConfig, NoKubeConfigError } from '../kube/kubeconfig.js';
import type { Command } from 'commander';
import { ClaimedIds, entryPassProblems, logMigration, logProblems, runEntryPass, SpireServerProbe, emptyClusterDomainNote } from '../entries/index.js';
import { federationOptions, federationPassProblems, runFederationPass } from '../federation/index.js';
import { formatProblem } from '../manifests/index.js';
import { detectClusterDomain } from '../manager/cluster-domain.js';
import type { ClusterCache } from '../kube/cluster.js';
import { type Check, informersSynced, ping, serveObservability } from '../manager/health.js';
import { startLive } from '../manager/live.js';
import { ControllerMetrics, passCounts } from '../manager/metrics.js';
import type { SpireClient } from '../spire/index.js';
import { startWebhook } from '../webhook/index.js';
import { CoalescingTrigger } from '../manager/trigger.js';
import { addConfigOptions, type ConfigFlags, loadContext, type LoadedContext, passOptions } from './context.js';
import { CliError } from './exit.js';
import { checkSocketPath, spireClientFor } from '../manager/spire-client.js';
import { parseSocket } from '../spire/target.js';
import { asCliError, manifestPaths, manifestScopeWarnings, readManifests } from './inputs.js';
import { loggerFor } from './logger.js';
import { logSettings, type ZapFlags } from './logging.js';

interface RunFlags extends ConfigFlags, ZapFlags {
  manifests?: string[];
  kubeconfig?: string;
}

/** The metrics and health servers of `run`, in either mode, as the config places them. */
function serveFor(config: LoadedContext['config'], metrics: ControllerMetrics, readiness: Check[], log: Logger) {
  return serveObservability({
    metricsBindAddress: config.metricsBindAddress,
    healthProbeBindAddress: config.healthProbeBindAddress,
    readinessPath: config.readinessEndpointName,
    livenessPath: config.livenessEndpointName,
    metrics,
    readiness,
    liveness: [ping],
    log,
  });
}

/**
 * How long manifest files must have been still before a pass reads them. A
 * writer that pauses mid-file (a copy in chunks, a slow pipe) leaves a half
 * file that often still parses, and a pass on it would delete the entries of
 * everything in the missing half, then create them again with new IDs. A
 * writer that pauses longer than this still cannot be told from a finished
 * one: write manifests atomically (to a temporary name, then rename, as
 * ConfigMap volumes do).
 */
export const MANIFEST_SETTLE_MS = 2_000;

/**
 * Whether what was read is not a snapshot yet, and how long to wait: a file
 * moved while read, or the files (or the watched folders) moved less than
 * MANIFEST_SETTLE_MS ago. A modification time in the future (clock skew on a
 * network share) tells nothing and is not waited for.
 */
function unsettled(set: { changedWhileRead: string[]; newestChangeMs: number }, lastFsEvent: number): { why: string; waitMs: number } | undefined {
  if (set.changedWhileRead.length > 0) return { why: `${set.changedWhileRead.join(', ')} changed while being read`, waitMs: MANIFEST_SETTLE_MS };
  const now = Date.now();
  const moved = Math.max(lastFsEvent, set.newestChangeMs > now ? 0 : set.newestChangeMs);
  const still = now - moved;
  return still < MANIFEST_SETTLE_MS ? { why: `manifests changed ${Math.max(0, Math.round(still))} ms ago`, waitMs: MANIFEST_SETTLE_MS - still } : undefined;
}

/**
 * The long-running controller in manifest mode: a pass at start, whenever a
 * manifest file changes, and every gcInterval. Resolves when stopped by a
 * signal, after the pass in flight has finished.
 */
async function runManifestMode(paths: string[], { config }: LoadedContext, log: Logger, signal: AbortSignal): Promise<void> {
  for (const w of manifestScopeWarnings(config)) log.warn(w);
  // Claims outlive a pass: an entry an older SPIRE stored under its own ID is still ours when its manifest goes.
  const options = { ...passOptions(config), claims: new ClaimedIds() };
  const metrics = new ControllerMetrics();
  // This process is the only writer: it leads.
  metrics.setLeader(true);
  // Health and metrics as in live mode, so the deploy patch's probes work here too. Nothing to
  // sync: ready once serving (a sidecar's readiness is the SPIRE server pod's, so SPIRE is not part of it).
  const observability = await serveFor(config, metrics, [], log);
  const spire = spireClientFor(config, metrics.observeSpireRpc);
  const probe = new SpireServerProbe();
  const warn = (m: string) => log.warn(m);
  let migrationExplained = false;
  // Relationships this process set; under entryScope prefixed only these may be deleted.
  const ourRelationships = new Set<string>();

  try {
    await spire.waitUntilReady({
      timeoutMs: Number.MAX_SAFE_INTEGER,
      onWaiting: (ms) => log.info(`waiting for the SPIRE server at ${spire.socketPath} (${Math.round(ms / 1000)}s)`),
      signal,
    });
  } catch (err) {
    spire.close();
    await observability.close();
    if (!signal.aborted) throw asCliError(err);
    // Stopped before SPIRE ever answered: nothing was started, nothing to finish.
    log.info('stopped');
    return;
  }
  log.info({ socket: spire.socketPath, manifests: paths }, 'manifest mode started');

  // Said once while it lasts, not every pass.
  let dottedSaid = false;
  // When the watcher last saw a change, and the pass waiting for the files to be still.
  let lastFsEvent = 0;
  let settling: NodeJS.Timeout | undefined;
  const passLater = (ms: number) => {
    clearTimeout(settling);
    settling = setTimeout(() => trigger.trigger(), ms);
  };
  const pass = async () => {
    const started = Date.now();
    try {
      // A snapshot is files that have been still for MANIFEST_SETTLE_MS, read without moving.
      const wait = MANIFEST_SETTLE_MS - (Date.now() - lastFsEvent);
      if (wait > 0) return passLater(wait);
      const manifests = await readManifests(paths, config);
      const moving = unsettled(manifests.set, lastFsEvent);
      if (moving) {
        log.info(`${moving.why}: not a snapshot yet; reading again in ${moving.waitMs} ms`);
        return passLater(moving.waitMs);
      }
      const unsupported = await probe.refresh(spire, config.trustDomain, options.ownership.entryIDPrefix, warn);
      for (const p of manifests.problems) log.warn(formatProblem(p));
      let federatedBundles: Set<string> | undefined;
      if (config.reconcile.clusterFederatedTrustDomains) {
        const fed = await runFederationPass(manifests.set.clusterFederatedTrustDomains, spire, {
          ...federationOptions(config),
          ours: ourRelationships,
        });
        logProblems(log, federationPassProblems(fed));
        federatedBundles = fed.bundles;
      }
      const result = await runEntryPass(manifests.snapshot, spire, {
        ...options,
        ...(probe.ignoresEntryIds ? { ownership: { ...options.ownership, serverAssignsIds: true } } : {}),
        explainMigration: !migrationExplained,
        ...(federatedBundles ? { federatedBundles } : {}),
        ...(unsupported ? { unsupportedFields: unsupported } : {}),
        ...(manifests.suppressDeletes ? { suppressDeletes: manifests.suppressDeletes } : {}),
        onPhase: (phase, seconds) => metrics.observePhase(phase, seconds),
      });
      if (result.applied) probe.noticeAssignedIds(result.applied, warn);
      if (!migrationExplained) logMigration(log, result.migration, options.ownership.entryIDPrefix);
      migrationExplained = true;
      logProblems(log, entryPassProblems(result));
      const dotted = emptyClusterDomainNote(result.declared.renderFailures, config.clusterDomain);
      if (dotted && !dottedSaid) log.warn(dotted);
      dottedSaid = dotted !== undefined;
      const a = result.applied;
      log.info(
        { created: a?.created, updated: a?.updated, deleted: a?.deleted, failed: a?.failures.length, kept: result.plan.kept.length, ms: Date.now() - started },
        'reconciled',
      );
      metrics.observePass(passCounts(result), (Date.now() - started) / 1000);
    } catch (err) {
      // A failed pass changes nothing further; the next trigger or interval tries again.
      log.error(`reconcile pass failed: ${(err as Error).message}`);
      metrics.passFailed();
    }
  };

  const trigger = new CoalescingTrigger(pass);
  const watchers: FSWatcher[] = [];
  let debounce: NodeJS.Timeout | undefined;
  for (const p of paths) {
    try {
      watchers.push(
        watch(p, { recursive: true }, () => {
          lastFsEvent = Date.now();
          clearTimeout(debounce);
          debounce = setTimeout(() => trigger.trigger(), 200);
        }),
      );
    } catch (err) {
      log.warn(`cannot watch ${p} (${(err as Error).message}); it is re-read every gcInterval`);
    }
  }
  const interval = setInterval(() => trigger.trigger(), config.gcIntervalMs);
  trigger.trigger();

  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  log.info('shutting down: finishing the pass in flight');
  clearInterval(interval);
  clearTimeout(debounce);
  clearTimeout(settling);
  for (const w of watchers) w.close();
  await trigger.stop();
  spire.close();
  await observability.close();
  log.info('stopped');
}

/**
 * Live Kubernetes mode: KUBECONFIG, ~/.kube/config or the in-cluster service
 * account, as client-go would choose. Resolves after a graceful shutdown.
 */
async function runLiveMode(flags: RunFlags, { config }: LoadedContext, log: Logger, signal: AbortSignal): Promise<void> {
  let kc: KubeConfig;
  try {
    // --kubeconfig as controller-runtime takes it (the chart's external controller managers pass one).
    kc = loadKubeConfig(flags.kubeconfig ? { file: flags.kubeconfig } : {});
  } catch (err) {
    if (err instanceof NoKubeConfigError) throw new CliError(`${err.message}; or give --manifests DIR (or staticManifestPath) for manifest mode`);
    throw err;
  }
  log.info(`Kubernetes API server ${describeKubeConfig(kc)}`);
  if (!config.clusterDomain) {
    const detected = await detectClusterDomain();
    if (detected) config.clusterDomain = detected;
    if (detected) log.info(`cluster domain ${detected} (detected)`);
    else log.warn('cluster domain not detected and clusterDomain is not set: templates see it as "", so a DNS name template using .ClusterDomain gives a name ending in "." and its pods\' entries fail to render (autoPopulateDNSNames leaves out its names with the domain)');
  }
  const metrics = new ControllerMetrics();
  // Set before SPIRE answers (startLive waits for it): readiness must not.
  let cache: ClusterCache | undefined;
  // The webhook serves on every replica, leader or not (upstream #450), with its own SPIRE client.
  let webhookSpire: SpireClient | undefined;
  let webhook: Awaited<ReturnType<typeof startWebhook>> | undefined;
  if (config.webhook.enabled) {
    webhookSpire = spireClientFor(config);
    webhook = await startWebhook({ config, kc, spire: webhookSpire, log, onOptionalAccess: (resource, denied) => metrics.setForbidden(resource, denied !== undefined) });
  }
  // Readiness is the initial sync only: a sidecar's readiness is the SPIRE server pod's, so
  // leadership and SPIRE reachability must not take SPIRE out of its Service.
  const observability = await serveFor(
    config,
    metrics,
    [
      informersSynced(() => cache),
      // Ready to serve admission requests only with a certificate (upstream #389).
      ...(webhook ? [{ name: 'webhook-certificate', check: () => webhook.ready() }] : []),
    ],
    log,
  );
  try {
    // In a cluster the context namespace is the pod's own (from the service account): the Lease goes there by default.
    const namespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
    const live = await startLive({ config, pass: passOptions(config), kc, log, signal, metrics, onCache: (c) => (cache = c), ...(namespace ? { namespace } : {}) });
    await live.done;
  } catch (err) {
    throw asCliError(err);
  } finally {
    await webhook?.close();
    webhookSpire?.close();
    await observability.close();
  }
}

export function registerRun(program: Command): void {
  addConfigOptions(program.command('run'))
    .description('the long-running controller: live Kubernetes mode (KUBECONFIG or in-cluster), or manifest mode with staticManifestPath or --manifests. Without a command, spire-controller-manager\'s flags mean run')
    .option('--manifests <dir...>', 'manifest files or directories (default: staticManifestPath)')
    .option('--socket <path>', 'SPIRE server API socket (overrides spireServerSocketPath)')
    .option('--kubeconfig <file>', 'kubeconfig to use (default: KUBECONFIG, ~/.kube/config or in-cluster)')
    .option('--spire-api-socket <path>', "upstream's deprecated flag: the SPIRE socket when the config file sets no spireServerSocketPath")
    .option('--zap-log-level <level>', 'log level over the config file\'s: debug, info, warn, error, panic, or N > 0 (more verbose than debug)')
    .option('--zap-encoder <encoding>', 'log encoding over the config file\'s: json or console')
    .option('--zap-devel', 'where neither flags nor file say: debug level and console output (zap\'s development defaults)')
    .option('--no-zap-devel', 'where neither flags nor file say: info level and json output (zap\'s production defaults)')
    .option('--zap-stacktrace-level <level>', 'accepted for compatibility (info, error, panic); no effect')
    .option('--zap-time-encoding <encoding>', 'time field of json logs: epoch, millis, nano, iso8601, rfc3339, rfc3339nano')
    .action(async (flags: RunFlags) => {
      const stop = new AbortController();
      process.once('SIGTERM', () => stop.abort());
      process.once('SIGINT', () => stop.abort());
      const context = loadContext(flags);
      const { settings, warnings } = logSettings(context.config, flags);
      const log = loggerFor(settings);
      for (const w of [...context.warnings, ...warnings]) log.warn(w);
      // Waiting will not turn a file or a directory into a socket: say so now rather than wait forever.
      checkSocketPath(parseSocket(context.config.spireServerSocketPath).path);
      const paths = manifestPaths(flags.manifests, context.config);
      if (paths) await runManifestMode(paths, context, log, stop.signal);
      else await runLiveMode(flags, context, log, stop.signal);
    });
}
