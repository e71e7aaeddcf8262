import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/api/index.js';
import { serveObservability } from '../../src/manager/health.js';
import { ControllerMetrics } from '../../src/manager/metrics.js';
import { type Exposition, scrape, value } from '../manager/prom-text.js';
import { csid, eventually, node, ns, pod, startWorld, type World } from './world.js';

const CONTROLLERS = ['clusterspiffeid', 'clusterstaticentry', 'clusterfederatedtrustdomain', 'pod', 'namespace', 'node', 'endpointslice'];

/** The sum of a histogram's observations' count for these labels. */
const count = (e: Exposition, name: string, labels: Record<string, string>) => value(e, `${name}_count`, labels);

describe("a dashboard built on spire-controller-manager's metrics reads the same names from a running controller", () => {
  let w: World;
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    await w.close();
  });

  it('exports controller-runtime\'s reconcile and workqueue metrics per controller, leader election, and cluster_static_entry_failures', async () => {
    w = await startWorld({ leaderElection: { ...defaultConfig().leaderElection, leaderElect: true, resourceName: 'spire-lease' } });
    w.kube.create(ns('default'));
    w.kube.create(node('node-1'));
    w.kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
    // A static entry that cannot render: its SPIFFE ID has an empty path segment.
    w.kube.create({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', metadata: { name: 'elsewhere' }, spec: { spiffeID: 'spiffe://example.org/a//b', parentID: '/spire/server', selectors: ['a:b'] } });
    const metrics = new ControllerMetrics();
    const served = await serveObservability({ metricsBindAddress: '127.0.0.1:0', healthProbeBindAddress: '0', readinessPath: '/readyz', livenessPath: '/healthz', metrics, readiness: [], liveness: [] });
    close = served.close;
    const address = served.metricsAddress!;
    const live = await w.start({ metrics });
    await eventually(async () => value(await scrape(address), 'leader_election_master_status', { name: 'spire-lease' }) === 1, 'leading');

    for (let i = 0; i < 3; i++) w.kube.create(pod('default', `p-${i}`));
    await eventually(() => w.spire.server.entries.size === 3, 'the pods have entries');
    await live.idle();
    let e = await scrape(address);

    // Types as upstream's, and every controller's series, from the start.
    for (const [name, type] of [
      ['controller_runtime_reconcile_total', 'counter'],
      ['controller_runtime_reconcile_errors_total', 'counter'],
      ['controller_runtime_terminal_reconcile_errors_total', 'counter'],
      ['controller_runtime_reconcile_panics_total', 'counter'],
      ['controller_runtime_reconcile_time_seconds', 'histogram'],
      ['controller_runtime_max_concurrent_reconciles', 'gauge'],
      ['controller_runtime_active_workers', 'gauge'],
      ['workqueue_depth', 'gauge'],
      ['workqueue_adds_total', 'counter'],
      ['workqueue_queue_duration_seconds', 'histogram'],
      ['workqueue_work_duration_seconds', 'histogram'],
      ['workqueue_unfinished_work_seconds', 'gauge'],
      ['workqueue_longest_running_processor_seconds', 'gauge'],
      ['workqueue_retries_total', 'counter'],
      ['leader_election_master_status', 'gauge'],
      ['cluster_static_entry_failures', 'gauge'],
    ] as const) {
      expect(e.types.get(name), name).toBe(type);
    }
    for (const controller of CONTROLLERS) {
      for (const result of ['success', 'error', 'requeue', 'requeue_after']) expect(value(e, 'controller_runtime_reconcile_total', { controller, result })).toBeGreaterThanOrEqual(0);
      expect(value(e, 'controller_runtime_max_concurrent_reconciles', { controller })).toBe(1);
      expect(value(e, 'controller_runtime_active_workers', { controller })).toBe(0);
      // Nothing waits once the controller is idle; the workqueue is named after its controller.
      expect(value(e, 'workqueue_depth', { name: controller, controller, priority: '' })).toBe(0);
      expect(value(e, 'workqueue_longest_running_processor_seconds', { name: controller, controller })).toBe(0);
    }

    // Each pod created is a change to the pod controller's queue, reconciled once the pass that took it ended.
    const pods = { controller: 'pod' };
    const podQueue = { name: 'pod', controller: 'pod' };
    expect(value(e, 'workqueue_adds_total', podQueue)).toBeGreaterThanOrEqual(3);
    const reconciled = value(e, 'controller_runtime_reconcile_total', { ...pods, result: 'success' });
    expect(reconciled).toBe(value(e, 'workqueue_adds_total', podQueue));
    expect(count(e, 'controller_runtime_reconcile_time_seconds', pods)).toBe(reconciled);
    expect(count(e, 'workqueue_queue_duration_seconds', podQueue)).toBe(reconciled);
    expect(count(e, 'workqueue_work_duration_seconds', podQueue)).toBe(reconciled);
    expect(value(e, 'controller_runtime_reconcile_errors_total', pods)).toBe(0);
    // Upstream adds each failing ClusterStaticEntry once per pass.
    expect(value(e, 'cluster_static_entry_failures')).toBeGreaterThanOrEqual(1);
    // Ours are still there.
    expect(value(e, 'spire_reconciler_entries_total', { op: 'created' })).toBe(3);

    // Passes that fail (SPIRE refuses every list) are errors for the changes they took, which wait again (retries).
    // A namespace change is a full pass's (a new pod's entry needs no list: a create-only pod pass writes it).
    const namespaces = { controller: 'namespace' };
    const nsQueue = { name: 'namespace', controller: 'namespace' };
    const nsReconciled = value(e, 'controller_runtime_reconcile_total', { ...namespaces, result: 'success' });
    const nsAdds = value(e, 'workqueue_adds_total', nsQueue);
    w.spire.server.faults.failNext(1_000_000, 14, { method: 'ListEntries' });
    live.resync();
    w.kube.update(ns('default', { touched: 'yes' }));
    await eventually(async () => value(await scrape(address), 'controller_runtime_reconcile_errors_total', namespaces) >= 1, 'a failed pass took the namespace change');
    w.spire.server.faults.clear();
    await eventually(async () => value(await scrape(address), 'controller_runtime_reconcile_total', { ...namespaces, result: 'success' }) === nsReconciled + 1, 'the change reconciled after a retry');
    await live.idle();
    e = await scrape(address);
    const errors = value(e, 'controller_runtime_reconcile_errors_total', namespaces);
    expect(value(e, 'controller_runtime_reconcile_total', { ...namespaces, result: 'error' })).toBe(errors);
    expect(value(e, 'workqueue_retries_total', nsQueue)).toBe(errors);
    // Each retry adds the change again, as controller-runtime's rate-limited requeue does: one more success in the end.
    expect(value(e, 'workqueue_adds_total', nsQueue)).toBe(nsAdds + 1 + errors);
    expect(value(e, 'controller_runtime_reconcile_total', { ...namespaces, result: 'success' })).toBe(nsReconciled + 1);
    expect(count(e, 'controller_runtime_reconcile_time_seconds', namespaces)).toBe(nsReconciled + 1 + errors);
    expect(value(e, 'controller_runtime_reconcile_errors_total', pods)).toBe(0);
  });
});
