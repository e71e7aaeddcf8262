import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startWorld, type World } from '../live/world.js';
import { expectPromisesKept, FaultLedger, PROMISES_KEPT } from './ledger.js';

const GROUP = 'spire.spiffe.io/v1alpha1';
const staticEntry = (spec: Record<string, unknown>) => ({
  apiVersion: GROUP,
  kind: 'ClusterStaticEntry',
  metadata: { name: 'gateway' },
  spec: { spiffeID: '/gateway', parentID: '/spire/server', selectors: ['unix:uid:1000'], ...spec },
});

describe('fault: a ClusterStaticEntry edited to an entry that is not written keeps its old entry (issue 15, item 1)', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld({ federatesWithMissingBundle: 'fail' });
  });
  afterEach(async () => {
    await w.close();
  });

  it('keeps the workload identified through every edit that is refused or fails, and replaces the entry once one is written', async () => {
    const ledger = new FaultLedger('ClusterStaticEntry edited to entries that are not written', w.spire.server);
    ledger.seedForeign();
    w.kube.create(staticEntry({}));
    const live = await w.start();
    const byPath = (path: string) => w.spire.server.entries.all().find((e) => e.spiffeId.path === path);
    await eventually(() => byPath('/gateway') !== undefined, 'the static entry exists');
    const old = byPath('/gateway')!.id;
    ledger.start();

    const status = () => (w.kube.get(GROUP, 'ClusterStaticEntry', 'gateway') as { status?: { set?: boolean } }).status;
    const edit = async (spec: Record<string, unknown>) => {
      const passes = live.passes();
      const current = w.kube.get(GROUP, 'ClusterStaticEntry', 'gateway') as { metadata: object };
      w.kube.update({ ...current, spec: staticEntry(spec).spec });
      await eventually(() => live.passes() > passes, 'a pass after the edit');
      await live.idle();
    };
    // Each edit changes the entry's key: the old entry is planned for deletion and a new one for
    // creation. SPIRE refuses a federated trust domain it has no bundle for (with
    // federatesWithMissingBundle: fail); the checks refuse an ID in SPIRE's reserved /spire
    // namespace and duplicate selectors before anything is sent. Either way the old entry stays.
    for (const spec of [{ spiffeID: '/gateway-3', federatesWith: ['partner.org'] }, { spiffeID: '/spire/gateway' }, { spiffeID: '/gateway-2', selectors: ['unix:uid:1000', 'unix:uid:1000'] }]) {
      await edit(spec);
      expect(byPath('/gateway')?.id).toBe(old);
      await eventually(() => status()?.set === false, 'the status says the entry is not set');
    }
    expect(w.spire.server.calls.some((c) => c.method === 'BatchCreateEntry' && c.items === 1)).toBe(true);

    // A valid edit whose create call fails whole (SPIRE unavailable): the old entry stays through
    // that pass, and the retry writes the new one, which may then replace it.
    w.spire.server.faults.failNext(1, 14, { method: 'BatchCreateEntry' });
    await edit({ spiffeID: '/gateway-v2' });
    expect(byPath('/gateway')?.id).toBe(old);
    ledger.release([old]);
    ledger.clockFrom();
    await eventually(() => byPath('/gateway-v2') !== undefined && byPath('/gateway') === undefined, 'the entry is replaced after the retry', 30_000);
    ledger.converged();
    await eventually(() => status()?.set === true, 'the status says the entry is set');

    const report = ledger.report();
    expect(expectPromisesKept(report)).toEqual(PROMISES_KEPT);
    expect(report.entriesAfter).toBe(report.entriesBefore);
  });
});
