import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, memoryLog, type World, worldWithPods } from '../live/world.js';
import { expectPromisesKept, FaultLedger, PROMISES_KEPT } from './ledger.js';

const PODS = 1600;

describe('fault: a leader whose event loop stalls past its lease sends no write when it runs again (issue 15, item 5)', () => {
  let w: World;
  beforeEach(async () => {
    w = await worldWithPods(PODS, {
      leaderElection: { leaderElect: true, resourceName: 'spire-reconciler-test', resourceNamespace: 'spire-server', leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 },
    });
  });
  afterEach(async () => {
    await w.close();
  });

  // SPIRE holds four write batches and answers them together; the controller's event loop stalls
  // for 3 s (past the 2 s renew deadline) while handling the first answer, the others read with it.
  it('the loop stalls while answers to its write batches arrive: it starts no further batch once it runs again', async () => {
    const ledger = new FaultLedger('leader event loop stalled past its lease while write answers arrive', w.spire.server);
    ledger.seedForeign();
    const { log, lines } = memoryLog();
    const became = () => lines.filter((l) => /became leader/.test(l.msg)).map((l) => l.time);
    let armed = false;
    let stallEnded = 0;
    ledger.start();
    const calls = w.spire.server.calls;
    const batches = () => calls.filter((c) => c.method === 'BatchCreateEntry' && c.items === 200);
    w.spire.server.faults.delay(300);
    await w.start({
      log,
      // Runs in the controller's SPIRE answer path: blocking here stalls its event loop as a long
      // GC pause or a CPU-starved process would, with the other answers already read.
      observeSpireRpc: (rpc) => {
        if (!armed || rpc !== 'Entry.BatchCreateEntry') return;
        armed = false;
        const until = Date.now() + 3_000;
        while (Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
        stallEnded = Date.now();
      },
    });
    await eventually(() => batches().length >= 1, 'a first batch reaches SPIRE', 60_000);
    w.spire.server.faults.stall();
    await eventually(() => batches().length >= 4, 'four batches wait at SPIRE');
    armed = true;
    w.spire.server.faults.release();
    await eventually(() => stallEnded > 0, 'the stall');
    await eventually(() => became().length >= 2, 'it leads again', 30_000);
    expect(lines.some((l) => l.msg === 'lost leadership: failed to renew the lease within the renew deadline')).toBe(true);
    // Before the deadline was checked on the clock, the answers read with the first one each started
    // the next batch (four, as in the report) before the deadline timer could run.
    const late = calls.filter((c) => /^Batch(Create|Update|Delete)Entry$/.test(c.method) && c.at >= stallEnded && c.at < became()[1]!);
    expect(late.map((c) => `${c.method} x${c.items}`)).toEqual([]);
    w.spire.server.faults.delay(0);
    await eventually(() => w.spire.server.entries.all().filter((e) => e.spiffeId.path.startsWith('/pod/')).length === PODS, 'every pod has its entry', 60_000);
    ledger.converged();
    const report = ledger.report();
    expect(expectPromisesKept(report)).toEqual(PROMISES_KEPT);
  }, 120_000);
});
