import { describe, expect, it } from 'vitest';
import { applyPlan, CurrentState, planEntries } from '../../src/entries/index.js';
import type { EntryOut } from '../../src/spire/index.js';
import { onlyId, spireForEachTest } from '../support/spire.js';
import { declared, pod } from './fixtures.js';

const raw = (id: string, revision: string, path = `/w/${id}`): EntryOut => ({
  ...onlyId(id),
  spiffe_id: { trust_domain: 'example.org', path },
  parent_id: { trust_domain: 'example.org', path: '/node' },
  selectors: [{ type: 'k8s', value: `pod-uid:${id}` }],
  revision_number: revision,
});

/** A full list of these entries, in one page. */
async function relist(state: CurrentState, entries: EntryOut[]) {
  return state.replaceFromPages((async function* () {
    yield entries;
  })());
}

describe('the in-memory SPIRE state reuses what a resync finds unchanged', () => {
  it('keeps the converted entry when the revision is the same, and converts it again when it changed', async () => {
    const state = new CurrentState(10_000);
    const [a1, b1] = await relist(state, [raw('a', '0'), raw('b', '0')]);
    const [a2, b2] = await relist(state, [raw('a', '0'), raw('b', '1', '/w/b-renamed')]);
    expect(a2).toBe(a1);
    expect(b2).not.toBe(b1);
    expect(b2?.spec.spiffeId).toBe('spiffe://example.org/w/b-renamed');
    expect(state.related(['b'], []).map((e) => e.spec.spiffeId)).toEqual(['spiffe://example.org/w/b-renamed']);
  });

  it('converts again an entry this controller wrote since the last list', async () => {
    const state = new CurrentState(10_000);
    const [a1] = await relist(state, [raw('a', '0')]);
    state.record(
      { creates: [], updates: [{ id: 'a', key: a1!.key, spec: { ...a1!.spec, hint: 'new' }, current: a1!.spec, changed: ['hint'], owner: { kind: 'ClusterSPIFFEID', name: 'x', uid: 'x', creationTimestamp: '' } }], deletes: [], conflicts: [], kept: [], keys: new Map(), adopted: [], outsideScope: 0 },
      { created: 0, updated: 1, deleted: 0, failures: [], failedKeys: new Set(), heldBack: [], assigned: new Map() },
    );
    const [a2] = await relist(state, [raw('a', '0')]);
    expect(a2).not.toBe(a1);
    expect(a2?.spec.hint).toBe('');
  });
});

describe('the in-memory SPIRE state holds one copy of what the controller wrote', () => {
  const owner = { kind: 'ClusterSPIFFEID' as const, name: 'x', uid: 'x', creationTimestamp: '' };
  const applied = { created: 1, updated: 0, deleted: 0, failures: [], failedKeys: new Set<string>(), heldBack: [], assigned: new Map<string, string>() };

  it('keeps the written entry (and its spec object) when SPIRE lists it back unchanged', async () => {
    const state = new CurrentState(10_000);
    const [a1] = await relist(state, [raw('a', '0')]);
    const spec = { ...a1!.spec };
    state.record({ creates: [{ id: 'a', key: a1!.key, spec, owner, podUid: 'a' }], updates: [], deletes: [], conflicts: [], kept: [], keys: new Map(), adopted: [], outsideScope: 0 }, applied);
    const [a2] = await relist(state, [raw('a', '1')]);
    expect(a2?.spec).toBe(spec);
    // Reused by revision on the next list, and still found by pod.
    const [a3] = await relist(state, [raw('a', '1')]);
    expect(a3).toBe(a2);
    expect(state.related(['a'], [])).toEqual([a2]);
  });

  it('leaves the state as it was when a paged list fails part way', async () => {
    const state = new CurrentState(10_000);
    await relist(state, [raw('a', '0'), raw('b', '0')]);
    state.invalidate();
    async function* pages() {
      yield [raw('a', '0')];
      throw new Error('UNAVAILABLE: connection reset');
    }
    await expect(state.replaceFromPages(pages())).rejects.toThrow('connection reset');
    expect(state.needsList()).toBe(true);
    expect(state.values().map((e) => e.id).sort()).toEqual(['a', 'b']);
  });

  it('indexes two entries under one key and finds the other after one is deleted', async () => {
    const state = new CurrentState(10_000);
    const [a1, b1] = await relist(state, [raw('a', '0', '/same'), { ...raw('b', '0', '/same'), selectors: [{ type: 'k8s', value: 'pod-uid:a' }] }]);
    expect(a1!.key).toBe(b1!.key);
    expect(state.related([], [a1!.key]).map((e) => e.id).sort()).toEqual(['a', 'b']);
    expect(state.related(['a'], []).map((e) => e.id).sort()).toEqual(['a', 'b']);
    state.record({ creates: [], updates: [], deletes: [{ id: 'a', key: a1!.key, current: a1!.spec, reason: 'undeclared', podUid: 'a' }], conflicts: [], kept: [], keys: new Map(), adopted: [], outsideScope: 0 }, { ...applied, created: 0, deleted: 1 });
    expect(state.related([], [a1!.key]).map((e) => e.id)).toEqual(['b']);
    expect(state.related(['a'], []).map((e) => e.id)).toEqual(['b']);
  });
});

describe('the in-memory SPIRE state compares a listed entry with what it wrote, field by field', () => {
  const owner = { kind: 'ClusterSPIFFEID' as const, name: 'x', uid: 'x', creationTimestamp: '' };
  const applied = { created: 1, updated: 0, deleted: 0, failures: [], failedKeys: new Set<string>(), heldBack: [], assigned: new Map<string, string>() };
  const written = async (over: Partial<EntryOut> = {}) => {
    const state = new CurrentState(10_000);
    const [a1] = await relist(state, [{ ...raw('a', '0'), selectors: [{ type: 'k8s', value: 'pod-uid:a' }, { type: 'k8s', value: 'ns:n' }] }]);
    const spec = { ...a1!.spec };
    state.record({ creates: [{ id: 'a', key: a1!.key, spec, owner, podUid: 'a' }], updates: [], deletes: [], conflicts: [], kept: [], keys: new Map(), adopted: [], outsideScope: 0 }, applied);
    const version = state.version;
    const [a2] = await relist(state, [{ ...raw('a', '1'), selectors: [{ type: 'k8s', value: 'pod-uid:a' }, { type: 'k8s', value: 'ns:n' }], ...over }]);
    return { same: a2!.spec === spec, changed: state.version !== version, entry: a2! };
  };

  it('keeps it when only the selector order differs', async () => {
    expect(await written({ selectors: [{ type: 'k8s', value: 'ns:n' }, { type: 'k8s', value: 'pod-uid:a' }] })).toMatchObject({ same: true, changed: false });
  });

  it.each<[string, Partial<EntryOut>]>([
    ['the SPIFFE ID', { spiffe_id: { trust_domain: 'example.org', path: '/w/b' } }],
    ['the trust domain of the SPIFFE ID', { spiffe_id: { trust_domain: 'example.com', path: '/w/a' } }],
    ['the parent ID', { parent_id: { trust_domain: 'example.org', path: '/other' } }],
    ['a selector', { selectors: [{ type: 'k8s', value: 'pod-uid:a' }, { type: 'k8s', value: 'ns:m' }] }],
    ['the DNS names', { dns_names: ['x.example.org'] }],
    ['the X.509 TTL', { x509_svid_ttl: 60 }],
    ['admin', { admin: true }],
  ])('converts it again when %s differs', async (_, over) => {
    const r = await written(over);
    expect(r).toMatchObject({ same: false, changed: true });
  });
});

describe('writes recorded while a list is in progress survive it', () => {
  const owner = { kind: 'ClusterSPIFFEID' as const, name: 'x', uid: 'x', creationTimestamp: '' };
  const ok = { created: 1, updated: 0, deleted: 1, failures: [], failedKeys: new Set<string>(), heldBack: [], assigned: new Map<string, string>() };

  it('replays a create and a delete made between two pages onto the listed entries, whichever page the list read them on', async () => {
    const state = new CurrentState(10_000);
    const [a, gone] = await relist(state, [raw('a', '0'), raw('gone', '0')]);
    let release!: () => void;
    const paused = new Promise<void>((r) => (release = r));
    const listing = state.replaceFromPages((async function* () {
      yield [raw('a', '0'), raw('gone', '0')]; // read before the writes below
      await paused;
      yield [];
    })());
    await new Promise((r) => setImmediate(r));
    const spec = { ...a!.spec, spiffeId: 'spiffe://example.org/w/new', selectors: [{ type: 'k8s', value: 'pod-uid:new' }] };
    state.record({ creates: [{ id: 'new', key: 'k-new', spec, owner, podUid: 'new' }], updates: [], deletes: [{ id: 'gone', key: gone!.key, current: gone!.spec, reason: 'undeclared', podUid: 'gone' }], conflicts: [], kept: [], keys: new Map(), adopted: [], outsideScope: 0 }, ok);
    release();
    const listed = await listing;
    expect(listed.map((e) => e.id).sort()).toEqual(['a', 'new']);
    expect(state.values().map((e) => e.id).sort()).toEqual(['a', 'new']);
    expect(state.related(['new', 'gone'], []).map((e) => e.id)).toEqual(['new']);
    expect(state.isCertain()).toBe(true);
  });

  it('stays uncertain when a write recorded during the list had an unknown outcome', async () => {
    const state = new CurrentState(10_000);
    await relist(state, []);
    let release!: () => void;
    const paused = new Promise<void>((r) => (release = r));
    const listing = state.replaceFromPages((async function* () {
      await paused;
      yield [];
    })());
    state.record({ creates: [], updates: [], deletes: [], conflicts: [], kept: [], keys: new Map(), adopted: [], outsideScope: 0 }, { ...ok, failures: [{ op: 'create', id: 'x', key: 'x', spiffeId: 'spiffe://example.org/x', codeName: 'UNAVAILABLE', message: 'outcome unknown' }] });
    release();
    await listing;
    expect(state.isCertain()).toBe(false);
    expect(state.needsList()).toBe(true);
  });
});

describe('a list installed in slices, pod passes writing meanwhile', () => {
  const owner = { kind: 'ClusterSPIFFEID' as const, name: 'x', uid: 'x', creationTimestamp: '' };
  const ok = { created: 1, updated: 0, deleted: 1, failures: [], failedKeys: new Set<string>(), heldBack: [], assigned: new Map<string, string>() };
  // Enough entries for the install to yield several times; a budget of 0 turns the event loop at every yield.
  const many = Array.from({ length: 2000 }, (_, i) => raw(`e${i}`, '0'));

  it('replays a create and a delete recorded while the list is installed onto the new set', async () => {
    const state = new CurrentState(10_000, Date.now, 0);
    const [first] = await relist(state, many);
    // The last entry at a new revision: the list builds a new set.
    const changed = [...many.slice(0, -1), raw(`e${many.length - 1}`, '1', '/w/renamed')];
    let installed = false;
    let recordedDuringInstall = false;
    const listing = state
      .replaceFromPages((async function* () {
        yield changed;
        // The list is read: the next turn of the event loop falls in the install.
        setImmediate(() => {
          // The entries held are still the old ones.
          recordedDuringInstall = !installed && state.related([`e${many.length - 1}`], [])[0]!.spec.spiffeId === `spiffe://example.org/w/e${many.length - 1}`;
          const spec = { ...first!.spec, spiffeId: 'spiffe://example.org/w/new', selectors: [{ type: 'k8s', value: 'pod-uid:new' }] };
          state.record({ creates: [{ id: 'new', key: 'k-new', spec, owner, podUid: 'new' }], updates: [], deletes: [{ id: 'e0', key: first!.key, current: first!.spec, reason: 'undeclared', podUid: 'e0' }], conflicts: [], kept: [], keys: new Map(), adopted: [], outsideScope: 0 }, ok);
        });
      })())
      .then((listed) => {
        installed = true;
        return listed;
      });
    const listed = await listing;
    expect(recordedDuringInstall).toBe(true);
    const ids = listed.map((e) => e.id);
    expect(ids).toContain('new');
    expect(ids).not.toContain('e0');
    expect(ids).toHaveLength(many.length);
    expect(state.related(['new', 'e0'], []).map((e) => e.id)).toEqual(['new']);
    expect(state.related([`e${many.length - 1}`], []).map((e) => e.spec.spiffeId)).toEqual(['spiffe://example.org/w/renamed']);
    expect(state.isCertain()).toBe(true);
  });

  it('stays uncertain when the state is invalidated while the list is installed', async () => {
    const state = new CurrentState(10_000, Date.now, 0);
    await relist(state, many);
    let installed = false;
    let invalidatedDuringInstall = false;
    const listing = state
      .replaceFromPages((async function* () {
        yield [...many.slice(0, -1), raw(`e${many.length - 1}`, '1', '/w/renamed')];
        setImmediate(() => {
          invalidatedDuringInstall = !installed;
          state.invalidate();
        });
      })())
      .then(() => (installed = true));
    await listing;
    expect(invalidatedDuringInstall).toBe(true);
    expect(state.isCertain()).toBe(false);
    expect(state.needsList()).toBe(true);
  });

  it('installs what an install in one step installs', async () => {
    const lists = [many, [...many.slice(0, 5), raw('e5', '1', '/w/e5-renamed'), ...many.slice(6)], many.slice(1), [...many, raw('extra', '0')]];
    const sliced = new CurrentState(10_000, Date.now, 0);
    const whole = new CurrentState(10_000);
    for (const list of lists) {
      const [a, b] = [await relist(sliced, list), await relist(whole, list)];
      expect(a.map((e) => [e.id, e.key, e.revision])).toEqual(b.map((e) => [e.id, e.key, e.revision]));
      expect(sliced.values().map((e) => e.id)).toEqual(whole.values().map((e) => e.id));
      expect(sliced.related(['e1', 'e5', 'extra'], [a[3]!.key]).map((e) => e.id)).toEqual(whole.related(['e1', 'e5', 'extra'], [b[3]!.key]).map((e) => e.id));
      expect([sliced.version, sliced.indexBuilds]).toEqual([whole.version, whole.indexBuilds]);
    }
  });
});

describe('writes record the revision SPIRE stored them under, so the list after them reuses the index', () => {
  const ownership = { entryIDPrefix: 'scm-', entryScope: 'prefixed' } as const;

  describe('against a server that stores every field', () => {
    const t = spireForEachTest();

    it('lists back a pass of creates, updates and deletes without building the entries or their indexes again', async () => {
      const state = new CurrentState(10_000);
      await state.replaceFromPages(t.client.entryPages());
      // The first pass creates three pods' entries, DNS names out of sorted order (SPIRE answers them sorted).
      const first = planEntries({
        declared: ['p1', 'p2', 'p3'].map((uid) => declared({ ...pod(uid), dnsNames: [`z.${uid}.svc`, `a.${uid}.svc`] })),
        current: state.values(),
        ownership,
        policy: 'sync',
      });
      state.record(first, await applyPlan(first, t.client));
      expect(await state.replaceFromPages(t.client.entryPages())).toHaveLength(3);
      const builds = state.indexBuilds;
      expect(builds).toBeTypeOf('number');
      const version = state.version;

      // The next pass updates p1, creates p4 and deletes p3's entry (its pod gone).
      const second = planEntries({
        declared: [declared({ ...pod('p1'), dnsNames: ['z.p1.svc', 'a.p1.svc'], hint: 'changed' }), declared(pod('p2')), declared(pod('p4'))],
        current: state.values(),
        ownership,
        policy: 'sync',
      });
      expect([second.creates.length, second.updates.length, second.deletes.length]).toEqual([1, 2, 1]);
      const applied = await applyPlan(second, t.client);
      expect(applied.failures).toEqual([]);
      state.record(second, applied);
      const recorded = state.values();
      const written = state.version;
      expect(written).toBe(version + 1);

      const listed = await state.replaceFromPages(t.client.entryPages());
      expect(state.indexBuilds).toBe(builds);
      expect(state.version).toBe(written);
      // The very entries recorded, each at the revision SPIRE lists.
      const byId = new Map(listed.map((e) => [e.id, e]));
      for (const e of recorded) expect(byId.get(e.id)).toBe(e);
      const raw = await t.client.listEntries();
      expect(raw.map((e) => [e.id, e.revision_number]).sort()).toEqual(recorded.map((e) => [e.id, e.revision]).sort());
    });

    it('builds them again when another client changed an entry after the write', async () => {
      const state = new CurrentState(10_000);
      const plan = planEntries({ declared: [declared(pod('p1')), declared(pod('p2'))], current: [], ownership, policy: 'sync' });
      state.record(plan, await applyPlan(plan, t.client));
      await state.replaceFromPages(t.client.entryPages());
      const builds = state.indexBuilds;
      const id = plan.creates[0]!.id;
      const res = await t.spire.raw.entry.BatchUpdateEntry({ entries: [{ id, hint: 'by someone else' }], input_mask: { hint: true } });
      expect(res.results[0]?.status?.code).toBe(0);
      await state.replaceFromPages(t.client.entryPages());
      expect(state.indexBuilds).toBe(builds + 1);
      expect(state.related([], [plan.creates[0]!.key])[0]?.spec.hint).toBe('by someone else');
    });
  });

  describe('against a server that drops a field', () => {
    const t = spireForEachTest({ droppedFields: ['hint'] });

    it('records no revision for a write whose answer lacks a field sent, so the next list holds what SPIRE stored', async () => {
      const state = new CurrentState(10_000);
      const plan = planEntries({ declared: [declared({ ...pod('p1'), hint: 'dropped' }), declared(pod('p2'))], current: [], ownership, policy: 'sync' });
      const applied = await applyPlan(plan, t.client);
      expect([...(applied.revisions?.keys() ?? [])]).toEqual([plan.creates.find((c) => c.spec.hint === '')!.id]);
      state.record(plan, applied);
      const builds = state.indexBuilds;
      const listed = await state.replaceFromPages(t.client.entryPages());
      expect(state.indexBuilds).toBe(builds + 1);
      expect(listed.map((e) => e.spec.hint)).toEqual(['', '']);
    });
  });
});
