/**
 * The registration-latency SLO's histogram against what a test measures
 * around it: the controller in live mode, the in-process API server and the
 * in-memory SPIRE server, the metrics scraped over HTTP. Not a timing
 * assertion: what the controller observed must lie within the test's own
 * bounds of the interval (at least SPIRE's injected delay on the write; at
 * most from before the create to after the scrape that shows it).
 */
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { serveObservability } from '../../src/manager/health.js';
import { ControllerMetrics } from '../../src/manager/metrics.js';
import { type Exposition, scrape, value } from '../manager/prom-text.js';
import { csid, eventually, node, ns, pod, startWorld, type World } from './world.js';

const H = 'spire_reconciler_registration_seconds';
const count = (e: Exposition, outcome: string, trigger = 'pod') => value(e, `${H}_count`, { outcome, trigger });
const sum = (e: Exposition, outcome: string, trigger = 'pod') => value(e, `${H}_sum`, { outcome, trigger });
const timed = (e: Exposition) => e.samples.filter((s) => s.name === `${H}_count`).reduce((n, s) => n + s.value, 0);

describe('registration latency: from the event that made a pod registrable to SPIRE acknowledging its entry', () => {
  let w: World;
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    await w.close();
  });

  /** A controller with its metrics served over HTTP; resolves once the first full pass is done. */
  async function start(world: World): Promise<{ metrics: () => Promise<Exposition>; idle: () => Promise<void>; passes: () => number }> {
    const metrics = new ControllerMetrics();
    const served = await serveObservability({ metricsBindAddress: '127.0.0.1:0', healthProbeBindAddress: '0', readinessPath: '/readyz', livenessPath: '/healthz', metrics, readiness: [], liveness: [] });
    close = served.close;
    const live = await world.start({ metrics });
    await eventually(() => live.passes() > 0, 'the first pass');
    await live.idle();
    return { metrics: () => scrape(served.metricsAddress!), idle: () => live.idle(), passes: () => live.passes() };
  }

  it('a pod created on a node: the latency observed lies between SPIRE\'s delay on its write and the time the test measured', async () => {
    w = await startWorld();
    w.kube.create(ns('default'));
    w.kube.create(node('node-1'));
    w.kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
    const c = await start(w);
    expect(timed(await c.metrics())).toBe(0);

    // Every SPIRE call answered 300 ms late: the create for the pod is acknowledged no sooner after the pod's event.
    const delay = 300;
    w.spire.server.faults.delay(delay);
    const before = performance.now();
    w.kube.create(pod('default', 'web'));
    let e = await c.metrics();
    await eventually(async () => count((e = await c.metrics()), 'created') === 1, 'the pod is timed');
    const after = performance.now();
    const observed = sum(e, 'created');
    expect(observed).toBeGreaterThanOrEqual(delay / 1000);
    expect(observed).toBeLessThanOrEqual((after - before) / 1000);
    expect(w.spire.server.entries.size).toBe(1);
    expect(timed(e)).toBe(1);
    expect(value(e, 'spire_reconciler_registrations_pending')).toBe(0);
    expect(value(e, 'spire_reconciler_registration_oldest_pending_seconds')).toBe(0);
  });

  it('times what became registrable after the start: not pods already there, nor pods no ClusterSPIFFEID selects; a relabel and a new ClusterSPIFFEID, each from its event', async () => {
    w = await startWorld();
    w.kube.create(ns('default'));
    w.kube.create(node('node-1'));
    w.kube.create(csid('web', { podSelector: { matchLabels: { app: 'web' } }, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
    w.kube.create(pod('default', 'web-0', { app: 'web' }));
    const c = await start(w);
    // Registrable before the controller started: written at start, not timed.
    expect(w.spire.server.entries.size).toBe(1);
    expect(timed(await c.metrics())).toBe(0);

    // Selected by nothing: the pass that read it finds nothing declared, and it waits no more.
    let passes = c.passes();
    w.kube.create(pod('default', 'api-0', { app: 'api' }));
    await eventually(() => c.passes() > passes, 'a pass for the pod');
    await c.idle();
    let e = await c.metrics();
    expect(timed(e)).toBe(0);
    expect(value(e, 'spire_reconciler_registrations_pending')).toBe(0);

    // Relabelled into the web ClusterSPIFFEID: timed from the relabel, as the pod's own event.
    let before = performance.now();
    w.kube.patch('v1', 'Pod', 'api-0', { metadata: { labels: { app: 'web' } } }, 'default');
    await eventually(async () => count((e = await c.metrics()), 'created') === 1, 'the relabelled pod is timed');
    expect(sum(e, 'created')).toBeLessThanOrEqual((performance.now() - before) / 1000);

    // A pod no ClusterSPIFFEID selects, then one that selects it: timed from the ClusterSPIFFEID's event.
    passes = c.passes();
    w.kube.create(pod('default', 'db-0', { app: 'db' }));
    await eventually(() => c.passes() > passes, 'a pass for the pod');
    await c.idle();
    expect(timed(await c.metrics())).toBe(1);
    before = performance.now();
    w.kube.create(csid('db', { podSelector: { matchLabels: { app: 'db' } }, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/db/{{ .PodMeta.Name }}' }));
    await eventually(async () => count((e = await c.metrics()), 'created', 'selection') === 1, 'the newly selected pod is timed');
    expect(sum(e, 'created', 'selection')).toBeLessThanOrEqual((performance.now() - before) / 1000);
    expect(w.spire.server.entries.size).toBe(3);
    await c.idle();
    expect(timed(await c.metrics())).toBe(2);
  });

  it('a pod that cannot be registered shows as waiting until it is deleted; a refused entry is timed as refused', async () => {
    w = await startWorld({ federatesWithMissingBundle: 'fail' });
    w.kube.create(ns('default'));
    w.kube.create(node('node-1'));
    w.kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
    // Federating with a trust domain SPIRE has no bundle for: SPIRE refuses the entry.
    w.kube.create(csid('fed', { podSelector: { matchLabels: { app: 'fed' } }, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/fed/{{ .PodMeta.Name }}', federatesWith: ['partner.org'] }));
    const c = await start(w);

    // On a node the cache does not hold: its parent ID cannot be rendered, so it waits.
    w.kube.create(pod('default', 'lost', { app: 'lost' }, 'node-9'));
    let e = await c.metrics();
    await eventually(async () => value((e = await c.metrics()), 'spire_reconciler_registrations_pending') === 1, 'the pod waits');
    await new Promise((r) => setTimeout(r, 100));
    expect(value(await c.metrics(), 'spire_reconciler_registration_oldest_pending_seconds')).toBeGreaterThan(0.05);
    w.kube.delete('v1', 'Pod', 'lost', 'default');
    await eventually(async () => value((e = await c.metrics()), 'spire_reconciler_registrations_pending') === 0, 'a deleted pod waits no more');
    expect(timed(e)).toBe(0);

    w.kube.create(pod('default', 'fed-0', { app: 'fed' }));
    await eventually(async () => count((e = await c.metrics()), 'refused') === 1, 'the refused pod is timed');
    // Its entry of the other ClusterSPIFFEID was created, but it is not registered as declared.
    expect(count(e, 'created')).toBe(0);
    expect(value(e, 'spire_reconciler_registrations_pending')).toBe(0);
  });
});
