import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnCli, waitForOutput } from '../support/cli.js';
import { eventually, leaderElectionFiles, type World, worldWithPods } from '../live/world.js';
import { expectPromisesKept, FaultLedger, PROMISES_KEPT } from './ledger.js';

const PODS = 1200;
// Short lease times so the test takes seconds; the ordering leaseDuration > renewDeadline > 1.2 * retryPeriod holds.
const LEASE = { leaseDuration: '3s', renewDeadline: '2s', retryPeriod: '500ms' };
const WRITES = new Set(['BatchCreateEntry', 'BatchUpdateEntry', 'BatchDeleteEntry', 'BatchCreateFederationRelationship', 'BatchUpdateFederationRelationship', 'BatchDeleteFederationRelationship']);

/** The times (pino's `time`) of the JSON log lines whose message matches. */
function logTimes(output: string, msg: RegExp): number[] {
  const out: number[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const o = JSON.parse(line) as { time?: number; msg?: string };
      if (o.time !== undefined && msg.test(o.msg ?? '')) out.push(o.time);
    } catch {
      // not a log line
    }
  }
  return out;
}

/**
 * The report's own scenario, at process level. It guards the promise but did not fail before the
 * deadline check: stopped while waiting on SPIRE, the process resumes in epoll_wait, which SIGCONT
 * interrupts (EINTR), and libuv then runs the overdue deadline timer before reading the answers. A
 * process stopped while handling those answers does not get that help; stalled-loop.test.ts
 * reproduces that case deterministically.
 */
describe('fault: a leader stopped past its lease sends no write when it runs again (issue 15, item 5)', () => {
  let w: World;
  let leader: ReturnType<typeof spawnCli> | undefined;
  beforeEach(async () => {
    w = await worldWithPods(PODS);
  });
  afterEach(async () => {
    if (leader && leader.exitCode === null) {
      leader.kill('SIGCONT');
      leader.kill('SIGKILL');
    }
    await w.close();
  });

  it('SIGSTOP while its write batches are in flight, SIGCONT after the lease expired: nothing is written until it leads again', async () => {
    const ledger = new FaultLedger('leader SIGSTOPped mid-write past its lease, then SIGCONTed', w.spire.server);
    ledger.seedForeign();
    const { kubeconfig, config } = leaderElectionFiles(w, LEASE);
    // Every call is answered a second late, so the leader has write batches in flight for seconds.
    w.spire.server.faults.delay(1_000);
    ledger.start();
    leader = spawnCli(['run', '--config', config], { env: { KUBECONFIG: kubeconfig } });
    await waitForOutput(leader, /became leader/, 60_000);
    const calls = w.spire.server.calls;
    // Stopped while it waits for SPIRE's answers to its first batches (as in the report: a leader
    // frozen while waiting on I/O), so that on SIGCONT those answers are what it handles first.
    await eventually(() => calls.filter((c) => c.method === 'BatchCreateEntry' && c.items === 200).length >= 4, 'the first batches of pod entries reach SPIRE', 60_000);
    leader.kill('SIGSTOP');
    const stoppedAt = Date.now();
    // Past the lease duration: a standby would have taken over by now.
    await new Promise((r) => setTimeout(r, 4_000));
    const resumedAt = Date.now();
    leader.kill('SIGCONT');

    await waitForOutput(leader, /lost leadership/, 30_000);
    await eventually(() => logTimes(leader!.output(), /became leader/).length >= 2, 'it leads again, with a new lease', 30_000);
    const relected = logTimes(leader.output(), /became leader/)[1]!;
    const lost = logTimes(leader.output(), /lost leadership/)[0]!;
    expect(lost).toBeLessThanOrEqual(relected);
    // Nothing reached SPIRE while the process was stopped. After SIGCONT, before its new term, only
    // batches it had handed to gRPC before the stop may still arrive (frozen mid-send, they go out
    // as it resumes); none may be started after the deadline. The old term had started at most
    // writeConcurrency (4) batches, plus one more for each answered before the stop (SPIRE answers
    // each a second after it arrives).
    const writes = calls.filter((c) => WRITES.has(c.method));
    // (A signal takes a moment to land: a write may still leave just after kill() returned.)
    expect(writes.filter((c) => c.at > stoppedAt + 200 && c.at < resumedAt)).toEqual([]);
    const batches = calls.filter((c) => c.method === 'BatchCreateEntry' && c.items === 200);
    const arrivedBefore = batches.filter((c) => c.at <= stoppedAt).length;
    const answeredBefore = batches.filter((c) => c.at < stoppedAt - 1_000).length;
    const startedBefore = Math.min(PODS / 200, 4 + answeredBefore);
    const late = writes.filter((c) => c.at > stoppedAt && c.at < relected);
    expect(late.every((c) => c.method === 'BatchCreateEntry' && c.items === 200)).toBe(true);
    expect(late.length).toBeLessThanOrEqual(startedBefore - arrivedBefore);

    // The new term finishes the job.
    w.spire.server.faults.delay(0);
    await eventually(() => w.spire.server.entries.all().filter((e) => e.spiffeId.path.startsWith('/pod/')).length === PODS, 'every pod has its entry', 60_000);
    ledger.converged();
    const report = ledger.report();
    expect(expectPromisesKept(report)).toEqual(PROMISES_KEPT);
    expect(report.entriesAfter).toBe(report.entriesBefore + PODS);
  }, 180_000);
});
