/**
 * Micro-benchmark: the longest synchronous stretch of each step of a live
 * full pass at N pods besides render and plan (bench/full-pass-stretches.ts
 * has those): the list of SPIRE's entries installed into the in-memory state,
 * the cache snapshot, the state's values, the plan cut by the scheduler, the
 * record of the writes, the status computed and published, and the problems.
 * The pass is one after pod events: SPIRE holds every entry but those of the
 * last `--fresh` pods, which the pass creates. Times are the main thread's own
 * CPU time; a stretch includes any garbage collection pause in it, and is
 * also given without them, and in wall time (finer than the thread CPU
 * clock where the kernel samples it at each tick, and stretched by other
 * processes on a loaded machine). Not a
 * test: it prints figures and asserts nothing.
 * Steps that live mode runs in slices are measured both in one step (as
 * manifest mode and the CLI run them) and in slices of `--slice-ms`.
 *   npx tsx bench/full-pass-steps.ts [--pods 100000] [--runs 3] [--slice-ms 5] [--fresh 100]
 */
import { PerformanceObserver, performance } from 'node:perf_hooks';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  type ApplyResult,
  computeStatus,
  computeStatusInSteps,
  type CurrentEntry,
  CurrentState,
  declareEntriesInSteps,
  entryPassProblems,
  finish,
  planEntriesInSteps,
  RenderCache,
  type Steps,
  toSpire,
} from '../src/entries/index.js';
import { ObjectStore } from '../src/kube/object-store.js';
import { StatusPublisher } from '../src/kube/status-publisher.js';
import { PassScheduler } from '../src/manager/scheduler.js';
import type { EntryOut } from '../src/spire/index.js';
import { benchSettings, syntheticCluster } from './cluster.js';
import { numberArg, threadCpuMs } from './micro.js';


interface Stretch {
  from: number;
  to: number;
  cpu: number;
}

// Every garbage collection pause, on performance.now()'s clock.
const gcPauses: { from: number; to: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push({ from: e.startTime, to: e.startTime + e.duration });
}).observe({ entryTypes: ['gc'] });

/** The longest stretch, and the longest once the garbage collection pauses in each are taken out (the observer reports them a turn later). */
async function longest(stretches: Stretch[]): Promise<string> {
  await new Promise((r) => setTimeout(r, 10));
  let all = 0;
  let own = 0;
  let wall = 0;
  for (const s of stretches) {
    const gc = gcPauses.filter((g) => g.from >= s.from && g.to <= s.to).reduce((t, g) => t + g.to - g.from, 0);
    all = Math.max(all, s.cpu);
    own = Math.max(own, s.cpu - gc);
    wall = Math.max(wall, s.to - s.from);
  }
  return `${all.toFixed(1)} (${Math.max(0, own).toFixed(1)} without GC, wall ${wall.toFixed(1)})`;
}

/** Runs the steps to the end, cutting a stretch wherever finishInSlices would let the event loop turn. */
function stepsStretches<T>(steps: Steps<T>, sliceMs: number): { value: T; stretches: Stretch[] } {
  const stretches: Stretch[] = [];
  let since = { wall: performance.now(), cpu: threadCpuMs() };
  for (;;) {
    const r = steps.next();
    const now = { wall: performance.now(), cpu: threadCpuMs() };
    if (r.done || now.wall - since.wall >= sliceMs) {
      stretches.push({ from: since.wall, to: now.wall, cpu: now.cpu - since.cpu });
      since = now;
    }
    if (r.done) return { value: r.value, stretches };
  }
}

/** The CPU stretches between two turns of the event loop (a setImmediate chain) while `fn` runs. */
async function turnStretches<T>(fn: () => Promise<T>): Promise<{ value: T; stretches: Stretch[] }> {
  const stretches: Stretch[] = [];
  let since = { wall: performance.now(), cpu: threadCpuMs() };
  let on = true;
  const cut = () => {
    const now = { wall: performance.now(), cpu: threadCpuMs() };
    stretches.push({ from: since.wall, to: now.wall, cpu: now.cpu - since.cpu });
    since = now;
  };
  const tick = () => {
    cut();
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  const value = await fn();
  on = false;
  cut();
  return { value, stretches };
}

/** One synchronous call as a stretch. */
function timed<T>(fn: () => T): { value: T; stretches: Stretch[] } {
  const from = { wall: performance.now(), cpu: threadCpuMs() };
  const value = fn();
  return { value, stretches: [{ from: from.wall, to: performance.now(), cpu: threadCpuMs() - from.cpu }] };
}

const pods = numberArg('pods', 100_000);
const runs = numberArg('runs', 3);
const sliceMs = numberArg('slice-ms', 5);
const fresh = numberArg('fresh', 100);
const PAGE = 200;
const settings = { ...benchSettings(), renderCache: new RenderCache() };
const snapshot = syntheticCluster(pods);
const declared = finish(declareEntriesInSteps(snapshot, settings));
const ownership = { entryIDPrefix: 'scm-', entryScope: 'prefixed' as const };
const held = declared.entries.slice(0, declared.entries.length - fresh);
const raws: EntryOut[] = held.map((e, i) => ({
  ...(toSpire(e.spec, `scm-${i}`) as unknown as EntryOut),
  expires_at: '0',
  created_at: '0',
  revision_number: '1',
}));

/** SPIRE's list as pages, the event loop turning between them as it does between gRPC answers; `between` runs before page i. */
async function* pagesOf(entries: EntryOut[], between?: (page: number) => void): AsyncGenerator<EntryOut[]> {
  for (let i = 0; i * PAGE < entries.length; i++) {
    await new Promise((r) => setImmediate(r));
    between?.(i);
    yield entries.slice(i * PAGE, (i + 1) * PAGE);
  }
}

const NOTHING = (): ApplyResult => ({ created: 0, updated: 0, deleted: 0, failures: [], failedKeys: new Set(), heldBack: [], assigned: new Map() });

/** The longest stretches of lists installed into a state that slices them (`slice`) or not (undefined), the same three as in live mode. */
async function lists(r: number, slice: number | undefined): Promise<string> {
  const state = new CurrentState(10_000, Date.now, slice);
  await state.replaceFromPages(pagesOf(raws));
  // The list installed: nothing new; a pod pass's create recorded during it (as in live mode); the last page's entry at a new revision.
  const idle = await turnStretches(() => state.replaceFromPages(pagesOf(raws)));
  const last = declared.entries.at(-1)!;
  const podCreate = (page: number) => {
    if (page !== 1) return;
    const c = { id: `pod-pass-${r}`, key: last.key, spec: last.spec, owner: last.owner };
    state.record({ creates: [c], updates: [], deletes: [], conflicts: [], kept: [], keys: new Map(), adopted: [], outsideScope: 0 }, { ...NOTHING(), created: 1 });
  };
  const during = await turnStretches(() => state.replaceFromPages(pagesOf(raws, podCreate)));
  const changedLast = raws.map((e, i) => (i === raws.length - 1 ? { ...e, revision_number: '2' } : e));
  const lastChanged = await turnStretches(() => state.replaceFromPages(pagesOf(changedLast)));
  return `list idle ${await longest(idle.stretches)}, with a write during it ${await longest(during.stretches)}, with the last entry changed ${await longest(lastChanged.stretches)}`;
}

for (let r = 0; r < runs; r++) {
  const line: string[] = [];
  line.push(`one step: ${await lists(r, undefined)}`);
  line.push(`slices: ${await lists(r, sliceMs)}`);
  // A list leaves the state certain: the pass then plans against its values.
  const state = new CurrentState(10_000);
  await state.replaceFromPages(pagesOf(raws));

  const store = new ObjectStore(snapshot.pods as unknown as KubernetesObject[]);
  line.push(`snapshot (pods) ${await longest(timed(() => store.list()).stretches)}`);
  const values = timed(() => state.values());
  line.push(`state values ${await longest(values.stretches)}`);
  const current: CurrentEntry[] = values.value;
  const plan = finish(planEntriesInSteps({ declared: declared.entries, current, ownership, policy: 'sync', unknownPods: declared.unknownPods }));
  const scheduler = new PassScheduler();
  scheduler.snapshotted();
  const writable = timed(() => scheduler.planned(plan));
  line.push(`planned ${await longest(writable.stretches)}`);
  const applied: ApplyResult = { ...NOTHING(), created: plan.creates.length };
  line.push(`record ${await longest(timed(() => state.record(writable.value, applied)).stretches)}`);
  const status = timed(() => computeStatus(declared, plan, applied));
  line.push(`status one step ${await longest(status.stretches)}, slices ${await longest(stepsStretches(computeStatusInSteps(declared, plan, applied), sliceMs).stretches)}`);
  const writes: unknown[] = [];
  const publisher = new StatusPublisher({ write: (...w) => writes.push(w) }, { get: () => undefined, serviceSource: 'endpointslices', serviceSourceDenied: undefined });
  line.push(`publish ${await longest(timed(() => publisher.entries(status.value)).stretches)}`);
  line.push(`problems ${await longest(timed(() => entryPassProblems({ declared, plan, applied })).stretches)}`);
  console.log(`${pods} pods, run ${r + 1} (${plan.creates.length} creates), longest stretch in ms of CPU: ${line.join('; ')}`);
}
