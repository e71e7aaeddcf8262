/**
 * Micro-benchmark: the longest synchronous stretch of a full pass's render
 * and plan at N pods (a pass after the first: SPIRE holds every entry), run
 * in one step as manifest mode and the CLI do, and in slices as live mode
 * does (entries/time-slices.ts). Times are the main thread's own CPU time, which a
 * machine loaded by other processes does not stretch the way it stretches
 * wall time; a stretch includes any garbage collection pause in it. Not a
 * test: it prints figures and asserts nothing.
 *   npx tsx bench/full-pass-stretches.ts [--pods 100000] [--runs 3] [--slice-ms 5]
 */
import { declareEntriesInSteps, planEntriesInSteps, RenderCache, type Steps } from '../src/entries/index.js';
import { benchSettings, syntheticCluster } from './cluster.js';
import { numberArg, threadCpuMs } from './micro.js';


/** Runs the steps to the end, cutting a stretch wherever finishInSlices would let the event loop turn; returns the longest and the count. */
function stretches<T>(steps: Steps<T>, sliceMs: number): { value: T; longestMs: number; totalMs: number; stretches: number } {
  let longestMs = 0;
  let totalMs = 0;
  let count = 0;
  let since = threadCpuMs();
  for (;;) {
    const r = steps.next();
    const now = threadCpuMs();
    if (r.done || now - since >= sliceMs) {
      longestMs = Math.max(longestMs, now - since);
      totalMs += now - since;
      count++;
      since = now;
    }
    if (r.done) return { value: r.value, longestMs, totalMs, stretches: count };
  }
}

const pods = numberArg('pods', 100_000);
const runs = numberArg('runs', 3);
const sliceMs = numberArg('slice-ms', 5);
const settings = { ...benchSettings(), renderCache: new RenderCache() };
const snapshot = syntheticCluster(pods);
const ownership = { entryIDPrefix: 'scm-', entryScope: 'prefixed' as const };
for (let r = 0; r < runs; r++) {
  for (const slice of [Infinity, sliceMs]) {
    const render = stretches(declareEntriesInSteps(snapshot, settings), slice);
    const declared = render.value;
    const current = declared.entries.map((e, i) => ({ id: `scm-${i}`, key: e.key, spec: e.spec, revision: undefined, ...(e.podUid ? { podUid: e.podUid } : {}) }));
    const plan = stretches(planEntriesInSteps({ declared: declared.entries, current, ownership, policy: 'sync', unknownPods: declared.unknownPods }), slice);
    const how = slice === Infinity ? 'one step' : `slices of ${sliceMs} ms`;
    console.log(
      `${pods} pods, run ${r + 1}, ${how}: render ${render.totalMs.toFixed(0)} ms CPU in ${render.stretches} stretches, longest ${render.longestMs.toFixed(1)} ms; plan ${plan.totalMs.toFixed(0)} ms in ${plan.stretches}, longest ${plan.longestMs.toFixed(1)} ms`,
    );
  }
}
