import type { KubeConfig } from '../kube/connection.js';
import type { Logger } from 'pino';
import { describeKubeConfig, loadKubeConfig, NoKubeConfigError } from '../kube/kubeconfig.js';
import type { Command } from 'commander';
import { settleClusterDomain } from './cluster-domain.js';
import { firstListsAfter } from './first-lists.js';
import type { ClusterCache } from '../kube/cluster.js';
import { type Check, informersSynced, type Layout, ping, readinessGates, serveObservability } from '../manager/health.js';
import { startLive } from '../manager/live.js';
import { ControllerMetrics } from '../manager/metrics.js';
import type { SpireClient } from '../spire/index.js';
import type { startWebhook } from '../webhook/index.js';
import { addConfigOptions, addSpireTargetOptions, type ConfigFlags, loadContext, type LoadedContext, passOptions } from './context.js';
import { CliError } from './exit.js';
import { checkSocketPath, spireClientFor, spireIdentityFor } from '../manager/spire-client.js';
import type { SpireIdentity } from '../manager/spire-identity.js';
import { errorMessage } from '../api/errors.js';
import { parseSocket } from '../spire/target.js';
import { manifestPaths } from './manifest-paths.js';
import { asCliError } from './spire-errors.js';
import { loggerFor } from './logger.js';
import { logSettings, type ZapFlags } from './log-settings.js';
import { requirePaths } from './paths.js';
import { cliWaits } from './stderr-waits.js';
import type { WaitReporter } from '../manager/wait-reports.js';
import { commandDescription } from './command-help.js';

interface RunFlags extends ConfigFlags, ZapFlags {
  manifests?: string[];
  kubeconfig?: string;
}

/**
 * What the probe server reports of a live controller, filled in as its parts
 * start: the probe server starts before them, so that a restarted container
 * answers the kubelet's first readiness probe (docs/observability.md).
 */
interface LiveParts {
  cache?: ClusterCache;
  webhook?: Awaited<ReturnType<typeof startWebhook>>;
  /** Told when the start is over: caches synced and SPIRE answered (the probe thread may go then). */
  started?: () => void;
  /** When the informers' first lists may begin (cli/first-lists.ts); absent: at once. */
  listAfter?: Promise<void>;
}

/** The conditions live mode reports: the informers' initial sync and, with the webhook on, its serving certificate (upstream #389). */
function liveConditions(config: LoadedContext['config'], parts: LiveParts): Check[] {
  return [
    informersSynced(() => parts.cache),
    ...(config.webhook.enabled ? [{ name: 'webhook-certificate', check: () => parts.webhook?.ready() ?? { ok: false, detail: 'starting' } }] : []),
  ];
}

/**
 * The metrics and health servers of `run`, in either mode, as the config
 * places them. Readiness follows the layout (health.ts:readinessGates): in
 * the SPIRE server's pod nothing of ours decides it; in a pod of our own the
 * conditions do. The SVID's condition (standalone) is only reported: a
 * replica without one still serves the webhook with the certificate it holds
 * and keeps a PodDisruptionBudget's count, and the log and the condition say
 * why it has none.
 */
function serveFor(config: LoadedContext['config'], metrics: ControllerMetrics, conditions: Check[], identity: SpireIdentity | undefined, log: Logger, startOver: Promise<void> | undefined) {
  const layout: Layout = config.spireServerAddress ? 'standalone' : 'sidecar';
  return serveObservability({
    metricsBindAddress: config.metricsBindAddress,
    healthProbeBindAddress: config.healthProbeBindAddress,
    readinessPath: config.readinessEndpointName,
    livenessPath: config.livenessEndpointName,
    metrics,
    readiness: readinessGates(layout, conditions),
    liveness: [ping],
    conditions: [...conditions, ...(identity ? [identity.condition(), identity.serverCondition()] : [])],
    log,
    startOver,
  });
}

/**
 * Live Kubernetes mode: KUBECONFIG, ~/.kube/config or the in-cluster service
 * account, as client-go would choose. Resolves after a graceful shutdown.
 */
async function runLiveMode(
  flags: RunFlags,
  { config }: LoadedContext,
  log: Logger,
  waits: WaitReporter,
  signal: AbortSignal,
  metrics: ControllerMetrics,
  parts: LiveParts,
  spireIdentity: SpireIdentity | undefined,
): Promise<void> {
  let kc: KubeConfig;
  try {
    // --kubeconfig as controller-runtime takes it (the chart's external controller managers pass one).
    kc = await loadKubeConfig({ file: flags.kubeconfig });
  } catch (err) {
    if (err instanceof NoKubeConfigError) throw new CliError(`${err.message}; or give --manifests DIR (or staticManifestPath) for manifest mode`);
    throw err;
  }
  log.info(`Kubernetes API server ${describeKubeConfig(kc)}`);
  const domain = await settleClusterDomain(config);
  if (domain.from === 'detected') log.info(`cluster domain ${domain.value} (detected)`);
  else if (domain.from === 'not-detected') {
    log.warn('cluster domain not detected and clusterDomain is not set: templates see it as "", so a DNS name template using .ClusterDomain gives a name ending in "." and its pods\' entries fail to render (autoPopulateDNSNames leaves out its names with the domain)');
  }
  // The webhook serves on every replica, leader or not (upstream #450), with its own SPIRE client.
  let webhookSpire: SpireClient | undefined;
  try {
    if (config.webhook.enabled) {
      // Loaded here, only when enabled: its certificate handling and its server are code a controller without it never runs.
      const { startWebhook: start } = await import('../webhook/index.js');
      webhookSpire = spireClientFor(config, undefined, spireIdentity);
      parts.webhook = await start({ config, kc, spire: webhookSpire, log, onOptionalAccess: (resource, denied) => metrics.setForbidden(resource, denied !== undefined) });
    }
    // In a cluster the context namespace is the pod's own (from the service account): the Lease goes there by default.
    const namespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
    const live = await startLive({ config, pass: passOptions(config), kc, log, waits, signal, metrics, onCache: (c) => (parts.cache = c), namespace, spireIdentity, listAfter: parts.listAfter });
    parts.started?.();
    await live.done;
  } catch (err) {
    throw asCliError(err);
  } finally {
    await parts.webhook?.close();
    webhookSpire?.close();
  }
}

export function registerRun(program: Command): void {
  addSpireTargetOptions(addConfigOptions(program.command('run')))
    .description(commandDescription('run'))
    .option('--manifests <dir...>', 'manifest files or directories (default: staticManifestPath)')
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
      requirePaths('--kubeconfig', flags.kubeconfig);
      const context = loadContext(flags);
      const { settings, warnings } = logSettings(context.config, flags);
      const log = loggerFor(settings);
      for (const w of [...context.warnings, ...warnings]) log.warn(w);
      // Waiting will not turn a file or a directory into a socket: say so now rather than wait forever.
      if (!context.config.spireServerAddress) checkSocketPath(parseSocket(context.config.spireServerSocketPath).path);
      const paths = manifestPaths(flags.manifests, context.config);
      const waits = cliWaits(settings.encoding, log);
      // Serving first: a restarted container answers the kubelet's probes before anything else starts.
      const metrics = new ControllerMetrics();
      const startOver = Promise.withResolvers<void>();
      const parts: LiveParts = { started: startOver.resolve };
      // The standalone layout's SVID, streamed from the agent from now on: it is in hand by the time SPIRE is called.
      let spireIdentity: SpireIdentity | undefined;
      try {
        spireIdentity = await spireIdentityFor(context.config, { log, metrics });
      } catch (err) {
        throw new CliError(errorMessage(err));
      }
      try {
        // The probe thread may end once live mode's start is over (parts.started); manifest mode keeps it.
        const observability = await serveFor(context.config, metrics, paths ? [] : liveConditions(context.config, parts), spireIdentity, log, paths ? undefined : startOver.promise);
        parts.listAfter = firstListsAfter(observability.readinessAnswered);
        try {
          // Loaded only for manifest mode: reading and validating manifest files (the CRDs' schemas) is code live mode never runs.
          if (paths) await (await import('./run-manifests.js')).runManifestMode(paths, context, log, waits, stop.signal, metrics, spireIdentity);
          else await runLiveMode(flags, context, log, waits, stop.signal, metrics, parts, spireIdentity);
        } finally {
          await observability.close();
        }
      } finally {
        spireIdentity?.close();
      }
      // Stopped gracefully. A request still in flight (a first list an API server never
      // answers) must not keep the process alive; a second is left for the logs to flush.
      setTimeout(() => process.exit(0), 1_000).unref();
    });
}
