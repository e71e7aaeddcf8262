import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { csid, eventually, memoryLog, node, ns, pod, startWorld, type World } from '../live/world.js';
import { expectPromisesKept, FaultLedger, PROMISES_KEPT } from './ledger.js';

const PODS = 30;
const GROUP = 'spire.spiffe.io/v1alpha1';
type Stats = { namespacesSelected: number; podsSelected: number; podEntryRenderFailures: number; entriesToSet: number };

describe('fault: a broken ClusterSPIFFEID reports what it selects and that it failed, once (issue 15, item 7)', () => {
  let w: World;
  const { log, lines } = memoryLog('warn');
  beforeEach(async () => {
    lines.length = 0;
    w = await startWorld();
    w.kube.create(ns('default', { team: 'a' }));
    w.kube.create(node('node-1'));
    w.kube.create(csid('good', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
    for (let i = 0; i < PODS; i++) w.kube.create(pod('default', `p-${i}`));
  });
  afterEach(async () => {
    await w.close();
  });

  it('a syntax error, a bad selector operator, a bad TTL, and a template failing per pod: stats are not all zeros, and one line per object', async () => {
    const ledger = new FaultLedger('ClusterSPIFFEIDs broken four ways beside a good one', w.spire.server);
    ledger.seedForeign();
    const live = await w.start({ log });
    await eventually(() => w.spire.server.entries.all().filter((e) => e.spiffeId.path.startsWith('/pod/')).length === PODS, 'the good entries');
    ledger.start();

    const broken = {
      syntax: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/x/{{ .PodMeta.Name', namespaceSelector: { matchLabels: { team: 'a' } } },
      operator: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/y/{{ .PodMeta.Name }}', podSelector: { matchExpressions: [{ key: 'app', operator: 'Equals', values: ['p-1'] }] } },
      ttl: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/z/{{ .PodMeta.Name }}', ttl: '1 hour' },
      // Valid, but every pod renders "<no value>", which is no SPIFFE ID: a failure per pod.
      perpod: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/w/{{ .PodMeta.Labels.missing }}' },
    };
    // Created directly in the store, as objects stored before a webhook existed would be.
    for (const [name, spec] of Object.entries(broken)) w.kube.create(csid(name, spec));
    ledger.clockFrom();
    const stats = (name: string) => (w.kube.get(GROUP, 'ClusterSPIFFEID', name) as { status?: { stats?: Stats } }).status?.stats;
    await eventually(() => Object.keys(broken).every((n) => (stats(n)?.podEntryRenderFailures ?? 0) > 0), 'every broken object reports its failures', 30_000);
    ledger.converged();
    for (const name of Object.keys(broken)) {
      expect(stats(name)).toMatchObject({ namespacesSelected: 1, podsSelected: PODS, podEntryRenderFailures: PODS, entriesToSet: 0 });
    }

    // Each broken thing is said once (30 failing pods of `perpod` in one line, not 30), and not
    // again by passes that find it the same.
    await live.idle();
    const about = (name: string) => lines.filter((l) => l.msg.startsWith(`ClusterSPIFFEID/${name}:`)).map((l) => l.msg);
    for (const name of Object.keys(broken)) expect(about(name)).toHaveLength(1);
    expect(about('perpod')[0]).toMatch(/^ClusterSPIFFEID\/perpod: 30 pods: failed to render SPIFFE ID: .* \(e\.g\. default\/p-0, default\/p-1, default\/p-10\)$/);
    lines.length = 0;
    const passes = live.passes();
    live.trigger();
    await live.idle();
    expect(live.passes() - passes).toBeGreaterThan(0);
    for (const name of Object.keys(broken)) expect(about(name)).toEqual([]);

    const report = ledger.report();
    expect(expectPromisesKept(report)).toEqual(PROMISES_KEPT);
    expect(report.entriesAfter).toBe(report.entriesBefore);
  });
});
