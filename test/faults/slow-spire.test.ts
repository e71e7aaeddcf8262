import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, pod, type World, worldWithPods } from '../live/world.js';
import { expectPromisesKept, FaultLedger, PROMISES_KEPT } from './ledger.js';

const PODS = 1000;
/** SPIRE's list pages hold 200 entries: a full list of the pods' entries is this many calls. */
const PAGES = PODS / 200;

describe('fault: a slow SPIRE server does not starve pod events (issue 15, item 6)', () => {
  let w: World;
  beforeEach(async () => {
    // Full passes due every 2 s: with SPIRE answering each call a second late, each one takes longer than that.
    w = await worldWithPods(PODS, { gcIntervalMs: 2_000 });
  });
  afterEach(async () => {
    await w.close();
  });

  it("writes a new pod's entry while a full resync is still listing", async () => {
    const ledger = new FaultLedger('SPIRE answers every call 1 s late; full passes longer than gcInterval', w.spire.server);
    ledger.seedForeign();
    const live = await w.start();
    const podEntries = () => w.spire.server.entries.all().filter((e) => e.spiffeId.path.startsWith('/pod/')).length;
    await eventually(() => podEntries() === PODS, 'every pod has its entry', 60_000);
    // Steady state: the first full pass is done (pod events before it are its to write).
    await live.idle();
    ledger.start();

    w.spire.server.faults.delay(1_000);
    const calls = w.spire.server.calls;
    const from = calls.length;
    await eventually(() => calls.slice(from).some((c) => c.method === 'ListEntries'), 'a full pass lists the entries', 30_000);
    const listStart = calls.findIndex((c, i) => i >= from && c.method === 'ListEntries');
    w.kube.create(pod('default', 'newcomer'));
    ledger.clockFrom();
    await eventually(() => w.spire.server.entries.all().some((e) => e.spiffeId.path === '/pod/newcomer'), "the new pod's entry", 60_000);
    ledger.converged();

    // The create that wrote it reached SPIRE before the list in flight when the pod appeared was complete.
    const create = calls.findIndex((c, i) => i > listStart && c.method === 'BatchCreateEntry' && c.items === 1);
    expect(create).toBeGreaterThan(listStart);
    const pagesBefore = calls.slice(listStart, create).filter((c) => c.method === 'ListEntries').length;
    expect(pagesBefore).toBeLessThan(PAGES);

    w.spire.server.faults.delay(0);
    const report = ledger.report();
    expect(expectPromisesKept(report)).toEqual(PROMISES_KEPT);
    expect(report.entriesAfter).toBe(report.entriesBefore + 1);
  }, 120_000);
});
