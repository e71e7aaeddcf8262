import { afterEach, describe, expect, it } from 'vitest';
import { DRIFT_SCAN_PAGE } from '../../src/entries/drift-scan.js';
import { ControllerMetrics } from '../../src/manager/metrics.js';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { eventually, TD, type World, worldWithPods } from './world.js';

// 2,100 entries in the drift scan's pages of 1,000: a walk over them is two full pages and a short one.
const PODS = 2100;
const PAGE = DRIFT_SCAN_PAGE;
/** gcIntervals a whole cycle of the drift scan takes at one page per gcInterval (docs/reliability.md, "Drift on the SPIRE server"). */
const CYCLE = Math.floor(PODS / PAGE) + 1;
const GC_INTERVAL_MS = 250;

let w: World;
let metrics: ControllerMetrics;
afterEach(async () => {
  await w.close();
});

/** A world whose controller checks SPIRE every GC_INTERVAL_MS, `perInterval` entries at a time, with every pod's entry written. */
async function started(perInterval: number): Promise<World> {
  w = await worldWithPods(PODS, { gcIntervalMs: GC_INTERVAL_MS, gcEntriesPerInterval: perInterval });
  metrics = new ControllerMetrics();
  await w.start({ metrics });
  await eventually(() => w.spire.server.entries.size === PODS, 'every entry', 60_000);
  return w;
}

const callsOf = (method: string, from = 0) => w.spire.server.calls.slice(from).filter((c) => c.method === method);
/** gcIntervals (drift checks: one CountEntries each) since call `from`. */
const checksSince = (from: number) => callsOf('CountEntries', from).length;
const paths = () => new Set(w.spire.server.entries.all().map((e) => e.spiffeId.path));
/** spire_reconciler_drift_checks_total for `result`. */
const driftChecks = async (result: 'none' | 'drift') =>
  Number(new RegExp(`^spire_reconciler_drift_checks_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(await metrics.registry.metrics())?.[1] ?? Number.NaN);

describe('an idle gcInterval lists a slice of the entries, not all of them', () => {
  it('one count and one page per gcInterval, a walk from the first page once a cycle, no writes', async () => {
    await started(PAGE);
    await eventually(() => checksSince(0) >= 1, 'the first check');
    const from = w.spire.server.calls.length;
    await eventually(() => checksSince(from) >= 2 * CYCLE + 1, 'two cycles of checks', 30_000);
    const calls = w.spire.server.calls.slice(from);
    const masked = (c: (typeof calls)[number]) => c.method === 'ListEntries' && c.outputMask?.revision_number === true && c.outputMask.spiffe_id !== true;
    // Between one check's count and the next: one page of IDs and revisions.
    const counts = calls.flatMap((c, i) => (c.method === 'CountEntries' ? [i] : []));
    for (let k = 0; k + 1 < counts.length; k++) expect(calls.slice(counts[k], counts[k + 1]).filter(masked)).toHaveLength(1);
    // No list of whole entries: nothing drifted.
    expect(calls.filter((c) => c.method === 'ListEntries' && !masked(c))).toEqual([]);
    // A cycle's pages: the first without a token, then one per gcInterval to the empty page.
    expect(calls.filter((c) => masked(c) && c.pageToken === '').length).toBeLessThanOrEqual(3);
    expect(calls.filter((c) => c.method.startsWith('Batch'))).toEqual([]);
    // Each check counted, none as drift.
    expect(await driftChecks('none')).toBeGreaterThanOrEqual(2 * CYCLE + 1);
    expect(await driftChecks('drift')).toBe(0);
  });

  it('with gcEntriesPerInterval 0, every gcInterval lists every entry, as upstream', async () => {
    await started(0);
    const from = w.spire.server.calls.length;
    await eventually(() => callsOf('ListEntries', from).filter((c) => c.pageToken === '').length >= 3, 'three full lists', 30_000);
    expect(callsOf('CountEntries', from)).toEqual([]);
    // Every full list reads every page, the empty last one included.
    expect(callsOf('ListEntries', from).length).toBeGreaterThanOrEqual(2 * CYCLE);
  });
});

describe('drift made behind our back is repaired within the bound', () => {
  it('an entry deleted on the server: at the next gcInterval (the count)', async () => {
    await started(PAGE);
    const [gone] = w.spire.server.entries.all();
    const from = w.spire.server.calls.length;
    await w.spire.raw.entry.BatchDeleteEntry({ ids: [gone!.id] });
    await eventually(() => w.spire.server.entries.size === PODS && paths().has(gone!.spiffeId.path), 'the entry is back', 30_000);
    // The check in flight when it went may have counted before it; the next one finds it.
    expect(checksSince(from)).toBeLessThanOrEqual(2);
    expect(await driftChecks('drift')).toBe(1);
  });

  it('an entry changed on the server: within one cycle of gcIntervals', async () => {
    await started(PAGE);
    // The last entry: the walk reaches it at the end of a cycle.
    const changed = w.spire.server.entries.all().at(-1)!;
    const from = w.spire.server.calls.length;
    await w.spire.raw.entry.BatchUpdateEntry({ entries: [{ id: changed.id, hint: 'changed behind our back' }], input_mask: { hint: true } });
    const hint = () => w.spire.server.entries.all().find((e) => e.id === changed.id)?.hint;
    await eventually(() => hint() === '', 'the entry is as declared again', 30_000);
    expect(checksSince(from)).toBeLessThanOrEqual(CYCLE + 1);
    expect(await driftChecks('drift')).toBe(1);
  });

  it('SPIRE restarted with an empty datastore: every entry at the next gcInterval', async () => {
    await started(PAGE);
    const before = paths();
    await w.spire.server.stop();
    const fresh = await MemorySpireServer.start({ socketPath: w.spire.socketPath, trustDomain: TD });
    try {
      const restored = () => fresh.entries.size === PODS && [...before].every((p) => fresh.entries.all().some((e) => e.spiffeId.path === p));
      await eventually(restored, 'every entry is back', 60_000);
      expect(fresh.calls.filter((c) => c.method === 'CountEntries').length).toBeLessThanOrEqual(2);
    } finally {
      await fresh.stop();
    }
  });
});
