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

describe('fault: a ClusterStaticEntry edited to an entry SPIRE refuses keeps its old entry (issue 15, item 1)', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld({ federatesWithMissingBundle: 'fail' });
  });
  afterEach(async () => {
    await w.close();
  });

  it('keeps the workload identified through every refused edit, and replaces the entry once an edit is accepted', async () => {
    const ledger = new FaultLedger('ClusterStaticEntry edited to entries SPIRE refuses', w.spire.server);
    ledger.seedForeign();
    w.kube.create(staticEntry({}));
    const live = await w.start();
    const byPath = (path: string) => w.spire.server.entries.all().find((e) => e.spiffeId.path === path);
    await eventually(() => byPath('/gateway') !== undefined, 'the static entry exists');
    const old = byPath('/gateway')!.id;
    ledger.start();

    const status = () => (w.kube.get(GROUP, 'ClusterStaticEntry', 'gateway') as { status?: { set?: boolean } }).status;
    // Each edit changes the entry's key, so the old entry is planned for deletion and a new one for
    // creation, which SPIRE refuses: a path in its reserved /spire namespace, duplicate selectors,
    // a federated trust domain it has no bundle for (with federatesWithMissingBundle: fail).
    const refused = [
      { spiffeID: '/spire/gateway' },
      { spiffeID: '/gateway-2', selectors: ['unix:uid:1000', 'unix:uid:1000'] },
      { spiffeID: '/gateway-3', federatesWith: ['partner.org'] },
    ];
    for (const spec of refused) {
      const creates = w.spire.server.calls.filter((c) => c.method === 'BatchCreateEntry').length;
      const current = w.kube.get(GROUP, 'ClusterStaticEntry', 'gateway') as { metadata: object; spec: object };
      w.kube.update({ ...current, spec: { ...staticEntry({}).spec, ...spec } });
      await eventually(() => w.spire.server.calls.filter((c) => c.method === 'BatchCreateEntry').length > creates, `SPIRE is asked to create ${JSON.stringify(spec)}`);
      await live.idle();
      expect(byPath('/gateway')?.id).toBe(old);
      await eventually(() => status()?.set === false, 'the status says the entry is not set');
    }

    // An edit SPIRE accepts replaces the entry: the old one may go now.
    ledger.release([old]);
    ledger.clockFrom();
    const current = w.kube.get(GROUP, 'ClusterStaticEntry', 'gateway') as { metadata: object };
    w.kube.update({ ...current, spec: staticEntry({ spiffeID: '/gateway-v2' }).spec });
    await eventually(() => byPath('/gateway-v2') !== undefined && byPath('/gateway') === undefined, 'the entry is replaced');
    ledger.converged();
    await eventually(() => status()?.set === true, 'the status says the entry is set');

    const report = ledger.report();
    expect(expectPromisesKept(report)).toEqual(PROMISES_KEPT);
    expect(report.entriesAfter).toBe(report.entriesBefore);
  });
});
