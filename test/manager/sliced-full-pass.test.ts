import { describe, expect, it } from 'vitest';
import { type ClusterSPIFFEID, type Namespace, type Node, type Pod } from '../../src/api/index.js';
import { type ClusterSnapshot, computeStatus, CurrentState, type EntryPassOptions, indexServices, type PodLookup, RenderCache, runEntryPass, runPodPass } from '../../src/entries/index.js';
import { type Conditions, PassScheduler } from '../../src/manager/scheduler.js';
import { selectionSettings } from '../support/selection.js';
import { spireForEachTest } from '../support/spire.js';

const td = 'example.org';
const ready: Conditions = { leading: true, spireReady: true, podEntries: true, unsynced: [], stateCertain: true, probed: true, podsCoverTemplates: true };

/** Each pod's entry is /pod/<name>, with one DNS name from its label `v`: a new `v` updates the entry in place (same key). */
const csid: ClusterSPIFFEID = {
  apiVersion: 'spire.spiffe.io/v1alpha1',
  kind: 'ClusterSPIFFEID',
  metadata: { name: 'all', uid: 'csid-all', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}', dnsNameTemplates: ['{{ .PodMeta.Labels.v }}.example.org'] },
};
const namespace: Namespace = { metadata: { name: 'default', uid: 'ns-default' } };
const node: Node = { metadata: { name: 'node-1', uid: 'node-uid-1' }, spec: {} };
const pod = (name: string, v: string): Pod => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { v } },
  spec: { nodeName: 'node-1', serviceAccountName: 'sa' },
  status: { phase: 'Running' },
});
const snapshotOf = (pods: Pod[]): ClusterSnapshot => ({ clusterSPIFFEIDs: [csid], clusterStaticEntries: [], namespaces: [namespace], pods, nodes: [node], endpointSlices: [], endpoints: [] });
const lookup: PodLookup = { clusterSPIFFEIDs: [csid], namespace: () => namespace, node: () => node, services: () => indexServices([], []) };

const passOptions = (): EntryPassOptions => ({
  settings: selectionSettings({ trustDomain: td, renderCache: new RenderCache() }),
  ownership: { entryIDPrefix: 'scm-', entryScope: 'prefixed' },
  policy: 'sync',
});

// Enough pods that rendering and planning them take many slices, so that a pod pass started after the snapshot ends before the plan does.
const PODS = 5_000;

describe('a full pass that renders and plans in slices, with pod passes between them', () => {
  const t = spireForEachTest();

  it('does not undo what a pod pass wrote meanwhile, nor create an entry a pod pass created', async () => {
    const options = passOptions();
    const state = new CurrentState(3_600_000);
    const scheduler = new PassScheduler();
    const pods = Array.from({ length: PODS }, (_, i) => pod(`p-${i}`, 'v1'));

    // The term's first full pass: every pod's entry at v1.
    expect(scheduler.next(ready)).toEqual({ route: 'full' });
    scheduler.snapshotted();
    const first = await runEntryPass(snapshotOf(pods), t.client, { ...options, state, beforeApply: (plan) => scheduler.planned(plan) });
    scheduler.fullDone();
    expect(first.applied?.created).toBe(PODS);

    // p-0 changed to v2 and p-new appeared before the next full pass's snapshot: that pass decides both from it.
    const changed = [pod('p-0', 'v2'), ...pods.slice(1), pod('p-new', 'v2')];
    scheduler.podChanged('uid-p-0', { namespace: 'default', name: 'p-0' }, { listed: false, leading: true });
    scheduler.requestFull();
    expect(scheduler.next(ready)).toEqual({ route: 'full' });
    scheduler.snapshotted();
    const order: string[] = [];
    const full = runEntryPass(snapshotOf(changed), t.client, {
      ...options,
      state,
      snapshotVersion: 'second',
      sliceMs: 0,
      beforeApply: (plan) => {
        order.push('full pass planned');
        return scheduler.planned(plan);
      },
    });

    // Both change again (v3) while it renders and plans: a pod pass writes them from the newer objects.
    for (const name of ['p-0', 'p-new']) scheduler.podChanged(`uid-${name}`, { namespace: 'default', name }, { listed: false, leading: true });
    const route = scheduler.nextPod(ready);
    expect(route).toMatchObject({ route: 'pod', take: [['uid-p-0'], ['uid-p-new']].map(([uid]) => [uid, expect.anything()]) });
    const podPass = await runPodPass({ pods: [pod('p-0', 'v3'), pod('p-new', 'v3')], goneUids: [], lookup }, t.client, { ...options, state });
    scheduler.podPassDone([...podPass.plan.creates, ...podPass.plan.updates].map((w) => w.key));
    order.push('pod pass written');
    expect(podPass.applied).toMatchObject({ created: 1, updated: 1, failures: [] });

    const result = await full;
    scheduler.fullDone();
    // The interleaving this test is about happened: otherwise it proves nothing.
    expect(order).toEqual(['pod pass written', 'full pass planned']);
    // The full pass wrote neither pod's entry from its older snapshot: no update back to v2, no second create for p-new.
    expect(result.applied).toMatchObject({ created: 0, updated: 0, deleted: 0, failures: [] });
    // Nor does it leave a memo saying that these inputs need no writes: they needed some, which the pod pass made.
    expect(result.memo).toBeUndefined();
    // Its status, computed in slices too, is the one computed in one step.
    expect(result.status).toEqual(computeStatus(result.declared, result.plan, result.applied));
    expect(result.status.clusterSPIFFEIDs.all).toMatchObject({ entriesToSet: PODS + 1, entryFailures: 0 });

    const entries = t.spire.server.entries.all();
    expect(entries).toHaveLength(PODS + 1);
    const byPath = (path: string) => entries.filter((e) => e.spiffeId.path === path);
    expect(byPath('/pod/p-0').map((e) => e.dnsNames)).toEqual([['v3.example.org']]);
    expect(byPath('/pod/p-new').map((e) => e.dnsNames)).toEqual([['v3.example.org']]);
    expect(byPath('/pod/p-1').map((e) => e.dnsNames)).toEqual([['v1.example.org']]);
  });

  it('leaves a pod changed just before its snapshot to a pod pass between its slices, not to its own writes', async () => {
    const options = passOptions();
    const state = new CurrentState(3_600_000);
    const scheduler = new PassScheduler();
    const pods = Array.from({ length: PODS }, (_, i) => pod(`p-${i}`, 'v1'));
    scheduler.next(ready);
    scheduler.snapshotted();
    await runEntryPass(snapshotOf(pods), t.client, { ...options, state, beforeApply: (plan) => scheduler.planned(plan) });
    scheduler.fullDone();

    // p-0 changes to v2 and a resync is due: its snapshot already holds v2.
    const changed = [pod('p-0', 'v2'), ...pods.slice(1)];
    scheduler.podChanged('uid-p-0', { namespace: 'default', name: 'p-0' }, { listed: false, leading: true });
    scheduler.requestFull();
    scheduler.next(ready);
    scheduler.snapshotted();
    const order: string[] = [];
    const full = runEntryPass(snapshotOf(changed), t.client, {
      ...options,
      state,
      sliceMs: 0,
      beforeApply: (plan) => {
        order.push('full pass planned');
        return scheduler.planned(plan);
      },
    });
    // The pod lane's next turn takes it, while the full pass renders.
    expect(scheduler.nextPod(ready)).toEqual({ route: 'pod', take: [['uid-p-0', { namespace: 'default', name: 'p-0' }]] });
    const podPass = await runPodPass({ pods: [changed[0]!], goneUids: [], lookup }, t.client, { ...options, state });
    scheduler.podPassDone(podPass.plan.updates.map((w) => w.key));
    order.push('pod pass written');
    expect(podPass.applied).toMatchObject({ updated: 1, failures: [] });
    const result = await full;
    scheduler.fullDone();
    expect(order).toEqual(['pod pass written', 'full pass planned']);
    expect(result.applied).toMatchObject({ created: 0, updated: 0, deleted: 0, failures: [] });
    expect(t.spire.server.entries.all().filter((e) => e.spiffeId.path === '/pod/p-0').map((e) => e.dnsNames)).toEqual([['v2.example.org']]);
    // Nothing is left for the pod lane.
    expect(scheduler.nextPod(ready)).toEqual({ route: 'wait', why: 'no dirty pods' });
  });

  it('writes what its plan decided for pods no pod pass took meanwhile', async () => {
    const options = passOptions();
    const state = new CurrentState(3_600_000);
    const scheduler = new PassScheduler();
    scheduler.next(ready);
    scheduler.snapshotted();
    await runEntryPass(snapshotOf([pod('a', 'v1'), pod('b', 'v1')]), t.client, { ...options, state, sliceMs: 0, beforeApply: (plan) => scheduler.planned(plan) });
    scheduler.fullDone();
    scheduler.requestFull();
    scheduler.next(ready);
    scheduler.snapshotted();
    const result = await runEntryPass(snapshotOf([pod('a', 'v2')]), t.client, { ...options, state, sliceMs: 0, beforeApply: (plan) => scheduler.planned(plan) });
    expect(result.applied).toMatchObject({ created: 0, updated: 1, deleted: 1, failures: [] });
    expect(t.spire.server.entries.all().map((e) => [e.spiffeId.path, e.dnsNames])).toEqual([['/pod/a', ['v2.example.org']]]);
  });
});
