import { performance } from 'node:perf_hooks';

/**
 * A long pure computation written as a generator that yields between items
 * (every SLICE_ITEMS of its loops): run to the end at once (`finish`), or in
 * stretches of about a budget of milliseconds with the event loop turning
 * between them (`finishInSlices`), so that I/O callbacks and timers of other
 * work run meanwhile. The result is the same either way.
 */
export type Steps<T> = Generator<void, T, void>;

/** Items between two yields: a yield costs far less than this many items, and a stretch overshoots its budget by at most this many. */
const SLICE_ITEMS = 256;

/** True every SLICE_ITEMS calls: where a loop of a Steps generator yields. */
export function sliceCounter(): () => boolean {
  let n = 0;
  return () => ++n % SLICE_ITEMS === 0;
}

/** Runs the steps to the end, synchronously. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs the steps to the end, letting the event loop turn whenever a stretch has run `budgetMs` or longer. */
export async function finishInSlices<T>(steps: Steps<T>, budgetMs: number): Promise<T> {
  let since = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - since >= budgetMs) {
      await turn();
      since = performance.now();
    }
  }
}

/** Runs the steps to the end: in one synchronous step without a budget, in slices of `budgetMs` with one. */
export function runSteps<T>(steps: Steps<T>, budgetMs: number | undefined): T | Promise<T> {
  return budgetMs === undefined ? finish(steps) : finishInSlices(steps, budgetMs);
}
