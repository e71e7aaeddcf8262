import { describe, expect, it } from 'vitest';
import { changedFields } from '../../src/entries/compare.js';
import { entryKey, type EntrySpec } from '../../src/entries/model.js';
import { classifyEntry, type Ownership } from '../../src/entries/ownership.js';
import { planEntries, type PlanInput } from '../../src/entries/plan.js';
import { comparePreference } from '../../src/api/index.js';
import { current, declared, owner, pod, spec } from './fixtures.js';

const prefixed: Ownership = { entryIDPrefix: 'scm-', entryScope: 'prefixed' };
let n = 0;
const base = (over: Partial<PlanInput>): PlanInput => ({
  declared: [],
  current: [],
  ownership: prefixed,
  policy: 'sync',
  newId: () => `scm-new-${++n}`,
  ...over,
});

describe('entries are keyed by SPIFFE ID, parent ID and the selector set', () => {
  it('ignores selector order and every non-key field', () => {
    const a = spec({ selectors: [{ type: 'k8s', value: 'a' }, { type: 'unix', value: 'uid:1' }], dnsNames: ['x'] });
    const b = spec({ selectors: [{ type: 'unix', value: 'uid:1' }, { type: 'k8s', value: 'a' }], x509SvidTtl: 60 });
    expect(entryKey(a)).toBe(entryKey(b));
  });

  it.each([
    ['spiffe ID', { spiffeId: 'spiffe://example.org/other' }],
    ['parent ID', { parentId: 'spiffe://example.org/spire/agent/x' }],
    ['selectors', { selectors: [{ type: 'k8s', value: 'pod-uid:p2' }] }],
  ])('changes with the %s', (_what, over) => {
    expect(entryKey(spec(over))).not.toBe(entryKey(spec()));
  });

  it('separates type and value so that A+BC and AB+C differ (upstream collides)', () => {
    expect(entryKey(spec({ selectors: [{ type: 'A', value: 'BC' }] }))).not.toBe(entryKey(spec({ selectors: [{ type: 'AB', value: 'C' }] })));
  });
});

describe('when several objects declare the same entry, the preferred one wins', () => {
  const t0 = '2026-01-01T00:00:00Z';
  const t1 = '2026-01-02T00:00:00Z';
  it.each([
    ['the older object', owner('old', { creationTimestamp: t0 }), owner('new', { creationTimestamp: t1 })],
    ['at equal age, the one not being deleted', owner('live', { uid: 'z' }), owner('dying', { uid: 'a', deletionTimestamp: t1 })],
    ['when both are being deleted, the later deletion', owner('late', { uid: 'z', deletionTimestamp: t1 }), owner('early', { uid: 'a', deletionTimestamp: t0 })],
    ['at equal age and state, the lower UID', owner('x', { uid: 'a' }), owner('y', { uid: 'b' })],
  ])('%s', (_rule, winner, loser) => {
    expect(comparePreference(winner, loser)).toBeLessThan(0);
    expect(comparePreference(loser, winner)).toBeGreaterThan(0);
    const plan = planEntries(base({ declared: [declared(spec(), loser), declared(spec(), winner)] }));
    const [state] = plan.keys.values();
    expect(state?.winner.owner.name).toBe(winner.name);
    expect(state?.masked.map((m) => m.owner.name)).toEqual([loser.name]);
    expect(plan.creates).toHaveLength(1);
    expect(plan.creates[0]?.owner.name).toBe(winner.name);
  });

  it('orders three or more declarations of one entry by preference, each key on its own', () => {
    const oldest = owner('oldest', { creationTimestamp: t0 });
    const middle = owner('middle', { creationTimestamp: t1 });
    const newest = owner('newest', { creationTimestamp: '2026-01-03T00:00:00Z' });
    const other = spec({ spiffeId: 'spiffe://example.org/other' });
    const plan = planEntries(base({ declared: [declared(spec(), newest), declared(other, newest), declared(spec(), oldest), declared(spec(), middle)] }));
    const states = [...plan.keys.values()];
    expect(states.map((k) => [k.winner.owner.name, k.masked.map((m) => m.owner.name)])).toEqual([
      ['oldest', ['middle', 'newest']],
      ['newest', []],
    ]);
    expect(plan.creates.map((c) => c.owner.name)).toEqual(['oldest', 'newest']);
  });

  it('masks across kinds: an older static entry masks a ClusterSPIFFEID entry', () => {
    const s = spec();
    const staticOwner = owner('static', { kind: 'ClusterStaticEntry', creationTimestamp: '2025-01-01T00:00:00Z' });
    const plan = planEntries(base({ declared: [declared(s, owner('csid')), declared(s, staticOwner)] }));
    expect([...plan.keys.values()][0]?.winner.owner.kind).toBe('ClusterStaticEntry');
  });
});

describe('an existing entry is updated only on the fields that differ, keeping its ID', () => {
  it.each([
    ['x509SvidTtl', { x509SvidTtl: 3600 }],
    ['jwtSvidTtl', { jwtSvidTtl: 300 }],
    ['federatesWith', { federatesWith: ['domain1.org'] }],
    ['admin', { admin: true }],
    ['downstream', { downstream: true }],
    ['dnsNames', { dnsNames: ['web.a.svc'] }],
    ['hint', { hint: 'web' }],
    ['storeSvid', { storeSvid: true }],
  ] as const)('%s', (field, over) => {
    const plan = planEntries(base({ declared: [declared(spec(over as Partial<EntrySpec>))], current: [current('scm-1', spec())] }));
    expect(plan.updates.map((u) => [u.id, u.changed])).toEqual([['scm-1', [field]]]);
    expect(plan.creates).toEqual([]);
    expect(plan.deletes).toEqual([]);
  });

  it('compares federatesWith as a set', () => {
    expect(changedFields(spec({ federatesWith: ['b', 'a'] }), spec({ federatesWith: ['a', 'b'] }))).toEqual([]);
  });

  it('treats a dnsNames reorder as a change, because the first name becomes the certificate CN', () => {
    expect(changedFields(spec({ dnsNames: ['b', 'a'] }), spec({ dnsNames: ['a', 'b'] }))).toEqual(['dnsNames']);
  });

  it('skips fields the SPIRE server does not support, which would otherwise differ forever', () => {
    const unsupported = new Set(['hint', 'jwtSvidTtl', 'storeSvid'] as const);
    expect(changedFields(spec(), spec({ hint: 'h', jwtSvidTtl: 5, storeSvid: true }), unsupported)).toEqual([]);
  });

  it('does nothing when nothing differs', () => {
    const plan = planEntries(base({ declared: [declared(spec())], current: [current('scm-1', spec())] }));
    expect([plan.creates, plan.updates, plan.deletes]).toEqual([[], [], []]);
  });

  it('deletes duplicates of a declared key beyond the first', () => {
    const plan = planEntries(base({ declared: [declared(spec())], current: [current('scm-1', spec()), current('scm-2', spec())] }));
    expect(plan.deletes.map((d) => [d.id, d.reason])).toEqual([['scm-2', 'duplicate']]);
  });
});

describe('which entries the controller may touch (entryIDPrefix, entryScope, entryIDPrefixCleanup)', () => {
  it.each([
    [{ entryIDPrefix: 'scm-', entryScope: 'prefixed' }, 'scm-1', 'managed'],
    [{ entryIDPrefix: 'scm-', entryScope: 'prefixed' }, 'b6e0a1d2-uuid', 'foreign'],
    [{ entryIDPrefix: 'scm-', entryScope: 'all' }, 'b6e0a1d2-uuid', 'managed'],
    [{ entryIDPrefix: 'scm-', entryScope: 'prefixed', entryIDPrefixCleanup: 'old.' }, 'old.1', 'cleanup'],
    [{ entryIDPrefix: 'scm-', entryScope: 'prefixed', entryIDPrefixCleanup: 'old.' }, 'other.1', 'foreign'],
    [{ entryIDPrefix: 'scm-', entryScope: 'prefixed', entryIDPrefixCleanup: '' }, 'b6e0a1d2-uuid', 'cleanup'],
    [{ entryIDPrefix: 'scm-', entryScope: 'prefixed', entryIDPrefixCleanup: '' }, 'cluster.b6e0', 'foreign'],
    [{ entryIDPrefix: 'a.', entryScope: 'prefixed' }, 'a.b6e0', 'managed'],
    // The prefix of the cluster `a` does not take the IDs of the cluster `a.b`.
    [{ entryIDPrefix: 'a.', entryScope: 'prefixed' }, 'a.b.b6e0', 'foreign'],
    // Upstream's "no prefix": every entry.
    [{ entryIDPrefix: '', entryScope: 'prefixed' }, 'cluster.b6e0', 'managed'],
  ] as const)('%o: %s is %s', (ownership, id, cls) => {
    expect(classifyEntry(current(id, spec()), ownership)).toBe(cls);
  });

  it('creates new entries with the prefix', () => {
    const plan = planEntries({ declared: [declared(spec())], current: [], ownership: prefixed, policy: 'sync' });
    expect(plan.creates[0]?.id).toMatch(/^scm-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('under prefixed scope, never changes or deletes a foreign entry, and reports a declared one it holds as a conflict', () => {
    const plan = planEntries(
      base({
        declared: [declared(spec({ dnsNames: ['new'] }))],
        current: [current('manual-1', spec()), current('manual-2', pod('other'))],
      }),
    );
    expect([plan.creates, plan.updates, plan.deletes]).toEqual([[], [], []]);
    expect(plan.conflicts.map((c) => [c.owner.name, c.foreignIds])).toEqual([['a', ['manual-1']]]);
  });

  it('under all scope, adopts and updates what it finds, and deletes the undeclared', () => {
    const plan = planEntries(
      base({
        ownership: { entryIDPrefix: 'scm-', entryScope: 'all' },
        declared: [declared(spec({ dnsNames: ['new'] }))],
        current: [current('manual-1', spec()), current('manual-2', pod('other'))],
      }),
    );
    expect(plan.updates.map((u) => u.id)).toEqual(['manual-1']);
    expect(plan.deletes.map((d) => d.id)).toEqual(['manual-2']);
  });

  it('deletes entries of the cleanup prefix even when they are still declared, and recreates them under ours', () => {
    const plan = planEntries(
      base({
        ownership: { entryIDPrefix: 'scm-', entryScope: 'prefixed', entryIDPrefixCleanup: 'old.' },
        declared: [declared(spec())],
        current: [current('old.1', spec())],
      }),
    );
    expect(plan.creates).toHaveLength(1);
    expect(plan.deletes.map((d) => [d.id, d.reason])).toEqual([['old.1', 'cleanup']]);
  });
});

describe('join-token entries are never deleted', () => {
  const joinToken = spec({
    parentId: 'spiffe://example.org/spire/agent/join_token/abc',
    selectors: [{ type: 'spiffe_id', value: 'spiffe://example.org/spire/agent/join_token/abc' }],
  });
  it.each([
    ['undeclared under all scope', { entryIDPrefix: 'scm-', entryScope: 'all' } as Ownership],
    ['undeclared under prefixed scope', prefixed],
    ['of the cleanup prefix', { entryIDPrefix: 'scm-', entryScope: 'prefixed', entryIDPrefixCleanup: '' } as Ownership],
  ])('%s', (_case, ownership) => {
    const plan = planEntries(base({ ownership, current: [current(ownership.entryScope === 'prefixed' && ownership.entryIDPrefixCleanup === undefined ? 'scm-jt' : 'jt-uuid', joinToken)] }));
    expect(plan.deletes).toEqual([]);
    expect(plan.kept.map((k) => k.reason)).toEqual(['join-token']);
  });
});

describe('policy limits what a sync may do', () => {
  const input = base({
    declared: [declared(pod('p1')), declared(spec({ ...pod('p2'), hint: 'new' }))],
    current: [current('scm-2', pod('p2')), current('scm-3', pod('p3'))],
  });
  it.each([
    ['sync', 1, 1, 1],
    ['upsert-only', 1, 1, 0],
    ['create-only', 1, 0, 0],
  ] as const)('%s: %i create, %i update, %i delete', (policy, creates, updates, deletes) => {
    const plan = planEntries({ ...input, policy });
    expect([plan.creates.length, plan.updates.length, plan.deletes.length]).toEqual([creates, updates, deletes]);
    expect(plan.kept.filter((k) => k.reason === 'policy')).toHaveLength(2 - updates - deletes);
  });
});

describe('unknown is not absent: entries whose declared state could not be computed are kept', () => {
  it('keeps the entries of a pod whose render failed, recognised by its pod-uid selector', () => {
    const plan = planEntries(base({ current: [current('scm-1', pod('p1')), current('scm-2', pod('p2'))], unknownPods: new Set(['p1']) }));
    expect(plan.deletes.map((d) => d.id)).toEqual(['scm-2']);
    expect(plan.kept).toEqual([{ id: 'scm-1', reason: 'render-unknown', detail: 'the declared entries of pod p1 could not be computed this pass', podUid: 'p1' }]);
  });

  it('keeps every pod entry when an object selector could not be evaluated', () => {
    const plan = planEntries(base({ current: [current('scm-1', pod('p1')), current('scm-s', spec({ selectors: [{ type: 'unix', value: 'uid:0' }] }))], keepAllPodEntries: 'bad selector' }));
    expect(plan.deletes.map((d) => d.id)).toEqual(['scm-s']);
  });

  it('keeps every non-pod entry when a static entry failed to render', () => {
    const plan = planEntries(base({ current: [current('scm-1', pod('p1')), current('scm-s', spec({ selectors: [{ type: 'unix', value: 'uid:0' }] }))], keepNonPodEntries: 'bad static' }));
    expect(plan.deletes.map((d) => d.id)).toEqual(['scm-1']);
  });

  it('deletes nothing at all when a list call failed', () => {
    const plan = planEntries(base({ current: [current('scm-1', pod('p1'))], suppressDeletes: 'listing pods failed' }));
    expect(plan.deletes).toEqual([]);
    expect(plan.kept[0]?.reason).toBe('deletes-suppressed');
  });
});
