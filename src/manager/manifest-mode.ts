import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from 'pino';
import type { ClusterFederatedTrustDomain, ClusterSnapshot, ControllerConfig } from '../api/index.js';
import { ClaimedIds, emptyClusterDomainNote, type EntryPassOptions, entryPassProblems, logProblems } from '../entries/index.js';
import { federationPassProblems } from '../federation/index.js';
import { formatProblem, type ManifestProblem } from '../manifests/index.js';
import { EVENT_REPEAT_MS } from '../kube/events.js';
import { passLog, untilAborted } from './lifecycle.js';
import { type ControllerMetrics, passCounts } from './metrics.js';
import { ProblemReports } from './problem-reports.js';
import { Reconciler } from './reconcile.js';
import { spireClientFor, waitForSpireServer } from './spire-client.js';
import type { SpireIdentity } from './spire-identity.js';
import { CoalescingTrigger } from './trigger.js';
import type { WaitReporter } from './waiting.js';

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

/** What one read of the manifest files gives (cli/inputs.ts:readManifests). */
export interface ManifestRead {
  set: { changedWhileRead: string[]; newestChangeMs: number; clusterFederatedTrustDomains: readonly ClusterFederatedTrustDomain[] };
  problems: readonly ManifestProblem[];
  /** With the reconcile.* switches applied. */
  snapshot: ClusterSnapshot;
  suppressDeletes?: string;
}

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

export interface ManifestModeOptions {
  paths: string[];
  config: ControllerConfig;
  /** The engine's options the config implies. */
  pass: EntryPassOptions;
  log: Logger;
  signal: AbortSignal;
  metrics: ControllerMetrics;
  /** Reads the files once (the CLI's reader: it also runs the webhook's checks on every object). */
  read: (paths: string[]) => Promise<ManifestRead>;
  /** Where the wait for SPIRE is said; default: the log, at info. */
  waits?: WaitReporter;
  /** The controller's SVID and transport, with spireServerAddress (SpireIdentity.for). */
  spireIdentity?: SpireIdentity;
}

/**
 * The long-running controller in manifest mode: a pass at start, whenever a
 * manifest file changes, and every gcInterval. Resolves when stopped by the
 * signal, after the pass in flight has finished (at once if stopped while
 * waiting for SPIRE).
 */
export async function runManifestMode(o: ManifestModeOptions): Promise<void> {
  const { paths, config, signal, metrics } = o;
  const log = o.log;
  const spire = spireClientFor(config, metrics.observeSpireRpc, o.spireIdentity);
  let ready = false;
  try {
    ready = await waitForSpireServer(spire, log, signal, o.waits);
  } finally {
    // Stopped (or failed) before SPIRE ever answered: nothing was started, nothing to finish.
    if (!ready) spire.close();
  }
  if (!ready) return;
  log.info({ spire: spire.where, manifests: paths }, 'manifest mode started');
  // Claims outlive a pass: an entry an older SPIRE stored under its own ID is still ours when its manifest goes.
  const reconciler = new Reconciler({ config, spire, log, options: { ...o.pass, claims: new ClaimedIds() }, logMigration: true });

  // Said once while it lasts, not every pass.
  let dottedSaid = false;
  // When the watcher last saw a change, and the pass waiting for the files to be still.
  let lastFsEvent = 0;
  let settling: NodeJS.Timeout | undefined;
  const passLater = (ms: number) => {
    clearTimeout(settling);
    settling = setTimeout(() => trigger.trigger(), ms);
  };
  // As in live mode: a problem that persists is logged again when it changes, or after the interval Events repeat at.
  const reported = new ProblemReports(EVENT_REPEAT_MS);
  const pass = async () => {
    const started = Date.now();
    const log = passLog(o.log);
    try {
      // A snapshot is files that have been still for MANIFEST_SETTLE_MS, read without moving.
      const wait = MANIFEST_SETTLE_MS - (Date.now() - lastFsEvent);
      if (wait > 0) return passLater(wait);
      const manifests = await o.read(paths);
      const moving = unsettled(manifests.set, lastFsEvent);
      if (moving) {
        log.info(`${moving.why}: not a snapshot yet; reading again in ${moving.waitMs} ms`);
        return passLater(moving.waitMs);
      }
      const { entries: result } = await reconciler.once({
        federation: manifests.set.clusterFederatedTrustDomains,
        log,
        onProbed: () => {
          for (const p of manifests.problems) log.warn(formatProblem(p));
        },
        onFederation: (fed) => logProblems(log, reported.due('federation', federationPassProblems(fed), true)),
        snapshot: () => ({ objects: manifests.snapshot }),
        entries: {
          ...(manifests.suppressDeletes ? { suppressDeletes: manifests.suppressDeletes } : {}),
          onPhase: (phase, seconds) => metrics.observePhase(phase, seconds),
        },
      });
      if (!result) return;
      logProblems(log, reported.due('entries', entryPassProblems(result), true));
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
      log.error({ err }, 'reconcile pass failed');
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
      log.warn({ err, path: p }, 'cannot watch a manifest path; it is re-read every gcInterval');
    }
  }
  const interval = setInterval(() => trigger.trigger(), config.gcIntervalMs);
  trigger.trigger();

  await untilAborted(signal);
  log.info('shutting down: finishing the pass in flight');
  clearInterval(interval);
  clearTimeout(debounce);
  clearTimeout(settling);
  for (const w of watchers) w.close();
  await trigger.stop();
  spire.close();
}
