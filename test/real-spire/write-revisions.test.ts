/**
 * What the controller records of its own writes, against a real SPIRE server:
 * each entry as SPIRE stores it, at the revision SPIRE stores it under, so the
 * list after the writes finds every entry unchanged and builds nothing again.
 * Run by `npm run test:real-spire`.
 */
import { existsSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { applyPlan, CurrentState, fromSpire, planEntries } from '../../src/entries/index.js';
import type { CurrentEntry, DeclaredEntry, EntrySpec } from '../../src/entries/model.js';
import type { Plan } from '../../src/entries/plan.js';
import { emptySpire, oldSpireServerBinary } from '../support/real-spire.js';
import { declared, owner, pod } from '../entries/fixtures.js';
import { type RealSpireHandle, TD, useRealSpire } from './world.js';


const ownership = { entryIDPrefix: 'scm-demo.', entryScope: 'prefixed' } as const;

/** A pod entry with every compared field set; DNS names out of sorted order, which SPIRE's write answers sort. */
function full(uid: string, over: Partial<EntrySpec> = {}): EntrySpec {
  return {
    ...pod(uid),
    dnsNames: [`${uid}.example.com`, 'Upper_Case.example.com', '*.wild.example.com'],
    federatesWith: [TD],
    x509SvidTtl: 5400,
    jwtSvidTtl: 90,
    hint: 'a hint',
    admin: true,
    downstream: true,
    ...over,
  };
}

const byId = (a: CurrentEntry, b: CurrentEntry) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** One pass: plan the declaration against the state, write it, record it; every write must succeed and report its revision. */
async function pass(spire: RealSpireHandle, state: CurrentState, entries: DeclaredEntry[]) {
  return write(spire, state, planEntries({ declared: entries, current: state.values(), ownership, policy: 'sync' }));
}

async function write(spire: RealSpireHandle, state: CurrentState, plan: Plan) {
  const applied = await applyPlan(plan, spire.client);
  expect(applied.failures).toEqual([]);
  // SPIRE answers every create and update with the revision and fields asked for.
  expect(applied.revisions?.size ?? 0).toBe(plan.creates.length + plan.updates.length);
  state.record(plan, applied);
  return plan;
}

/** What SPIRE lists equals what the state recorded, entry by entry (ID, key, every field, revision), and the list builds nothing. */
async function expectListedAsRecorded(spire: RealSpireHandle, state: CurrentState): Promise<void> {
  const stored = (await spire.client.listEntries()).map(fromSpire).sort(byId);
  const recorded = state.values().sort(byId);
  expect(recorded).toEqual(stored);
  const builds = state.indexBuilds;
  const version = state.version;
  const listed = await state.replaceFromPages(spire.client.entryPages());
  expect(state.indexBuilds).toBe(builds);
  expect(state.version).toBe(version);
  expect(listed.sort(byId)).toEqual(recorded);
  for (const e of recorded) expect(listed.find((l) => l.id === e.id)).toBe(e);
}

describe('writes recorded as a real SPIRE server stores them', () => {
  const spire = useRealSpire();
  beforeEach(async () => {
    await emptySpire(spire.current.raw);
  });

  it('creates, updates and deletes are recorded at the stored revision, and the list after each pass reuses the state', async () => {
    const state = new CurrentState(3_600_000);
    await state.replaceFromPages(spire.current.client.entryPages());

    const first = await pass(spire.current, state, [declared(full('p1')), declared(full('p2', { storeSvid: true, admin: false })), declared(pod('p3'))]);
    expect(first.creates).toHaveLength(3);
    await expectListedAsRecorded(spire.current, state);
    expect(state.values().map((e) => e.revision)).toEqual(['0', '0', '0']);

    // p1 changes fields (DNS names reordered, TTLs, hint), p2 stays, p3 goes, p4 comes.
    const second = await pass(spire.current, state, [
      declared(full('p1', { dnsNames: ['*.wild.example.com', 'p1.example.com'], x509SvidTtl: 600, jwtSvidTtl: 0, hint: '', downstream: false })),
      declared(full('p2', { storeSvid: true, admin: false })),
      declared(full('p4', { federatesWith: [] })),
    ]);
    expect([second.creates.length, second.updates.length, second.deletes.length]).toEqual([1, 1, 1]);
    await expectListedAsRecorded(spire.current, state);
    expect(state.values().find((e) => e.podUid === 'p1')?.revision).toBe('1');

    // The same declaration again: nothing to write.
    const third = await pass(spire.current, state, [
      declared(full('p1', { dnsNames: ['*.wild.example.com', 'p1.example.com'], x509SvidTtl: 600, jwtSvidTtl: 0, hint: '', downstream: false })),
      declared(full('p2', { storeSvid: true, admin: false })),
      declared(full('p4', { federatesWith: [] })),
    ]);
    expect([third.creates.length, third.updates.length, third.deletes.length]).toEqual([0, 0, 0]);
  });
});

const oldBinary = oldSpireServerBinary();

describe.runIf(existsSync(oldBinary))(`writes recorded as a real SPIRE server older than 1.8.0 stores them, under IDs of its own (${oldBinary})`, () => {
  const spire = useRealSpire({ binary: oldBinary });
  beforeEach(async () => {
    await emptySpire(spire.current.raw);
  });

  it('records each create under the ID SPIRE chose, at its revision, and an update after it', async () => {
    const state = new CurrentState(3_600_000);
    await state.replaceFromPages(spire.current.client.entryPages());
    // This release refuses uppercase, underscores and one-letter labels in DNS names.
    const dnsNames = ['web.example.com', 'api.example.com'];
    const created = await pass(spire.current, state, [declared(full('p1', { dnsNames })), declared(full('p2', { dnsNames, storeSvid: true, admin: false }))]);
    expect(state.values().map((e) => e.id)).not.toContain(created.creates[0]!.id);
    await expectListedAsRecorded(spire.current, state);

    // Its IDs do not say the entries are ours (the claims do, in a pass): the update is planned by hand.
    const p1 = state.values().find((e) => e.podUid === 'p1')!;
    const spec = { ...p1.spec, hint: 'changed', dnsNames: ['db.example.com', 'api.example.com'] };
    await write(spire.current, state, { creates: [], updates: [{ id: p1.id, key: p1.key, spec, current: p1.spec, changed: ['hint', 'dnsNames'], owner: owner('a'), podUid: 'p1' }], deletes: [], conflicts: [], kept: [], keys: new Map(), adopted: [], outsideScope: 0 });
    await expectListedAsRecorded(spire.current, state);
    expect(state.values().find((e) => e.id === p1.id)?.revision).toBe('1');
  });
});
