import { beforeEach, describe, expect, it } from 'vitest';
import { type ClusterSPIFFEID, IgnoredNamespaces, type Namespace, type Node, type Pod } from '../../src/api/index.js';
import { type ClusterSnapshot, CurrentState, type EntryPassOptions, type PassMemo, RenderCache, runEntryPass, runPodPass } from '../../src/entries/index.js';
import { DEFAULT_PARENT_ID_TEMPLATE } from '../../src/api/index.js';
import type { Entry } from '../../src/spire/index.js';
import { compileTemplate } from '../../src/template/index.js';
import { spireForEachTest } from '../support/spire.js';

const td = 'example.org';
const parent = { trust_domain: td, path: '/spire/agent/k8s_psat/demo/node-uid-1' };

const ns = (name: string, labels: Record<string, string>): Namespace => ({ metadata: { name, uid: `ns-${name}`, labels } });
const node: Node = { metadata: { name: 'node-1', uid: 'node-uid-1' }, spec: {} };
const pod = (namespace: string, name: string, app: string): Pod => ({
  metadata: { name, namespace, uid: `uid-${name}`, labels: { app } },
  spec: { nodeName: 'node-1', serviceAccountName: `${name}-sa` },
  status: { phase: 'Running' },
});
const csid = (name: string, created: string, spec: ClusterSPIFFEID['spec']): ClusterSPIFFEID => ({
  apiVersion: 'spire.spiffe.io/v1alpha1',
  kind: 'ClusterSPIFFEID',
  metadata: { name, uid: `csid-${name}`, creationTimestamp: created },
  spec,
});

const snapshot: ClusterSnapshot = {
  clusterSPIFFEIDs: [
    csid('web', '2026-01-01T00:00:00Z', {
      spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}',
      namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a', 'system'] }] },
      podSelector: { matchLabels: { app: 'web' } },
      dnsNameTemplates: ['{{ .PodMeta.Name }}.{{ .PodMeta.Namespace }}.svc', 'web.example.org'],
    }),
    csid('api', '2026-01-02T00:00:00Z', {
      spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}',
      namespaceSelector: { matchLabels: { team: 'b' } },
      podSelector: { matchLabels: { app: 'api' } },
    }),
  ],
  clusterStaticEntries: [],
  namespaces: [ns('team-a', { team: 'a' }), ns('team-b', { team: 'b' }), ns('kube-system', { team: 'system' })],
  pods: [pod('team-a', 'web-1', 'web'), pod('team-b', 'api-1', 'api'), pod('kube-system', 'dns-1', 'web')],
  nodes: [node],
  endpointSlices: [],
  endpoints: [],
};

const options: EntryPassOptions = {
  settings: {
    trustDomain: td,
    clusterName: 'demo',
    clusterDomain: 'cluster.local',
    parentIdTemplate: compileTemplate(DEFAULT_PARENT_ID_TEMPLATE),
    ignoreNamespaces: IgnoredNamespaces.compile(['kube-system']),
    className: '',
    watchClassless: false,
  },
  ownership: { entryIDPrefix: 'scm-', entryScope: 'prefixed' },
  policy: 'sync',
};

/** web-1's entry as a ClusterSPIFFEID still declares it, but with fewer DNS names. */
const outdated = (id: string): Entry => ({
  id,
  parent_id: parent,
  spiffe_id: { trust_domain: td, path: '/ns/team-a/sa/web-1-sa' },
  selectors: [{ type: 'k8s', value: 'pod-uid:uid-web-1' }],
  dns_names: ['web-1.team-a.svc'],
});
/** An entry no object declares. */
const stale = (id: string): Entry => ({
  id,
  parent_id: parent,
  spiffe_id: { trust_domain: td, path: '/ns/team-a/sa/gone' },
  selectors: [{ type: 'k8s', value: 'pod-uid:uid-gone' }],
});

describe('one reconcile pass makes SPIRE hold exactly the declared entries', () => {
  const t = spireForEachTest();

  it('updates the outdated entry in place, deletes the undeclared one and creates the missing one', async () => {
    t.spire.server.seed({ entries: [outdated('scm-existing-1'), stale('scm-stale-1')] });

    const result = await runEntryPass(snapshot, t.client, options);

    expect(result.plan.updates.map((u) => [u.id, u.changed])).toEqual([['scm-existing-1', ['dnsNames']]]);
    expect(result.plan.deletes.map((d) => d.id)).toEqual(['scm-stale-1']);
    expect(result.plan.creates).toHaveLength(1);
    expect(result.plan.creates[0]?.id).toMatch(/^scm-/);
    expect(result.applied).toMatchObject({ created: 1, updated: 1, deleted: 1, failures: [] });

    const stored = new Map((await t.client.listEntries()).map((e) => [e.id, e]));
    expect([...stored.keys()].sort()).toEqual(['scm-existing-1', result.plan.creates[0]!.id].sort());
    expect(stored.get('scm-existing-1')?.dns_names).toEqual(['web-1.team-a.svc', 'web.example.org']);
    expect(stored.get('scm-existing-1')?.revision_number).toBe('1');
    const created = stored.get(result.plan.creates[0]!.id)!;
    expect(created.spiffe_id).toEqual({ trust_domain: td, path: '/ns/team-b/sa/api-1-sa' });
    expect(created.parent_id).toEqual(parent);
    expect(created.selectors).toEqual([{ type: 'k8s', value: 'pod-uid:uid-api-1' }]);

    expect(result.status.clusterSPIFFEIDs).toEqual({
      web: { namespacesSelected: 2, namespacesIgnored: 1, podsSelected: 1, podEntryRenderFailures: 0, entriesMasked: 0, entriesToSet: 1, entryFailures: 0, entriesWithoutFederation: 0 },
      api: { namespacesSelected: 1, namespacesIgnored: 0, podsSelected: 1, podEntryRenderFailures: 0, entriesMasked: 0, entriesToSet: 1, entryFailures: 0, entriesWithoutFederation: 0 },
    });

    const again = await runEntryPass(snapshot, t.client, options);
    expect([again.plan.creates, again.plan.updates, again.plan.deletes]).toEqual([[], [], []]);
  });

  it('under prefixed scope, changes nothing foreign and reports the declared entry a foreign one holds as a conflict', async () => {
    t.spire.server.seed({ entries: [outdated('manual-web'), stale('manual-stale')] });

    const result = await runEntryPass(snapshot, t.client, options);

    expect(result.plan.updates).toEqual([]);
    expect(result.plan.deletes).toEqual([]);
    expect(result.plan.conflicts.map((c) => [c.owner.name, c.foreignIds])).toEqual([['web', ['manual-web']]]);
    expect(result.plan.creates.map((c) => c.owner.name)).toEqual(['api']);
    const stored = new Map((await t.client.listEntries()).map((e) => [e.id, e]));
    expect(stored.get('manual-web')).toMatchObject({ dns_names: ['web-1.team-a.svc'], revision_number: '0' });
    expect(stored.has('manual-stale')).toBe(true);
    expect(stored.size).toBe(3);
    expect(result.status.clusterSPIFFEIDs.web).toMatchObject({ entriesToSet: 1, entryFailures: 1 });
    expect(result.status.clusterSPIFFEIDs.api).toMatchObject({ entriesToSet: 1, entryFailures: 0, entriesWithoutFederation: 0 });
  });
});

describe('a create-only pod pass creates what the pods declare and SPIRE lacks, and nothing else', () => {
  const t = spireForEachTest();
  const lookup = {
    clusterSPIFFEIDs: snapshot.clusterSPIFFEIDs,
    namespace: (name: string) => snapshot.namespaces.find((n) => n.metadata.name === name),
    node: () => node,
    services: () => new Map(),
  };
  /** api-1's entry, made by hand (an ID outside our prefix). */
  const manualApi: Entry = { id: 'manual-api', parent_id: parent, spiffe_id: { trust_domain: td, path: '/ns/team-b/sa/api-1-sa' }, selectors: [{ type: 'k8s', value: 'pod-uid:uid-api-1' }] };
  const web = (name: string) => pod('team-a', name, 'web');
  const writes = () => t.spire.server.calls.filter((c) => c.method === 'BatchUpdateEntry' || c.method === 'BatchDeleteEntry');
  const stored = async () => new Map((await t.client.listEntries()).map((e) => [e.id, e]));

  it('planned against no entries (the probe has not answered): SPIRE answers ALREADY_EXISTS for what it holds, which is neither a failure nor recorded', async () => {
    t.spire.server.seed({ entries: [outdated('scm-existing-1'), stale('scm-stale-1'), manualApi] });
    const before = await stored();
    const state = new CurrentState(3_600_000);

    const r = await runPodPass({ pods: [web('web-1'), snapshot.pods[1]!, web('web-2')], goneUids: ['uid-gone'], lookup }, t.client, { ...options, state, createOnly: 'against-nothing' });

    // web-1's entry (ours, outdated) and api-1's (made by hand) are SPIRE's answer; web-2's is new.
    expect(r.alreadyRegistered).toBe(2);
    expect(r.applied).toMatchObject({ created: 1, updated: 0, deleted: 0, failures: [] });
    expect(r.plan.creates.map((c) => c.podUid)).toEqual(['uid-web-2']);
    expect(writes()).toEqual([]);
    const after = await stored();
    for (const id of ['scm-existing-1', 'scm-stale-1', 'manual-api']) expect(after.get(id)).toEqual(before.get(id));
    expect(after.size).toBe(4);
    const created = r.plan.creates[0]!.id;
    expect(after.get(created)?.spiffe_id).toEqual({ trust_domain: td, path: '/ns/team-a/sa/web-2-sa' });
    // Only the entry it wrote is recorded; the state is listed before it is read for a plan.
    expect(state.values().map((e) => e.id)).toEqual([created]);
    expect(state.isCertain()).toBe(false);
  });

  it('planned against a certain state: no update for an outdated entry, no delete for a gone pod, the conflict reported, and the state still certain after an ALREADY_EXISTS', async () => {
    t.spire.server.seed({ entries: [outdated('scm-existing-1'), stale('scm-stale-1'), manualApi] });
    const state = new CurrentState(3_600_000);
    await state.replaceFromPages(t.client.entryPages());
    // Made behind the state's back, after its list: web-2's entry.
    const second = await runPodPass({ pods: [web('web-2')], goneUids: [], lookup }, t.client, { ...options, state: new CurrentState(3_600_000), createOnly: 'against-nothing' });
    const before = await stored();

    const r = await runPodPass({ pods: [web('web-1'), snapshot.pods[1]!, web('web-2'), web('web-3')], goneUids: ['uid-gone'], lookup }, t.client, { ...options, state, createOnly: 'against-state' });

    expect(r.plan.conflicts.map((c) => c.foreignIds)).toEqual([['manual-api']]);
    expect(r.alreadyRegistered).toBe(1);
    expect(r.applied).toMatchObject({ created: 1, updated: 0, deleted: 0, failures: [] });
    expect(r.plan.creates.map((c) => c.podUid)).toEqual(['uid-web-3']);
    expect(writes()).toEqual([]);
    const after = await stored();
    for (const [id, e] of before) expect(after.get(id)).toEqual(e);
    expect(after.size).toBe(before.size + 1);
    expect(state.isCertain()).toBe(true);
    expect(state.values().map((e) => e.id).sort()).toEqual(['manual-api', 'scm-existing-1', 'scm-stale-1', r.plan.creates[0]!.id].sort());
    expect(second.applied.created).toBe(1);
  });
});

describe('a resync that finds nothing changed only lists, and anything changed on either side makes it plan again', () => {
  const t = spireForEachTest();
  let state: CurrentState;
  let renderCache: RenderCache;
  let last: PassMemo | undefined;
  beforeEach(() => {
    state = new CurrentState(3_600_000);
    renderCache = new RenderCache();
    last = undefined;
  });
  // A periodic resync: SPIRE's entries are listed again every time.
  const resync = async (snapshotVersion: string, snap: ClusterSnapshot = snapshot) => {
    state.invalidate();
    const r = await runEntryPass(snap, t.client, { ...options, settings: { ...options.settings, renderCache }, state, snapshotVersion, ...(last ? { last } : {}) });
    last = r.memo;
    return r;
  };
  const writes = () => t.spire.server.calls.filter((c) => c.method.startsWith('Batch')).length;

  it('reuses the last result when neither the snapshot nor SPIRE changed, and writes nothing', async () => {
    expect((await resync('1')).applied?.created).toBe(2);
    expect((await resync('1')).reused).toBeUndefined(); // it wrote: planned once more
    const rendered = renderCache.hits + renderCache.misses;
    const before = writes();
    const idle = await resync('1');
    expect(idle.reused).toBe(true);
    expect(idle.applied).toMatchObject({ created: 0, updated: 0, deleted: 0, failures: [] });
    expect(idle.status).toEqual((await resync('1')).status);
    expect(renderCache.hits + renderCache.misses).toBe(rendered);
    expect(writes()).toBe(before);
    expect(t.spire.server.calls.filter((c) => c.method === 'ListEntries').length).toBeGreaterThanOrEqual(4);
  });

  it('recreates an entry deleted behind its back', async () => {
    await resync('1');
    await resync('1');
    const [victim] = await t.client.listEntries();
    await t.client.deleteEntries([victim!.id]);
    const r = await resync('1');
    expect(r.reused).toBeUndefined();
    expect(r.applied?.created).toBe(1);
    expect((await t.client.listEntries()).map((e) => e.spiffe_id?.path).sort()).toEqual(['/ns/team-a/sa/web-1-sa', '/ns/team-b/sa/api-1-sa']);
  });

  it('restores an entry changed behind its back', async () => {
    await resync('1');
    await resync('1');
    const web = (await t.client.listEntries()).find((e) => e.spiffe_id?.path === '/ns/team-a/sa/web-1-sa')!;
    await t.client.updateEntries([{ ...web, dns_names: ['changed.example.org'] }]);
    const r = await resync('1');
    expect(r.reused).toBeUndefined();
    expect(r.plan.updates.map((u) => u.changed)).toEqual([['dnsNames']]);
    expect((await t.client.listEntries()).find((e) => e.id === web.id)?.dns_names).toEqual(['web-1.team-a.svc', 'web.example.org']);
  });

  it('plans again when the snapshot version changes', async () => {
    await resync('1');
    await resync('1');
    const moved = { ...snapshot, pods: snapshot.pods.filter((p) => p.metadata.name !== 'api-1') };
    const r = await resync('2', moved);
    expect(r.reused).toBeUndefined();
    expect(r.applied?.deleted).toBe(1);
  });
});
