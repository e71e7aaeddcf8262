import { afterEach, describe, expect, it } from 'vitest';
import type { ControllerConfig } from '../../src/api/index.js';
import type { LiveController } from '../../src/manager/live.js';
import { eventually, memoryLog, pod, type World, worldWithPods } from '../live/world.js';
import { expectPromisesKept, FaultLedger, PROMISES_KEPT } from './ledger.js';

const PODS = 1000;
/** SPIRE answers every call this late. */
const DELAY_MS = 2_000;
/** Entries on the server besides the pods' own: with them it holds 5,000, a first list of 25 pages (200 per page), 50 s at DELAY_MS. */
const OTHERS = 4_000;
/** ListEntries calls a full list of those entries takes, at least. */
const LIST_PAGES = (PODS + OTHERS) / 200;
const LEASE = { leaderElect: true, resourceName: 'spire-reconciler-test', resourceNamespace: 'spire-server', leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };

type Log = ReturnType<typeof memoryLog>;

/** Entries of another cluster's agents (IDs outside our prefix): the controller lists them and leaves them alone. */
function seedOthers(w: World, count: number): void {
  w.spire.server.seed({
    entries: Array.from({ length: count }, (_, i) => ({
      id: `other-cluster-${i}`,
      spiffe_id: { trust_domain: 'example.org', path: `/other/${i}` },
      parent_id: { trust_domain: 'example.org', path: '/spire/agent/k8s_psat/other/node' },
      selectors: [{ type: 'k8s', value: `pod-uid:other-${i}` }],
    })),
  });
}

const podEntries = (w: World) => w.spire.server.entries.all().filter((e) => e.spiffeId.path.startsWith('/pod/')).length;
const hasEntry = (w: World, name: string) => w.spire.server.entries.all().some((e) => e.spiffeId.path === `/pod/${name}`);
const listPages = (w: World, from: number) => w.spire.server.calls.slice(from).filter((c) => c.method === 'ListEntries').length;
// Logged (debug) by a full pass that completed; first-list batches and pod passes do not log it.
const fullPassesDone = (l: Log) => l.lines.filter((x) => x.msg === 'reconciled').length;
const alreadyRegistered = (l: Log) => l.lines.reduce((n, x) => n + (x.msg === 'created entries for changed pods' ? ((x as { alreadyRegistered?: number }).alreadyRegistered ?? 0) : 0), 0);

/**
 * Creates a pod once `when` holds and waits for its entry, with SPIRE slow: prints how long that
 * took and how many ListEntries pages SPIRE answered meanwhile (a full list takes 25). A
 * benchmark figure, not an assertion.
 */
async function newPodWait(w: World, name: string, scenario: string, when: () => boolean = () => true): Promise<{ at: number }> {
  await eventually(when, `the moment to create pod ${name}`, 60_000);
  const from = w.spire.server.calls.length;
  const created = Date.now();
  w.kube.create(pod('default', name));
  await eventually(() => hasEntry(w, name), `the entry of pod ${name}`, 200_000);
  const ms = Date.now() - created;
  console.log(`slow SPIRE (${DELAY_MS} ms per call, ${PODS} pods, ${PODS + OTHERS} entries), ${scenario}: new pod's entry after ${(ms / 1000).toFixed(1)} s (${listPages(w, from)} ListEntries pages answered meanwhile)`);
  return { at: w.spire.server.calls.length };
}

/**
 * The scenario's two new pods: one made at once, one once the first list of SPIRE's entries is
 * 5 pages in (past the probe). Both have their entries while that list is still under way, so
 * before the first full pass of the controller (or term) that began at call `since` has taken
 * its snapshot: written by a pod pass, not by that full pass.
 */
async function newPods(w: World, log: Log, scenario: string, since: number): Promise<void> {
  const entries = await Promise.all([
    newPodWait(w, 'newcomer', `pod created ${scenario}`),
    newPodWait(w, 'latecomer', `pod created ${scenario}, 5 list pages in`, () => listPages(w, since) >= 5),
  ]);
  for (const { at } of entries) expect(w.spire.server.calls.slice(since, at).filter((c) => c.method === 'ListEntries').length).toBeLessThan(LIST_PAGES);
  expect(fullPassesDone(log)).toBe(0);
}

/** A pod that has its entry changes in a way that leaves its entry as it is (a label no selector reads). */
function touch(w: World, name: string): void {
  const p = w.kube.get('v1', 'Pod', name, 'default') as { metadata: { labels: Record<string, string> } };
  w.kube.update({ ...p, metadata: { ...p.metadata, labels: { ...p.metadata.labels, touched: 'yes' } } });
}

/** The fault begins: the ledger counts from now, protecting what SPIRE holds, and SPIRE answers every call DELAY_MS late. Returns where its call log stands. */
function slowFrom(w: World, scenario: string): { ledger: FaultLedger; since: number } {
  const ledger = new FaultLedger(scenario, w.spire.server);
  ledger.seedForeign();
  ledger.start();
  w.spire.server.faults.delay(DELAY_MS);
  return { ledger, since: w.spire.server.calls.length };
}

/** SPIRE fast again; every pod has its entry, the promises of the fault suite hold, and nothing was warned about. */
async function settle(w: World, ledger: FaultLedger, live: LiveController, log: Log, pods: number): Promise<void> {
  w.spire.server.faults.delay(0);
  await eventually(() => podEntries(w) === pods, 'every pod has its entry', 60_000);
  await live.idle();
  ledger.converged();
  const report = ledger.report();
  expect(expectPromisesKept(report)).toEqual(PROMISES_KEPT);
  expect(log.lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([]);
}

describe('fault: a slow SPIRE server does not starve new pods at start, restart or takeover (issue 25, item 1)', () => {
  let w: World;
  afterEach(async () => {
    await w.close();
  });

  const world = async (over: Partial<ControllerConfig> = {}) => {
    w = await worldWithPods(PODS, over);
    return w;
  };

  it("writes a pod's entry while the controller starts, before its first full pass completes", async () => {
    await world();
    // None of these entries is ours: the controller creates every pod's entry, after listing all 5,000.
    seedOthers(w, OTHERS + PODS);
    const { ledger, since } = slowFrom(w, 'SPIRE answers every call 2 s late while the controller starts');
    const log = memoryLog('debug');
    const live = await w.start({ log: log.log });
    await newPods(w, log, 'as the controller starts', since);
    await settle(w, ledger, live, log, PODS + 2);
  }, 240_000);

  it("writes a pod's entry after a restart, before the new process's first full pass completes", async () => {
    await world();
    seedOthers(w, OTHERS);
    const first = await w.start();
    await eventually(() => podEntries(w) === PODS, 'every pod has its entry', 60_000);
    await first.idle();
    w.controllers[0]!.stop.abort();
    await first.done;
    const { ledger, since } = slowFrom(w, 'SPIRE answers every call 2 s late while the controller restarts');
    const log = memoryLog('debug');
    const live = await w.start({ log: log.log });
    // A pod whose entry SPIRE holds changes too: the create-only pass finds it registered.
    touch(w, 'p-0');
    await newPods(w, log, 'as the controller restarts', since);
    expect(alreadyRegistered(log)).toBe(1);
    await settle(w, ledger, live, log, PODS + 2);
  }, 240_000);

  it("writes a pod's entry after a takeover, before the new leader's first full pass completes", async () => {
    await world({ leaderElection: LEASE });
    seedOthers(w, OTHERS);
    const leader = await w.start({ identity: 'first' });
    await eventually(() => podEntries(w) === PODS, 'every pod has its entry', 60_000);
    await leader.idle();
    const log = memoryLog('debug');
    const standby = await w.start({ identity: 'second', log: log.log });
    const { ledger, since } = slowFrom(w, 'SPIRE answers every call 2 s late while a standby takes over');
    // A graceful stop releases the Lease: the standby takes it within a retry period.
    w.controllers[0]!.stop.abort();
    await leader.done;
    touch(w, 'p-0');
    await newPods(w, log, 'as the leader hands over', since);
    expect(log.lines.some((l) => /^became leader/.test(l.msg))).toBe(true);
    expect(alreadyRegistered(log)).toBe(1);
    await settle(w, ledger, standby, log, PODS + 2);
  }, 240_000);
});
