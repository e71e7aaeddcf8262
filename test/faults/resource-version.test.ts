import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { informersSynced, type Observability, ping, serveObservability } from '../../src/manager/health.js';
import { ControllerMetrics } from '../../src/manager/metrics.js';
import { eventually, pod, type World, worldWithPods } from '../live/world.js';
import { parseExposition, value } from '../manager/prom-text.js';
import { expectPromisesKept, FaultLedger, PROMISES_KEPT } from './ledger.js';

describe('fault: the API server comes back from a backup, behind the resourceVersion the informers hold (issue 15, item 3)', () => {
  let w: World;
  let observability: Observability | undefined;
  beforeEach(async () => {
    w = await worldWithPods(20);
  });
  afterEach(async () => {
    await observability?.close();
    await w.close();
  });

  it('relists, says meanwhile that its cache may be stale, and then follows the cluster again', async () => {
    const ledger = new FaultLedger('API server restored from a backup (resourceVersion behind the informers)', w.spire.server);
    ledger.seedForeign();
    const metrics = new ControllerMetrics();
    // Short watch rotation: the restore is noticed after the first empty stream (its resourceVersion probe answers 504), seconds here.
    const live = await w.start({ metrics, watchTimeoutSeconds: 1 });
    observability = await serveObservability({
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      readinessPath: '/readyz',
      livenessPath: '/healthz',
      metrics,
      readiness: [informersSynced(() => live.cache)],
      liveness: [ping],
    });
    const readyz = async () => (await fetch(`http://${observability!.healthAddress}/readyz?verbose`)).text();
    const paths = () => w.spire.server.entries.all().map((e) => e.spiffeId.path);
    await eventually(() => paths().filter((p) => p.startsWith('/pod/')).length === 20, 'the entries of the 20 pods');

    const backup = w.kube.faults.backup();
    w.kube.create(pod('default', 'made-after-the-backup'));
    await eventually(() => paths().includes('/pod/made-after-the-backup'), 'its entry');
    // The cluster went on after the backup (here: 300 Events), so the restored server's
    // resourceVersion is well behind the informers', as after a backup some minutes old.
    for (let i = 0; i < 300; i++) {
      w.kube.create({ apiVersion: 'v1', kind: 'Event', metadata: { name: `busy-${i}`, namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p-1', namespace: 'default' }, reason: 'Busy', message: 'the cluster goes on' });
    }
    // A bookmark has brought the pod informer there (its next watch starts from it).
    const latest = w.kube.resourceVersion;
    const podWatchFrom = () => w.kube.requests.filter((r) => r.path === '/api/v1/pods' && r.query.includes('watch=true')).map((r) => Number(new URLSearchParams(r.query).get('resourceVersion')));
    await eventually(() => podWatchFrom().some((rv) => rv >= latest), 'the pod informer is at the latest resourceVersion');
    await live.idle();
    // Every entry of a pod the backup holds must survive.
    ledger.start((e) => e.spiffeId.path.startsWith('/pod/p-'));

    // Lists fail for a while after the restore, so the stale cache can be seen.
    w.kube.faults.failNext(2, 500, { method: 'GET', pathIncludes: '/pods', queryIncludes: 'limit=500' });
    w.kube.faults.restoreBackup(backup);
    ledger.clockFrom();
    await eventually(async () => /\[\+\]informers-synced ok: .*pods may be stale for \d+s/.test(await readyz()), '/readyz?verbose says the pod cache may be stale', 30_000);

    // Changes made on the restored server reach SPIRE.
    w.kube.create(pod('default', 'after-the-restore'));
    w.kube.delete('v1', 'Pod', 'p-0', 'default');
    ledger.release([w.spire.server.entries.all().find((e) => e.spiffeId.path === '/pod/p-0')!.id]);
    await eventually(
      () => paths().includes('/pod/after-the-restore') && !paths().includes('/pod/p-0') && !paths().includes('/pod/made-after-the-backup'),
      'SPIRE follows the restored cluster',
      30_000,
    );
    ledger.converged();
    await eventually(async () => !(await readyz()).includes('may be stale'), 'the cache is current again');

    const exposition = parseExposition((await metrics.expose()).body);
    expect(value(exposition, 'spire_reconciler_informer_relists_total', { informer: 'pods', reason: 'resource-version-too-large' })).toBeGreaterThan(0);
    expect(value(exposition, 'spire_reconciler_informer_stale_seconds', { informer: 'pods' })).toBe(0);
    const report = ledger.report();
    expect(expectPromisesKept(report)).toEqual(PROMISES_KEPT);
  }, 60_000);
});
