import { describe, expect, it } from 'vitest';
import { applyPlan, computeStatus, declareEntries, fromSpire, IGNORED_IDS_WARNING, probeSpireServer, SpireServerProbe, planEntries } from '../../src/entries/index.js';
import { DEFAULT_PARENT_ID_TEMPLATE } from '../../src/api/index.js';
import { storedAsSent } from '../../src/entries/apply.js';
import { toSpire } from '../../src/entries/model.js';
import type { EntryOut } from '../../src/spire/index.js';
import { statusChanged } from '../../src/kube/status-publisher.js';
import { IgnoredNamespaces } from '../../src/api/index.js';
import { compileTemplate } from '../../src/template/index.js';
import { SpireClient } from '../../src/spire/index.js';
import { spireForEachTest, startTestSpire } from '../support/spire.js';
import { current, declared, owner, pod, spec } from './fixtures.js';

describe('applying a plan writes exactly the plan, creates and updates before deletes', () => {
  const t = spireForEachTest();

  const seed = (id: string, s: ReturnType<typeof spec>) =>
    t.spire.server.seed({
      entries: [
        {
          id,
          spiffe_id: { trust_domain: 'example.org', path: s.spiffeId.slice('spiffe://example.org'.length) },
          parent_id: { trust_domain: 'example.org', path: s.parentId.slice('spiffe://example.org'.length) },
          selectors: s.selectors,
          hint: s.hint,
        },
      ],
    });

  it('sends creates and updates before deletes, so a re-keyed workload always has an entry', async () => {
    seed('scm-old', pod('p1', '/old'));
    seed('scm-upd', pod('p2'));
    const plan = planEntries({
      declared: [declared(pod('p1', '/new')), declared({ ...pod('p2'), hint: 'h' })],
      current: (await t.client.listEntries()).map(fromSpire),
      ownership: { entryIDPrefix: 'scm-', entryScope: 'prefixed' },
      policy: 'sync',
    });
    t.spire.server.calls.length = 0;
    const result = await applyPlan(plan, t.client);
    expect(t.spire.server.calls.map((c) => c.method)).toEqual(['BatchCreateEntry', 'BatchUpdateEntry', 'BatchDeleteEntry']);
    expect(result).toMatchObject({ created: 1, updated: 1, deleted: 1, failures: [] });
    // Writes ask for the revision and the compared fields back, not for the SPIFFE ID, parent ID, selectors or other fields.
    for (const c of t.spire.server.calls.slice(0, 2)) {
      const asked = Object.entries(c.outputMask ?? {}).filter(([, v]) => v).map(([k]) => k).sort();
      expect(asked).toEqual(['admin', 'dns_names', 'downstream', 'federates_with', 'hint', 'jwt_svid_ttl', 'revision_number', 'store_svid', 'x509_svid_ttl']);
    }
    // Each write is known at the revision SPIRE stored it under.
    const listed = new Map((await t.client.listEntries()).map((e) => [e.id, e.revision_number]));
    expect([...(result.revisions ?? [])].sort()).toEqual([...plan.creates, ...plan.updates].map((w) => [w.id, listed.get(w.id)]).sort());
    expect(listed.get('scm-upd')).toBe('1');
  });

  it('counts a per-item failure against the declaring object and still applies the rest of the batch', async () => {
    const good = owner('good');
    const bad = owner('bad');
    const plan = planEntries({
      declared: [declared(pod('p1'), good), declared({ ...pod('p2'), federatesWith: ['domain2.org'] }, bad), declared(pod('p3'), good)],
      current: [],
      ownership: { entryIDPrefix: 'scm-', entryScope: 'prefixed' },
      policy: 'sync',
    });
    const result = await applyPlan(plan, t.client);
    expect(result.created).toBe(2);
    expect(result.failures).toEqual([
      expect.objectContaining({
        op: 'create',
        owner: bad,
        codeName: 'INTERNAL',
        message: 'failed to create entry: unable to find federated bundle "spiffe://domain2.org"',
      }),
    ]);
    expect(t.spire.server.entries.size).toBe(2);
  });

  it("holds back deleting a pod's old entry while its replacement could not be written", async () => {
    seed('scm-old', pod('p1', '/old'));
    const plan = planEntries({
      declared: [declared({ ...pod('p1', '/new'), federatesWith: ['domain2.org'] })],
      current: (await t.client.listEntries()).map(fromSpire),
      ownership: { entryIDPrefix: 'scm-', entryScope: 'prefixed' },
      policy: 'sync',
    });
    expect(plan.deletes.map((d) => d.id)).toEqual(['scm-old']);
    const result = await applyPlan(plan, t.client);
    expect(result.deleted).toBe(0);
    expect(result.heldBack).toEqual([{ id: 'scm-old', reason: 'replacement-failed', detail: 'kept until the new entry for pod p1 is written', podUid: 'p1' }]);
    expect(t.spire.server.entries.get('scm-old')).toBeDefined();
  });

  it("holds back deleting a static entry's old entry while its replacement could not be written, by the same rule", async () => {
    const staticSpec = (path: string) => spec({ spiffeId: `spiffe://example.org${path}`, parentId: 'spiffe://example.org/spire/server', selectors: [{ type: 'unix', value: 'uid:1000' }] });
    seed('scm-old', staticSpec('/gw'));
    // The edit moves the ID into SPIRE's reserved /spire namespace: the create is refused.
    const plan = planEntries({
      declared: [declared(staticSpec('/spire/gw'), owner('gw', { kind: 'ClusterStaticEntry' }))],
      current: (await t.client.listEntries()).map(fromSpire),
      ownership: { entryIDPrefix: 'scm-', entryScope: 'prefixed' },
      policy: 'sync',
    });
    expect(plan.deletes.map((d) => d.id)).toEqual(['scm-old']);
    const result = await applyPlan(plan, t.client);
    expect(result.failures.map((f) => f.codeName)).toEqual(['INVALID_ARGUMENT']);
    expect(result.deleted).toBe(0);
    expect(result.heldBack).toEqual([{ id: 'scm-old', reason: 'replacement-failed', detail: 'kept until every new entry not tied to a pod is written' }]);
    expect(t.spire.server.entries.get('scm-old')).toBeDefined();
  });

  it('treats a whole failed batch as failures of every object in it', async () => {
    t.spire.server.faults.failNext(1, 14, { method: 'BatchCreateEntry' });
    const plan = planEntries({
      declared: [declared(pod('p1'), owner('a')), declared(pod('p2'), owner('b'))],
      current: [],
      ownership: { entryIDPrefix: 'scm-', entryScope: 'prefixed' },
      policy: 'sync',
    });
    const result = await applyPlan(plan, t.client);
    expect(result.failures.map((f) => [f.owner?.name, f.codeName])).toEqual([
      ['a', 'UNAVAILABLE'],
      ['b', 'UNAVAILABLE'],
    ]);
  });

  it('probes which entry fields the server stores, and removes its probe', async () => {
    expect(await probeSpireServer(t.client, 'example.org', 'scm-')).toEqual({ unsupported: new Set(), ignoresEntryIds: false });
    expect(t.spire.server.entries.size).toBe(0);
  });

  it("never deletes a foreign entry that holds the probe's key: the probe fails, naming it (found against a real SPIRE server)", async () => {
    const probe = { trust_domain: 'example.org', path: '/spire-reconciler/unsupported-fields-probe/scm-' };
    t.spire.server.seed({ entries: [{ id: 'not-ours', parent_id: probe, spiffe_id: probe, selectors: [{ type: 'a', value: '1' }] }] });
    await expect(probeSpireServer(t.client, 'example.org', 'scm-')).rejects.toThrow(/entry not-ours holds the probe's SPIFFE ID/);
    expect(t.spire.server.entries.size).toBe(1);
    expect((await t.client.listEntries()).map((e) => e.id)).toEqual(['not-ours']);
  });
});

describe('fields an older SPIRE server does not store are found and left out of the comparison', () => {
  it('finds every dropped field, so entries are not updated forever', async () => {
    const spire = await startTestSpire({ droppedFields: ['hint', 'jwt_svid_ttl', 'store_svid'] });
    const client = new SpireClient({ socket: spire.socketPath });
    try {
      const { unsupported } = await probeSpireServer(client, 'example.org', 'scm-');
      expect(unsupported).toEqual(new Set(['hint', 'jwtSvidTtl', 'storeSvid']));
      expect(spire.server.entries.size).toBe(0);

      const wanted = { ...pod('p1'), hint: 'web', jwtSvidTtl: 300 };
      const first = planEntries({ declared: [declared(wanted)], current: [], ownership: { entryIDPrefix: 'scm-', entryScope: 'prefixed' }, policy: 'sync' });
      await applyPlan(first, client);
      const second = planEntries({
        declared: [declared(wanted)],
        current: (await client.listEntries()).map(fromSpire),
        ownership: { entryIDPrefix: 'scm-', entryScope: 'prefixed' },
        policy: 'sync',
        unsupportedFields: unsupported,
      });
      expect(second.updates).toEqual([]);
    } finally {
      client.close();
      await spire.close();
    }
  });
});

describe('the dropped-field probe asks the server again only after its interval, and survives a failed probe', () => {
  it('warns once per probe, keeps its answer between probes, and keeps the last answer when a probe fails', async () => {
    const spire = await startTestSpire({ droppedFields: ['hint'] });
    const client = new SpireClient({ socket: spire.socketPath });
    let now = 1_000;
    const warnings: string[] = [];
    let failure: unknown;
    const probe = new SpireServerProbe(60_000, () => now);
    const creates = () => spire.server.calls.filter((c) => c.method === 'BatchCreateEntry').length;
    try {
      expect(await probe.refresh(client, 'example.org', 'scm-', (m) => warnings.push(m))).toEqual(new Set(['hint']));
      expect(warnings).toEqual(['SPIRE server does not store: hint; they are left out of comparisons']);

      now += 30_000;
      await probe.refresh(client, 'example.org', 'scm-', (m) => warnings.push(m));
      expect(creates()).toBe(1);

      now += 60_000;
      spire.server.faults.failNext(1, 7, { method: 'BatchCreateEntry', message: 'not allowed' });
      expect(
        await probe.refresh(client, 'example.org', 'scm-', (m, err) => {
          warnings.push(m);
          failure = err;
        }),
      ).toEqual(new Set(['hint']));
      expect(warnings[1]).toBe('unsupported-field probe failed, will retry');
      expect(failure).toBeInstanceOf(Error);
      expect(failure).toMatchObject({ message: expect.stringMatching(/not allowed/) });

      // The failed probe did not count as an answer, so the next pass asks again.
      await probe.refresh(client, 'example.org', 'scm-', (m) => warnings.push(m));
      expect(creates()).toBe(3);
      expect(spire.server.entries.size).toBe(0);
    } finally {
      client.close();
      await spire.close();
    }
  });
});

describe('a SPIRE server older than 1.8.0 ignores requested entry IDs', () => {
  const t = spireForEachTest({ ignoreRequestedEntryIds: true });

  it('the probe entry shows it, and is deleted by the ID the server gave it', async () => {
    expect(await probeSpireServer(t.client, 'example.org', 'east.')).toEqual({ unsupported: new Set(), ignoresEntryIds: true });
    expect(t.spire.server.entries.size).toBe(0);
  });

  it('a probe left by an earlier process is deleted and the probe written again, so the answer is fresh', async () => {
    const probe = { trust_domain: 'example.org', path: '/spire-reconciler/unsupported-fields-probe/east' };
    t.spire.server.seed({ entries: [{ id: 'east.unsupported-fields-probe', parent_id: probe, spiffe_id: probe, selectors: [{ type: 'a', value: '1' }] }] });
    expect((await probeSpireServer(t.client, 'example.org', 'east.')).ignoresEntryIds).toBe(true);
    expect(t.spire.server.entries.size).toBe(0);
  });

  it('a create answered with another ID is recorded, and the probe object reports it once', async () => {
    const plan = planEntries({ declared: [declared(pod('p1'))], current: [], ownership: { entryIDPrefix: 'east.', entryScope: 'prefixed' }, policy: 'sync' });
    const result = await applyPlan(plan, t.client);
    const stored = t.spire.server.entries.all()[0]!.id;
    expect(result.assigned).toEqual(new Map([[plan.creates[0]!.id, stored]]));
    const warnings: string[] = [];
    const probe = new SpireServerProbe();
    probe.noticeAssignedIds(result, (m) => warnings.push(m));
    probe.noticeAssignedIds(result, (m) => warnings.push(m));
    expect(probe.ignoresEntryIds).toBe(true);
    expect(warnings).toEqual([IGNORED_IDS_WARNING]);
  });
});

describe('status is written only when it changed', () => {
  it('compares field by field', () => {
    const stats = { rendered: true, masked: false, set: true };
    expect(statusChanged(undefined, stats)).toBe(true);
    expect(statusChanged({ rendered: true, masked: false, set: true }, stats)).toBe(false);
    expect(statusChanged({ rendered: true, masked: false, set: false }, stats)).toBe(true);
    expect(statusChanged({ rendered: true, masked: false }, stats)).toBe(true);
  });

  it('keeps a static entry set while its entry exists, not only in the pass that created it (upstream bug)', () => {
    const obj = {
      metadata: { name: 'alias', uid: 'cse-1', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { spiffeID: '/alias', parentID: '/spire/server', selectors: ['k8s_psat:cluster:demo'] },
    };
    const state = declareEntries(
      { clusterSPIFFEIDs: [], clusterStaticEntries: [obj], namespaces: [], pods: [], nodes: [], endpointSlices: [], endpoints: [] },
      { trustDomain: 'example.org', clusterName: 'c', clusterDomain: '', parentIdTemplate: compileTemplate(DEFAULT_PARENT_ID_TEMPLATE), ignoreNamespaces: IgnoredNamespaces.none(), className: '', watchClassless: false },
    );
    const d = state.entries[0]!;
    const unchanged = planEntries({ declared: state.entries, current: [current('scm-1', d.spec)], ownership: { entryIDPrefix: 'scm-', entryScope: 'prefixed' }, policy: 'sync' });
    expect(unchanged.creates).toEqual([]);
    expect(computeStatus(state, unchanged).clusterStaticEntries).toEqual({ alias: { rendered: true, masked: false, set: true } });
  });
});

describe('migrating from another prefix (entryIDPrefixCleanup) replaces each entry within one pass', () => {
  it('deletes the old-prefix entry before creating ours, since SPIRE refuses two similar entries', async () => {
    const spire = await startTestSpire();
    const client = new SpireClient({ socket: spire.socketPath });
    try {
      const p = pod('p1');
      spire.server.seed({
        entries: [
          {
            id: 'b6e0a1d2-0000-4000-8000-000000000001',
            spiffe_id: { trust_domain: 'example.org', path: p.spiffeId.slice('spiffe://example.org'.length) },
            parent_id: { trust_domain: 'example.org', path: p.parentId.slice('spiffe://example.org'.length) },
            selectors: p.selectors,
          },
        ],
      });
      const ownership = { entryIDPrefix: 'scm-', entryScope: 'prefixed' as const, entryIDPrefixCleanup: '' };
      const plan = planEntries({ declared: [declared(p)], current: (await client.listEntries()).map(fromSpire), ownership, policy: 'sync' });
      expect(plan.creates[0]?.replaces).toEqual(['b6e0a1d2-0000-4000-8000-000000000001']);
      const result = await applyPlan(plan, client);
      expect(result).toMatchObject({ created: 1, deleted: 1, failures: [] });
      const ids = spire.server.entries.all().map((e) => e.id);
      expect(ids).toHaveLength(1);
      expect(ids[0]).toMatch(/^scm-/);
    } finally {
      client.close();
      await spire.close();
    }
  });
});

describe("a write's answer shows the entry as sent, or it is compared again at the next list", () => {
  const sent = spec({ dnsNames: ['z.example.org', 'a.example.org'], federatesWith: ['a.org', 'b.org'], hint: 'h', jwtSvidTtl: 60, storeSvid: true });
  const answer = (over: Partial<EntryOut> = {}): EntryOut => ({ ...(toSpire(sent, 'id') as EntryOut), revision_number: '3', ...over });

  it('takes DNS names and federated trust domains in any order (the answer sorts them; the entry keeps the order sent)', () => {
    expect(storedAsSent(sent, answer())).toBe(true);
    expect(storedAsSent(sent, answer({ dns_names: ['a.example.org', 'z.example.org'], federates_with: ['b.org', 'a.org'] }))).toBe(true);
  });

  it.each<[string, Partial<EntryOut>]>([
    ['a hint the server does not store', { hint: '' }],
    ['a JWT TTL the server does not store', { jwt_svid_ttl: 0 }],
    ['store_svid the server does not store', { store_svid: false }],
    ['a DNS name missing', { dns_names: ['a.example.org'] }],
    ['another DNS name', { dns_names: ['a.example.org', 'y.example.org'] }],
    ['another X.509 TTL', { x509_svid_ttl: 1 }],
  ])('not with %s', (_, over) => {
    expect(storedAsSent(sent, answer(over))).toBe(false);
  });
});
