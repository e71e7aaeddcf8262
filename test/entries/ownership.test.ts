import { describe, expect, it } from 'vitest';
import { agentAttribution } from '../../src/entries/agents.js';
import { ClaimedIds } from '../../src/entries/claims.js';
import { describeMigration, migrationNotes } from '../../src/entries/migration.js';
import { DEFAULT_PARENT_ID_TEMPLATE } from '../../src/api/index.js';
import { classifyEntry, defaultEntryIDPrefix, type Ownership, ownershipFromConfig } from '../../src/entries/ownership.js';
import { planEntries, type PlanInput } from '../../src/entries/plan.js';
import { compileTemplate } from '../../src/template/index.js';
import { current, declared, owner, pod, spec } from './fixtures.js';

const TD = 'example.org';
const agent = (cluster: string, node = 'node-1') => `spiffe://${TD}/spire/agent/k8s_psat/${cluster}/${node}`;
const podOf = (cluster: string, uid: string) => ({ ...pod(uid), parentId: agent(cluster) });
const staticEntry = (path: string) => spec({ spiffeId: `spiffe://${TD}${path}`, parentId: `spiffe://${TD}/spire/server`, selectors: [{ type: 'k8s_psat', value: 'cluster:x' }] });

/** The ownership of a controller for `cluster` whose config sets no entryIDPrefix (the default). */
const defaults = (cluster: string, over: Partial<Parameters<typeof ownershipFromConfig>[0]> = {}): Ownership =>
  ownershipFromConfig({ trustDomain: TD, clusterName: cluster, entryScope: 'prefixed', ...over }, compileTemplate(DEFAULT_PARENT_ID_TEMPLATE));

let n = 0;
const plan = (ownership: Ownership, over: Partial<PlanInput>) => planEntries({ declared: [], current: [], ownership, policy: 'sync', newId: () => `${ownership.entryIDPrefix}new-${++n}`, ...over });

describe('the entry ID prefix defaults to scm- and one per cluster', () => {
  it.each([
    ['east', 'scm-east.'],
    ['prod.eu-1', 'scm-prod.eu-1.'],
    ['already.', 'scm-already.'],
  ])('%s gives %s', (cluster, prefix) => {
    expect(defaultEntryIDPrefix(cluster)).toBe(prefix);
    expect(defaults(cluster).entryIDPrefix).toBe(prefix);
  });

  it('new entries get scm-<clusterName>.<uuid> IDs', () => {
    const p = planEntries({ declared: [declared(podOf('east', 'e1'))], current: [], ownership: defaults('east'), policy: 'sync' });
    expect(p.creates[0]?.id).toMatch(/^scm-east\.[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('replaces characters SPIRE refuses in an entry ID, and keeps two such names apart by a hash', () => {
    const a = defaultEntryIDPrefix('team a/prod');
    const b = defaultEntryIDPrefix('team:a/prod');
    expect(a).toMatch(/^scm-team-a-prod-[0-9a-f]{8}\.$/);
    expect(b).toMatch(/^scm-team-a-prod-[0-9a-f]{8}\.$/);
    expect(a).not.toBe(b);
    // With a 36-character UUID, within SPIRE's 255 bytes.
    expect(defaultEntryIDPrefix('x'.repeat(300)).length).toBeLessThanOrEqual(205);
  });

  it('recognises both earlier defaults: bare scm- (names no cluster) and <clusterName>. (names this one)', () => {
    expect(defaults('east').formerPrefixes).toEqual([
      { prefix: 'scm-', proves: false },
      { prefix: 'east.', proves: true },
    ]);
    expect(defaults('team a/prod').formerPrefixes?.[1]?.prefix).toBe(defaultEntryIDPrefix('team a/prod').slice('scm-'.length));
  });

  it('a cluster named scm-a: its former prefix scm-a. is cluster a\'s prefix now, so it proves nothing, and a keeps off scm-a\'s pod entries', () => {
    expect(defaults('scm-a').formerPrefixes).toEqual([
      { prefix: 'scm-', proves: false },
      { prefix: 'scm-a.', proves: false },
    ]);
    expect(defaults('a').prefixFormerlyOf).toBe('scm-a');
    expect(defaults('east').prefixFormerlyOf).toBe('scm-east');
    expect(defaults('team a').prefixFormerlyOf).toBeUndefined();
  });

  it('an explicit entryIDPrefix is taken as it is (upstream appends the dot), with no former prefix to recognise', () => {
    for (const entryIDPrefix of ['scm.', 'east.', 'scm-.']) {
      const o = defaults('east', { entryIDPrefix });
      expect(o.entryIDPrefix).toBe(entryIDPrefix);
      expect([o.formerPrefixes, o.prefixFormerlyOf]).toEqual([undefined, undefined]);
    }
  });

  it('refuses a cleanup prefix equal to the derived prefix: every new entry would be deleted by the next pass', () => {
    expect(() => defaults('east', { entryIDPrefixCleanup: 'scm-east.' })).toThrow(
      'entryIDPrefixCleanup: must differ from the entry ID prefix "scm-east." (derived from clusterName: entryIDPrefix is not set)',
    );
  });
});

describe('whose an entry is, with default configs, by its ID and the agents its parent names', () => {
  const u = '2b7e1f5a-9c3d-4e8f-a1b2-c3d4e5f60001';
  const server = `spiffe://${TD}/spire/server`;
  const at = (parent: string) => spec({ parentId: parent });
  it.each([
    // cluster, ID, parent, class
    ['east', `scm-east.${u}`, agent('east'), 'managed'],
    ['east', `scm-east.${u}`, agent('west'), 'managed'],
    ['east', `scm-east.${u}`, server, 'managed'],
    // The default before: the cluster name proves it ours, wherever the parent points.
    ['east', `east.${u}`, agent('east'), 'managed'],
    ['east', `east.${u}`, agent('west'), 'managed'],
    ['east', `east.${u}`, server, 'managed'],
    // The first default names no cluster: ours under our agents, another's under its, else only if we declare it.
    ['east', `scm-${u}`, agent('east'), 'managed'],
    ['east', `scm-${u}`, agent('west'), 'foreign'],
    ['east', `scm-${u}`, server, 'adoptable'],
    // Another cluster's, now or before.
    ['east', `scm-west.${u}`, agent('east'), 'foreign'],
    ['east', `scm-west.${u}`, server, 'foreign'],
    ['east', `west.${u}`, agent('east'), 'foreign'],
    ['east', `west.${u}`, server, 'foreign'],
    // The cluster east.x's, under either default.
    ['east', `scm-east.x.${u}`, server, 'foreign'],
    ['east', `east.x.${u}`, server, 'foreign'],
    // Clusters a and scm-a: scm-a. is a's prefix now and was scm-a's before.
    ['a', `scm-a.${u}`, agent('a'), 'managed'],
    ['a', `scm-a.${u}`, server, 'managed'],
    ['a', `scm-a.${u}`, agent('scm-a'), 'foreign'],
    ['scm-a', `scm-a.${u}`, agent('scm-a'), 'managed'],
    ['scm-a', `scm-a.${u}`, server, 'adoptable'],
    ['scm-a', `scm-a.${u}`, agent('a'), 'foreign'],
    ['scm-a', `scm-scm-a.${u}`, server, 'managed'],
  ] as const)('cluster %s: %s under %s is %s', (cluster, id, parent, cls) => {
    expect(classifyEntry(current(id, at(parent)), defaults(cluster))).toBe(cls);
  });
});

describe('which cluster a parent ID names', () => {
  const attribution = agentAttribution(TD, 'east', compileTemplate('spiffe://{{ .TrustDomain }}/k8s/{{ .ClusterName }}/node/{{ .NodeMeta.Name }}'));
  it.each([
    [agent('west'), 'west'],
    [`spiffe://${TD}/spire/agent/k8s_sat/west/6a1c0f4e`, 'west'],
    [`spiffe://${TD}/k8s/west/node/n1`, 'west'],
    [`spiffe://${TD}/k8s/east/node/n1`, 'east'],
    [`spiffe://${TD}/spire/server`, undefined],
    [`spiffe://${TD}/spire/agent/k8s_psat/west`, undefined],
    [`spiffe://other.org/spire/agent/k8s_psat/west/n1`, undefined],
  ])('%s: %s', (parent, cluster) => {
    expect(attribution.clusterOf(parent)).toBe(cluster);
  });

  it('learns nothing from a template that puts node data before the cluster name', () => {
    const a = agentAttribution(TD, 'east', compileTemplate('spiffe://{{ .TrustDomain }}/n/{{ .NodeMeta.Name }}/{{ .ClusterName }}'));
    expect(a.clusterOf(`spiffe://${TD}/n/n1/west`)).toBeUndefined();
    expect(a.clusterOf(agent('west'))).toBe('west');
  });
});

describe('an entry whose parent names another cluster\'s agents is never deleted unless its ID proves it ours', () => {
  it('under entryScope all: the other cluster\'s pod entry is kept, ours is deleted', () => {
    const p = plan({ ...defaults('east'), entryScope: 'all' }, { current: [current('a1', podOf('west', 'w1')), current('a2', podOf('east', 'e1'))] });
    expect(p.deletes.map((d) => d.id)).toEqual(['a2']);
    expect(p.kept).toEqual([{ id: 'a1', reason: 'other-cluster', detail: 'its parent ID names an agent of cluster west, and its ID does not show it is ours', podUid: 'w1' }]);
  });

  it('with entryIDPrefixCleanup "": the other cluster\'s server-generated entries are not even candidates', () => {
    const p = plan(defaults('east', { entryIDPrefixCleanup: '' }), {
      current: [current('0b8e5d1c-0000-4000-8000-000000000001', podOf('west', 'w1')), current('0b8e5d1c-0000-4000-8000-000000000002', podOf('east', 'e1'))],
    });
    expect(p.deletes.map((d) => d.id)).toEqual(['0b8e5d1c-0000-4000-8000-000000000002']);
    expect(p.kept).toEqual([]);
  });

  it('an entry with our prefix is ours wherever its parent points (a static entry for another cluster\'s node)', () => {
    const p = plan(defaults('east'), { current: [current('scm-east.1', podOf('west', 'w1'))] });
    expect(p.deletes.map((d) => d.id)).toEqual(['scm-east.1']);
  });

  it('another cluster\'s entries under its own prefix are foreign: not deleted, not reported', () => {
    const p = plan(defaults('east'), {
      current: [current('scm-west.1', podOf('west', 'w1')), current('scm-west.2', staticEntry('/gw')), current('west.3', podOf('west', 'w3')), current('west.4', staticEntry('/gw4'))],
    });
    expect([p.deletes, p.kept, p.conflicts]).toEqual([[], [], []]);
  });
});

describe('after an upgrade, entries of the default before (<clusterName>.) are ours: updated in place, never duplicated or leaked', () => {
  it('a declared entry is updated in place, not created again; undeclared ones are deleted, whatever their parent', () => {
    const e1 = podOf('east', 'e1');
    const gw = staticEntry('/gw');
    const p = plan(defaults('east'), {
      declared: [declared({ ...e1, dnsNames: ['web'] }), declared(gw, owner('gw', { kind: 'ClusterStaticEntry' }))],
      current: [current('east.1', e1), current('east.2', podOf('east', 'gone')), current('east.3', gw), current('east.4', staticEntry('/gone')), current('east.5', podOf('west', 'w1'))],
    });
    expect([p.creates, p.conflicts, p.adopted]).toEqual([[], [], []]);
    expect(p.updates.map((u) => [u.id, u.changed])).toEqual([['east.1', ['dnsNames']]]);
    expect(p.deletes.map((d) => d.id).sort()).toEqual(['east.2', 'east.4', 'east.5']);
    expect(p.kept).toEqual([]);
  });

  it('a duplicate under the new prefix is deleted, one entry is kept', () => {
    const e1 = podOf('east', 'e1');
    const p = plan(defaults('east'), { declared: [declared(e1)], current: [current('east.1', e1), current('scm-east.2', e1)] });
    expect(p.creates).toEqual([]);
    expect(p.deletes.map((d) => [d.id, d.reason])).toEqual([['scm-east.2', 'duplicate']]);
  });

  it('with entryIDPrefixCleanup naming it, its entries are replaced by scm-<clusterName>. ones', () => {
    const e1 = podOf('east', 'e1');
    const p = plan(defaults('east', { entryIDPrefixCleanup: 'east.' }), { declared: [declared(e1)], current: [current('east.1', e1)] });
    expect(p.deletes.map((d) => [d.id, d.reason])).toEqual([['east.1', 'cleanup']]);
    expect(p.creates.map((c) => [c.id.startsWith('scm-east.'), c.replaces])).toEqual([[true, ['east.1']]]);
  });

  it('with an explicit entryIDPrefix, they are not ours', () => {
    const p = plan(defaults('east', { entryIDPrefix: 'mine.' }), { current: [current('east.1', podOf('east', 'gone')), current('scm-1', podOf('east', 'gone2'))] });
    expect([p.deletes, p.outsideScope]).toEqual([[], 2]);
  });
});

describe('after an upgrade, entries of the first default (scm-<uuid>, no cluster name) stay in place', () => {
  it('a pod entry under this cluster\'s agents is ours: updated in place, deleted when its pod goes', () => {
    const e1 = podOf('east', 'e1');
    const p = plan(defaults('east'), {
      declared: [declared({ ...e1, dnsNames: ['web'] })],
      current: [current('scm-1', e1), current('scm-2', podOf('east', 'gone'))],
    });
    expect(p.creates).toEqual([]);
    expect(p.updates.map((u) => [u.id, u.changed])).toEqual([['scm-1', ['dnsNames']]]);
    expect(p.deletes.map((d) => d.id)).toEqual(['scm-2']);
  });

  it('a pod entry under another cluster\'s agents is left alone, declared or not', () => {
    const p = plan(defaults('east'), { current: [current('scm-1', podOf('west', 'w1'))] });
    expect([p.deletes, p.kept, p.adopted]).toEqual([[], [], []]);
  });

  it('an entry naming no cluster is adopted when it holds an entry we declare, and otherwise left alone', () => {
    const gw = staticEntry('/gw');
    const p = plan(defaults('east'), {
      declared: [declared({ ...gw, hint: 'gw' }, owner('gw', { kind: 'ClusterStaticEntry' }))],
      current: [current('scm-gw', gw), current('scm-other', staticEntry('/other'))],
    });
    expect(p.creates).toEqual([]);
    expect(p.conflicts).toEqual([]);
    expect(p.adopted).toEqual(['scm-gw']);
    expect(p.updates.map((u) => u.id)).toEqual(['scm-gw']);
    expect(p.deletes).toEqual([]);
  });

  it('an adopted entry is remembered, so it is deleted when its declaration goes', () => {
    const gw = staticEntry('/gw');
    const claims = new ClaimedIds();
    const first = plan(defaults('east'), { declared: [declared(gw, owner('gw', { kind: 'ClusterStaticEntry' }))], current: [current('scm-gw', gw)] });
    claims.record(first, { assigned: new Map(), failures: [], heldBack: [] });
    const second = plan({ ...defaults('east'), claimed: claims.ids }, { current: [current('scm-gw', gw)] });
    expect(second.deletes.map((d) => d.id)).toEqual(['scm-gw']);
    claims.record(second, { assigned: new Map(), failures: [], heldBack: [] });
    expect(claims.ids.size).toBe(0);
  });
});

describe('on a SPIRE server that ignores requested entry IDs, ownership falls back to what entries show', () => {
  const old = (cluster: string): Ownership => ({ ...defaults(cluster), serverAssignsIds: true });
  const uuid = (i: number) => `0b8e5d1c-0000-4000-8000-00000000000${i}`;

  it('pod entries under this cluster\'s agents are ours; another cluster\'s and unattributed undeclared ones are not', () => {
    const p = plan(old('east'), {
      current: [current(uuid(1), podOf('east', 'gone')), current(uuid(2), podOf('west', 'w1')), current(uuid(3), staticEntry('/manual'))],
    });
    expect(p.deletes.map((d) => d.id)).toEqual([uuid(1)]);
    expect(p.kept).toEqual([]);
  });

  it('an entry holding a key we declare is adopted, not reported as a conflict', () => {
    const gw = staticEntry('/gw');
    const p = plan(old('east'), { declared: [declared(gw, owner('gw', { kind: 'ClusterStaticEntry' }))], current: [current(uuid(4), gw)] });
    expect([p.creates, p.conflicts, p.adopted]).toEqual([[], [], [uuid(4)]]);
  });

  it('creates stored under the server\'s own IDs are claimed, so they are deleted when undeclared', () => {
    const gw = staticEntry('/gw');
    const claims = new ClaimedIds();
    const first = plan(old('east'), { declared: [declared(gw, owner('gw', { kind: 'ClusterStaticEntry' }))] });
    claims.record(first, { assigned: new Map([[first.creates[0]!.id, uuid(5)]]), failures: [], heldBack: [] });
    const second = plan({ ...old('east'), claimed: claims.ids }, { current: [current(uuid(5), gw)] });
    expect(second.deletes.map((d) => d.id)).toEqual([uuid(5)]);
  });
});

describe('migrating from spire-controller-manager without entryIDPrefix: what plan and the start-up log say', () => {
  const uuid = (i: number) => `0b8e5d1c-0000-4000-8000-00000000000${i}`;
  const input = (): PlanInput => ({
    declared: [declared(podOf('east', 'e1')), declared(podOf('east', 'e2'))],
    current: [
      current(uuid(1), podOf('east', 'e1')),
      current(uuid(2), podOf('east', 'e2')),
      current(uuid(3), podOf('east', 'gone')),
      current(uuid(4), podOf('west', 'w1')),
      current(uuid(5), staticEntry('/by-hand')),
    ],
    ownership: defaults('east'),
    policy: 'sync',
  });

  it('counts the declared entries they hold, the strays, and what each setting would do this pass', () => {
    const i = input();
    const p = planEntries(i);
    expect(p.conflicts).toHaveLength(2);
    expect(p.deletes).toEqual([]);
    expect(migrationNotes(i, p)).toEqual({
      serverGenerated: {
        held: 2,
        strays: 1,
        // The held, the stray and the one made by hand; never the other cluster's pod entry.
        withCleanup: { deletes: 4, creates: 2, replacing: 2 },
        withScopeAll: { updates: 0, deletes: 2 },
      },
    });
    const lines = describeMigration(migrationNotes(i, p), 'east.').map((l) => l.message);
    expect(lines[0]).toMatch(/^migration: 2 declared entries are held by entries with server-generated IDs .* and 1 more such pod entry under this cluster's agents is declared by nothing\./);
    expect(lines[1]).toContain('set entryIDPrefixCleanup: "" for one pass, then remove it: this pass it would delete 4 entries');
    expect(lines[1]).toContain('create 2 with east. IDs (2 in place of held ones)');
    expect(lines[2]).toContain('set entryScope: all');
    expect(lines[2]).toContain('2 deletes');
  });

  it('says nothing once either setting is made, or when no declared entry is held', () => {
    const i = input();
    for (const ownership of [{ ...i.ownership, entryIDPrefixCleanup: '' }, { ...i.ownership, entryScope: 'all' as const }]) {
      const j = { ...i, ownership };
      expect(migrationNotes(j, planEntries(j))).toEqual({});
    }
    const none = { ...i, declared: [] };
    expect(migrationNotes(none, planEntries(none))).toEqual({});
  });

  it('reports entries of the former default prefixes: those kept in place, and those left alone by ID', () => {
    const j: PlanInput = {
      declared: [declared(podOf('east', 'e1'))],
      current: [current('scm-1', podOf('east', 'e1')), current('scm-2', staticEntry('/x')), current('east.3', podOf('east', 'gone')), current('scm-west.4', staticEntry('/y'))],
      ownership: defaults('east'),
      policy: 'sync',
    };
    const notes = migrationNotes(j, planEntries(j));
    expect(notes).toEqual({
      legacy: [
        { prefix: 'scm-', byIdAlone: false, managed: 1, leftAlone: 1, leftAloneIds: ['scm-2'] },
        { prefix: 'east.', byIdAlone: true, managed: 1, leftAlone: 0, leftAloneIds: [] },
      ],
    });
    const [first, second] = describeMigration(notes, 'scm-east.');
    expect(first?.level).toBe('warn');
    expect(first?.message).toContain('new entries get IDs starting scm-east. (derived from clusterName). 1 entry with the former default prefix scm- is this cluster\'s');
    expect(first?.message).toContain('1 is left alone');
    expect(second).toEqual({
      level: 'info',
      message: 'entryIDPrefix is not set, so new entries get IDs starting scm-east. (derived from clusterName). 1 entry with the former default prefix east. is this cluster\'s (the prefix names it) and stay in place, managed',
    });
  });
});

describe('two clusters with default configs on one SPIRE server, each with entries of every default', () => {
  const owners = new Map<string, string>();
  let n = 0;
  const left = (cluster: string, id: (uuid: string) => string, s: ReturnType<typeof spec>) => {
    const e = current(id(`2b7e1f5a-9c3d-4e8f-a1b2-${String(++n).padStart(12, '0')}`), s);
    owners.set(e.id, cluster);
    return e;
  };
  // What each cluster left under each default: entries of running pods, of pods gone, of its gateway.
  const leftBy = (c: string) => [
    left(c, (u) => `scm-${c}.${u}`, podOf(c, `${c}-run-1`)),
    left(c, (u) => `scm-${c}.${u}`, podOf(c, `${c}-gone-1`)),
    left(c, (u) => `${c}.${u}`, podOf(c, `${c}-run-2`)),
    left(c, (u) => `${c}.${u}`, podOf(c, `${c}-gone-2`)),
    left(c, (u) => `scm-${u}`, podOf(c, `${c}-run-3`)),
    left(c, (u) => `scm-${u}`, podOf(c, `${c}-gone-3`)),
    left(c, (u) => `${c}.${u}`, staticEntry(`/${c}/gw`)),
    // Names no cluster: only declaring it tells whose it is.
    left(c, (u) => `scm-${u}`, staticEntry(`/${c}/gw-2`)),
  ];
  const server = [...leftBy('east'), ...leftBy('west')];
  // Each declares a change to every entry of its running pods and its gateway.
  const declares = (c: string) => [
    ...[1, 2, 3].map((i) => declared({ ...podOf(c, `${c}-run-${i}`), dnsNames: [c] })),
    declared({ ...staticEntry(`/${c}/gw`), hint: c }, owner('gw', { kind: 'ClusterStaticEntry' })),
    declared({ ...staticEntry(`/${c}/gw-2`), hint: c }, owner('gw-2', { kind: 'ClusterStaticEntry' })),
  ];

  it.each(['east', 'west'])('%s updates or deletes every entry of its own and none of the other\'s, and creates nothing', (cluster) => {
    const p = plan(defaults(cluster), { declared: declares(cluster), current: server });
    expect([p.creates, p.conflicts, p.kept]).toEqual([[], [], []]);
    const own = server.filter((e) => owners.get(e.id) === cluster).map((e) => e.id);
    expect(p.adopted).toEqual([server.find((e) => e.spec.spiffeId.endsWith(`/${cluster}/gw-2`))!.id]);
    expect([...p.updates.map((x) => x.id), ...p.deletes.map((x) => x.id)].sort()).toEqual(own.sort());
    expect(p.deletes.every((d) => d.current.spiffeId.includes('-gone-'))).toBe(true);
  });
});
