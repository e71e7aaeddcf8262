/**
 * `npm run bench -- --ours-only`: our controller alone, measured as the
 * side-by-side benchmark measures it (its own process, through the image's
 * entrypoint when given a memory limit), without the peer: for trying a
 * change to the controller or its V8 sizing at one size in half the time.
 * NODE_OPTIONS in the environment reaches the controller (the entrypoint
 * keeps a flag it finds there). Prints the figures; writes no results file.
 *   NODE_OPTIONS=--max-semi-space-size=4 npm run bench -- --ours-only --pods 10000 --memory-limit 256 --bundle
 */
import { buildOurs, measureController, type SideBySideOptions } from './side-by-side.js';
import { summary } from './side-by-side-report.js';

export async function oursOnly(o: Omit<SideBySideOptions, 'peer' | 'coldTimeoutMs'> & { pods: number; bundle: boolean }): Promise<void> {
  const ours = buildOurs(o.bundle);
  const { pods, bundle, ...opts } = o;
  const f = await measureController('ours', pods, { ...opts, peer: '', coldTimeoutMs: 10 * 60_000 }, ours);
  console.log(
    JSON.stringify({
      pods,
      bundle,
      memoryLimitMiB: o.memoryLimitMiB,
      gcEntriesPerInterval: o.gcEntriesPerInterval ?? 'default',
      nodeOptions: process.env.NODE_OPTIONS ?? '',
      coldMs: f.coldMs,
      coldCpuSeconds: f.coldCpuSeconds,
      idleCpuSecondsPerResync: Number(f.idleCpuSecondsPerResync.toFixed(3)),
      idleCpuSecondsPerInterval: Number(f.idleCpuSecondsPerInterval.toFixed(3)),
      idleCallsPerResync: Object.fromEntries(Object.entries(f.idleCallsPerResync).map(([m, n]) => [m, Number(n.toFixed(1))])),
      latencyMs: summary(f.latencyMs),
      cpuSecondsPer1000Events: f.cpuSecondsPer1000Events,
      rssSteadyMiB: Math.round(f.rssSteadyMiB),
      rssPeakMiB: Math.round(f.rssPeakMiB),
    }),
  );
}
