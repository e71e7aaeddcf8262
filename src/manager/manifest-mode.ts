import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from 'pino';
import type { ClusterFederatedTrustDomain, ClusterSnapshot, ControllerConfig } from '../api/index.js';
import { ClaimedIds, type EntryPassOptions, type FullPassOptions } from '../entries/index.js';
import { federationPassProblems } from '../federation/index.js';
import { formatProblem, type ManifestProblem } from '../manifests/index.js';
import type { SpireClient } from '../spire/index.js';
import { passLog, untilAborted } from './lifecycle.js';
import type { ControllerMetrics } from './metrics.js';
import { PassReporter } from './pass-report.js';
import { RetryPolicy, writesOutcome } from './retry.js';
import { Reconciler } from './reconcile.js';
import { spireClientFor, waitForSpireServer } from './spire-client.js';
import type { SpireIdentity } from './spire-identity.js';
import { CoalescingTrigger } from './trigger.js';
import type { WaitReporter } from './wait-reports.js';

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
 * The manifest files as the watcher sees them move: when they last did, and
 * once started, a pass shortly after each movement (200 ms, to take a burst
 * of events as one) or once they have been still for long enough (passIn).
 */
class ManifestWatch {
  /** When the watcher last saw a change. */
  lastEvent = 0;
  private readonly watchers: FSWatcher[] = [];
  private debounce: NodeJS.Timeout | undefined;
  private settling: NodeJS.Timeout | undefined;
  private pass: () => void = () => {};

  /** Watches `paths`, asking for a pass with `pass`. */
  start(paths: readonly string[], log: Logger, pass: () => void): void {
    this.pass = pass;
    for (const p of paths) {
      try {
        this.watchers.push(watch(p, { recursive: true }, () => this.moved()));
      } catch (err) {
        log.warn({ err, path: p }, 'cannot watch a manifest path; it is re-read every gcInterval');
      }
    }
  }

  /** A pass in `ms`, replacing one waiting for the files to be still. */
  passIn(ms: number): void {
    clearTimeout(this.settling);
    this.settling = setTimeout(() => this.pass(), ms);
  }

  close(): void {
    clearTimeout(this.debounce);
    clearTimeout(this.settling);
    for (const w of this.watchers) w.close();
  }

  private moved(): void {
    this.lastEvent = Date.now();
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.pass(), 200);
  }
}

/** What one manifest pass uses, made once per run. */
interface ManifestRun {
  o: ManifestModeOptions;
  reconciler: Reconciler;
  reports: PassReporter;
  retries: RetryPolicy;
  files: ManifestWatch;
}

/**
 * The files read as a snapshot: still for MANIFEST_SETTLE_MS and read
 * without moving. Undefined when they are not (a pass is set for when they
 * may be).
 */
async function readSettled({ o, files }: ManifestRun, log: Logger): Promise<ManifestRead | undefined> {
  const wait = MANIFEST_SETTLE_MS - (Date.now() - files.lastEvent);
  if (wait > 0) return void files.passIn(wait);
  const manifests = await o.read(o.paths);
  const moving = unsettled(manifests.set, files.lastEvent);
  if (!moving) return manifests;
  log.info(`${moving.why}: not a snapshot yet; reading again in ${moving.waitMs} ms`);
  files.passIn(moving.waitMs);
  return undefined;
}

/** One pass: the files read once settled, reconciled, and reported as live mode reports its full passes. */
async function manifestPass(run: ManifestRun): Promise<void> {
  const { o, reconciler, reports, retries } = run;
  const started = Date.now();
  const log = passLog(o.log);
  try {
    const manifests = await readSettled(run, log);
    if (!manifests) return;
    const { entries } = await reconciler.once({
      federation: manifests.set.clusterFederatedTrustDomains,
      log,
      onProbed: () => {
        for (const p of manifests.problems) log.warn(formatProblem(p));
      },
      onFederation: (fed) => reports.problems('federation', federationPassProblems(fed), true, log),
      snapshot: () => ({ objects: manifests.snapshot, suppressDeletes: manifests.suppressDeletes }),
    });
    if (entries) reports.fullPass(entries, (Date.now() - started) / 1000, log);
    retries.settle('full', entries?.applied ? { result: writesOutcome(entries.applied) } : { result: 'success' }, log);
  } catch (err) {
    retries.settle('full', { result: 'error', err }, log);
  }
}

/** The SPIRE client once the server answers; undefined when stopped (or failed) before it did, the client closed. */
async function reachSpire(o: ManifestModeOptions): Promise<SpireClient | undefined> {
  const spire = spireClientFor(o.config, o.metrics.observeSpireRpc, o.spireIdentity);
  let ready = false;
  try {
    ready = await waitForSpireServer(spire, o.log, o.signal, o.waits);
  } finally {
    // Nothing was started, nothing to finish.
    if (!ready) spire.close();
  }
  return ready ? spire : undefined;
}

/**
 * The long-running controller in manifest mode: a pass at start, whenever a
 * manifest file changes, and every gcInterval. Resolves when stopped by the
 * signal, after the pass in flight has finished (at once if stopped while
 * waiting for SPIRE).
 */
export async function runManifestMode(o: ManifestModeOptions): Promise<void> {
  const { paths, config, log, metrics } = o;
  const spire = await reachSpire(o);
  if (!spire) return;
  log.info({ spire: spire.where, manifests: paths }, 'manifest mode started');
  // Claims outlive a pass: an entry an older SPIRE stored under its own ID is still ours when its manifest goes.
  const options: FullPassOptions = { ...o.pass, claims: new ClaimedIds(), onPhase: (phase, seconds) => metrics.observePhase(phase, seconds) };
  const reconciler = new Reconciler({ config, spire, log, options, logMigration: true });
  const reports = new PassReporter({ lines: 'every pass at info', clusterDomain: config.clusterDomain, metrics });
  // A failed pass changes nothing further; the next file change or gcInterval tries again.
  const retries = new RetryPolicy({ metrics });
  const files = new ManifestWatch();
  const trigger = new CoalescingTrigger(() => manifestPass({ o, reconciler, reports, retries, files }));
  files.start(paths, log, () => trigger.trigger());
  const interval = setInterval(() => trigger.trigger(), config.gcIntervalMs);
  trigger.trigger();

  await untilAborted(o.signal);
  log.info('shutting down: finishing the pass in flight');
  clearInterval(interval);
  files.close();
  await trigger.stop();
  spire.close();
}
