import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CurrentState, type CurrentEntry, type DriftCheck, DriftScan } from '../../src/entries/index.js';
import { unseenInCycle } from '../../src/entries/drift-scan.js';
import { finish } from '../../src/entries/time-slices.js';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { SpireClient, type Entry } from '../../src/spire/index.js';
import { startTestSpire, type TestSpire } from '../support/spire.js';

const TD = 'example.org';
const PAGE = 3;
const ENTRIES = 10;
/** ListEntries calls a whole walk over ENTRIES takes: every full page, then the short (or empty) one that ends it. */
const CHECKS_PER_CYCLE = Math.floor(ENTRIES / PAGE) + 1;

const entry = (name: string): Entry => ({
  spiffe_id: { trust_domain: TD, path: `/w/${name}` },
  parent_id: { trust_domain: TD, path: '/node' },
  selectors: [{ type: 'k8s', value: `pod-uid:${name}` }],
});

let spire: TestSpire;
let client: SpireClient;
let state: CurrentState;
let scan: DriftScan;

beforeEach(async () => {
  spire = await startTestSpire({ trustDomain: TD });
  client = new SpireClient({ socket: spire.socketPath });
  await spire.raw.entry.BatchCreateEntry({ entries: Array.from({ length: ENTRIES }, (_, i) => entry(`e${i}`)) });
  state = new CurrentState(Number.POSITIVE_INFINITY);
  await state.replaceFromPages(client.entryPages());
  // One page per check: a cycle over ENTRIES takes CHECKS_PER_CYCLE checks.
  scan = new DriftScan(state, { entriesPerCheck: 1, pageSize: PAGE });
});
afterEach(async () => {
  client.close();
  await spire.close();
});

const calls = (method: string) => spire.server.calls.filter((c) => c.method === method).length;

/** Checks until one finds drift, at most `max`; returns how many it took (Infinity: none found) and what the last found. */
async function checksUntilDrift(max: number): Promise<{ checks: number; last: DriftCheck }> {
  let last: DriftCheck | undefined;
  for (let i = 1; i <= max; i++) {
    last = await scan.check(client);
    if (last.drift !== undefined) return { checks: i, last };
  }
  return { checks: Number.POSITIVE_INFINITY, last: last! };
}

/** The ids on the server, in list order. */
async function serverIds(): Promise<string[]> {
  return (await client.listEntries()).map((e) => e.id);
}

describe('the drift scan: each check costs one count and a slice of the entries', () => {
  it('finds nothing on an idle server, and lists one page per check, never every entry', async () => {
    const [counts, lists] = [calls('CountEntries'), calls('ListEntries')];
    const found: DriftCheck[] = [];
    for (let i = 0; i < 3 * CHECKS_PER_CYCLE; i++) found.push(await scan.check(client));
    expect(found.every((f) => f.drift === undefined && f.pages === 1 && f.listed <= PAGE)).toBe(true);
    // Each cycle ends once, at its last (empty) page.
    expect(found.filter((f) => f.cycleEnded)).toHaveLength(3);
    expect(calls('CountEntries') - counts).toBe(3 * CHECKS_PER_CYCLE);
    expect(calls('ListEntries') - lists).toBe(3 * CHECKS_PER_CYCLE);
  });

  it('reads IDs and revisions only, in pages of the size it was given', async () => {
    const from = spire.server.calls.length;
    await scan.check(client);
    const [page] = spire.server.calls.slice(from).filter((c) => c.method === 'ListEntries');
    expect(page).toMatchObject({ items: PAGE, pageToken: '' });
    expect(Object.entries(page!.outputMask ?? {}).filter(([, on]) => on)).toEqual([['revision_number', true]]);
  });

  it('takes a whole cycle in one check when its pages allow', async () => {
    const whole = new DriftScan(state, { entriesPerCheck: ENTRIES, pageSize: PAGE });
    const found = await whole.check(client);
    expect(found).toEqual({ drift: undefined, pages: CHECKS_PER_CYCLE, listed: ENTRIES, cycleEnded: true });
  });
});

describe('the drift scan finds what others did to the entries, within its bound', () => {
  it('an entry changed on the server: within one cycle of checks', async () => {
    // Changed wherever the walk is: once it has passed the entry, the next cycle lists it.
    for (let at = 0; at * PAGE < ENTRIES; at++) {
      await scan.check(client);
      const id = (await serverIds())[at * PAGE]!;
      await spire.raw.entry.BatchUpdateEntry({ entries: [{ id, hint: `changed-${at}` }], input_mask: { hint: true } });
      const { checks, last } = await checksUntilDrift(CHECKS_PER_CYCLE);
      expect(checks).toBeLessThanOrEqual(CHECKS_PER_CYCLE);
      expect(last.drift).toMatch(new RegExp(`^entry ${id} is at revision [0-9]+ on the server, [0-9]+ held$`));
      // The caller lists every entry on drift.
      await state.replaceFromPages(client.entryPages());
    }
  });

  it('an entry rewritten on the server as it was is drift once: the full list that follows takes its revision', async () => {
    const [id] = await serverIds();
    await spire.raw.entry.BatchUpdateEntry({ entries: [{ id, hint: '' }], input_mask: { hint: true } });
    expect((await checksUntilDrift(CHECKS_PER_CYCLE)).checks).toBeLessThanOrEqual(CHECKS_PER_CYCLE);
    const version = state.version;
    await state.replaceFromPages(client.entryPages());
    // Nothing to plan: the list found the entry as held.
    expect(state.version).toBe(version);
    expect((await checksUntilDrift(2 * CHECKS_PER_CYCLE)).checks).toBe(Number.POSITIVE_INFINITY);
  });

  it('an entry deleted on the server: at the next check, by the count', async () => {
    await scan.check(client);
    const [id] = await serverIds();
    await spire.raw.entry.BatchDeleteEntry({ ids: [id!] });
    const { checks, last } = await checksUntilDrift(1);
    expect(checks).toBe(1);
    expect(last).toMatchObject({ drift: `SPIRE holds ${ENTRIES - 1} entries, ${ENTRIES} expected`, pages: 0 });
  });

  it('an entry deleted while another is created, the count unchanged: within two cycles', async () => {
    const ids = await serverIds();
    // Deleted just after the walk passed it: the cycle in progress saw it, the next one misses it.
    await scan.check(client);
    await spire.raw.entry.BatchDeleteEntry({ ids: [ids[0]!] });
    await spire.raw.entry.BatchCreateEntry({ entries: [entry('others')] });
    const { checks, last } = await checksUntilDrift(2 * CHECKS_PER_CYCLE);
    expect(checks).toBeLessThanOrEqual(2 * CHECKS_PER_CYCLE);
    // The created one is listed first, at the walk's end: either is drift.
    expect(last.drift).toMatch(/is on the server but not held|no longer on the server/);
  });

  it('SPIRE restarted with an empty datastore: at the next check', async () => {
    await scan.check(client);
    await spire.server.stop();
    spire.server = await MemorySpireServer.start({ socketPath: spire.socketPath, trustDomain: TD });
    const { checks, last } = await checksUntilDrift(1);
    expect(checks).toBe(1);
    expect(last.drift).toBe(`SPIRE holds 0 entries, ${ENTRIES} expected`);
  });
});

describe('the end of a cycle', () => {
  it('names the first entry held that the cycle did not list', () => {
    const held = (id: string, scanned: number | undefined): CurrentEntry => ({ id, key: id, spec: state.values()[0]!.spec, scanned });
    expect(finish(unseenInCycle([held('a', 2), held('b', 2)], 2))).toBeUndefined();
    expect(finish(unseenInCycle([held('a', 2), held('b', 1), held('c', undefined)], 2))?.id).toBe('b');
    expect(finish(unseenInCycle([held('a', 2), held('c', undefined)], 2))?.id).toBe('c');
  });

  it('finds an entry that went while the count stayed: it is drift', async () => {
    const ids = await serverIds();
    // The first page read; then the state records a delete of its first entry that did not land (the
    // server keeps it, behind the walk), and the last entry goes behind our back: the counts agree.
    const walked = [await scan.check(client)];
    const first = state.get(ids[0]!)!;
    state.record({ ...noPlan, deletes: [{ id: first.id, key: first.key, current: first.spec, reason: 'undeclared' }] }, applied);
    await spire.raw.entry.BatchDeleteEntry({ ids: [ids[ENTRIES - 1]!] });
    const { checks, last } = await checksUntilDrift(CHECKS_PER_CYCLE);
    expect(walked[0]!.drift).toBeUndefined();
    expect(checks).toBeLessThanOrEqual(CHECKS_PER_CYCLE);
    expect(last).toMatchObject({ drift: `entry ${ids[ENTRIES - 1]} is held but no longer on the server`, cycleEnded: true });
  });
});

describe("the drift scan takes the controller's own writes as they are recorded", () => {
  it('entries it creates and updates during a cycle are not drift', async () => {
    const found: DriftCheck[] = [];
    for (let i = 0; i < 2 * CHECKS_PER_CYCLE + 1; i++) {
      found.push(await scan.check(client));
      // Each check, one entry created and one updated (the updated one already passed by the walk or not), as pod passes do.
      const [created] = (await spire.raw.entry.BatchCreateEntry({ entries: [entry(`new${i}`)] })).results.map((r) => r.entry!);
      recordCreate(created!.id, `new${i}`, created!.revision_number);
      const id = (await serverIds())[i % ENTRIES]!;
      const [updated] = (await spire.raw.entry.BatchUpdateEntry({ entries: [{ id, hint: `ours-${i}` }], input_mask: { hint: true } })).results.map((r) => r.entry!);
      recordUpdate(id, updated!.revision_number, `ours-${i}`);
    }
    expect(found.map((f) => f.drift).filter((d) => d !== undefined)).toEqual([]);
  });

  it('what it reads while a write of ours is landing is not drift: the page is read again', async () => {
    const ids = await serverIds();
    // Our write, answered but not yet recorded: the count and the first page differ from the state by it.
    const { created, updated } = await state.whileSending(async () => {
      const [created] = (await spire.raw.entry.BatchCreateEntry({ entries: [entry('landing')] })).results.map((r) => r.entry!);
      const [updated] = (await spire.raw.entry.BatchUpdateEntry({ entries: [{ id: ids[0]!, hint: 'landing' }], input_mask: { hint: true } })).results.map((r) => r.entry!);
      const during = await scan.check(client);
      expect(during).toMatchObject({ drift: undefined, pages: 1, listed: PAGE });
      return { created, updated };
    });
    recordCreate(created!.id, 'landing', created!.revision_number);
    recordUpdate(ids[0]!, updated!.revision_number, 'landing');
    const lists = calls('ListEntries');
    const after = await scan.check(client);
    expect(after).toMatchObject({ drift: undefined, pages: 1 });
    // The same first page again.
    expect(calls('ListEntries')).toBe(lists + 1);
    expect(spire.server.calls.at(-1)!.pageToken).toBe('');
    expect((await checksUntilDrift(2 * CHECKS_PER_CYCLE)).checks).toBe(Number.POSITIVE_INFINITY);
  });

  it('a full list starts a new cycle', async () => {
    await scan.check(client);
    await scan.check(client);
    await state.replaceFromPages(client.entryPages());
    const lists = calls('ListEntries');
    await scan.check(client);
    const [last] = spire.server.calls.slice(-1);
    expect(calls('ListEntries')).toBe(lists + 1);
    expect(last!.pageToken).toBe('');
  });
});

const owner = { kind: 'ClusterSPIFFEID' as const, name: 'x', uid: 'x', creationTimestamp: '' };
const applied = { created: 0, updated: 0, deleted: 0, failures: [], failedKeys: new Set<string>(), heldBack: [], assigned: new Map<string, string>() };
const noPlan = { creates: [], updates: [], deletes: [], conflicts: [], kept: [], keys: new Map(), adopted: [], outsideScope: 0 };

/** What a pass's record of its create does to the state, at the revision SPIRE answered. */
function recordCreate(id: string, name: string, revision: string): void {
  const spec = { ...state.values()[0]!.spec, spiffeId: `spiffe://${TD}/w/${name}`, selectors: [{ type: 'k8s', value: `pod-uid:${name}` }] };
  state.record({ ...noPlan, creates: [{ id, key: `key-${name}`, spec, owner }] }, { ...applied, created: 1, revisions: new Map([[id, revision]]) });
}

function recordUpdate(id: string, revision: string, hint: string): void {
  const held = state.get(id)!;
  state.record({ ...noPlan, updates: [{ id, key: held.key, spec: { ...held.spec, hint }, current: held.spec, changed: ['hint'], owner }] }, { ...applied, updated: 1, revisions: new Map([[id, revision]]) });
}
