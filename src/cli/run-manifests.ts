import type { Logger } from 'pino';
import { runManifestMode as runManifestController } from '../manager/manifest-mode.js';
import type { ControllerMetrics } from '../manager/metrics.js';
import type { SpireIdentity } from '../manager/spire-identity.js';
import type { WaitReporter } from '../manager/wait-reports.js';
import { type LoadedContext, passOptions } from './context.js';
import { asCliError, manifestScopeWarnings, readManifests } from './inputs.js';

/** Manifest mode (manager/manifest-mode.ts): nothing to sync, so nothing to report beside the ping. */
export async function runManifestMode(paths: string[], { config }: LoadedContext, log: Logger, waits: WaitReporter, signal: AbortSignal, metrics: ControllerMetrics, spireIdentity: SpireIdentity | undefined): Promise<void> {
  for (const w of manifestScopeWarnings(config)) log.warn(w);
  // This process is the only writer: it leads.
  metrics.setLeader(true);
  try {
    await runManifestController({ paths, config, pass: passOptions(config), log, waits, signal, metrics, spireIdentity, read: (p) => readManifests(p, config) });
  } catch (err) {
    throw asCliError(err);
  }
  log.info('stopped');
}
