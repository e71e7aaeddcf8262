import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/index.js';
import type { Plan } from '../../src/entries/index.js';
import { type Conditions, FIRST_LIST_BATCH, PassScheduler, type PodChange, STANDBY_PODS } from '../../src/manager/scheduler.js';

/** Everything ready: leading, SPIRE up, caches synced, state certain, probed. */
const ready: Conditions = { leading: true, spireReady: true, podEntries: true, unsynced: [], stateCertain: true, probed: true, podsCoverTemplates: true };
const listing: Conditions = { ...ready, unsynced: ['pods'] };

const pod = (uid: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { uid, name: uid, namespace: 'ns' }, spec: {} }) as unknown as Pod;
const pods = (n: number, from = 0) => Array.from({ length: n }, (_, i) => pod(`p${from + i}`));

/** A full pass's plan that creates one entry for each of these pods (key `k-<uid>`), or one not tied to a pod (`key` alone). */
function planFor(...writes: ({ podUid: string } | { key: string })[]): Plan {
  const owner = { kind: 'ClusterSPIFFEID', name: 'o', uid: 'o' } as Plan['creates'][number]['owner'];
  const spec = {} as Plan['creates'][number]['spec'];
  const creates = writes.map((w, i) => ('podUid' in w ? { id: `e${i}`, key: `k-${w.podUid}`, spec, owner, podUid: w.podUid } : { id: `e${i}`, key: w.key, spec, owner }));
  return { creates, updates: [], deletes: [], conflicts: [], kept: [], keys: new Map(), adopted: [], outsideScope: 0 };
}
const writtenFor = (plan: Plan) => plan.creates.map((c) => c.podUid ?? c.key);

/** A scheduler whose first full pass has taken its snapshot: pod events go to the pod lane from now on. */
function afterFirstFullPass(): PassScheduler {
  const s = new PassScheduler();
  expect(s.next(ready)).toEqual({ route: 'full' });
  s.snapshotted();
  s.planned(planFor());
  s.fullDone();
  return s;
}

describe('PassScheduler: the full lane', () => {
  it('starts with a full pass due, and runs one full pass for many requests', () => {
    const s = new PassScheduler();
    expect(s.next(ready)).toEqual({ route: 'full' });
    s.requestFull();
    s.changed();
    s.requestFull();
    expect(s.next(ready)).toEqual({ route: 'full' });
    expect(s.next(ready)).toEqual({ route: 'pod-lane' });
  });

  it('waits for the caches, then for a term', () => {
    const s = new PassScheduler();
    expect(s.next(listing)).toEqual({ route: 'wait', why: 'caches not synced' });
    expect(s.next({ ...ready, leading: false })).toEqual({ route: 'wait', why: 'not leading' });
    // Still due once leading.
    expect(s.next(ready)).toEqual({ route: 'full' });
  });

  it('hands out the first list in bounded batches while the pods are listed, before any full pass', () => {
    const s = new PassScheduler();
    s.firstListPage(pods(FIRST_LIST_BATCH + 10));
    const first = s.next(listing);
    expect(first.route).toBe('first-list');
    expect(first.route === 'first-list' && first.pods.length).toBe(FIRST_LIST_BATCH);
    const second = s.next(listing);
    expect(second.route === 'first-list' && second.pods.map((p) => p.metadata.uid)).toEqual(pods(10, FIRST_LIST_BATCH).map((p) => p.metadata.uid));
    expect(s.next(listing)).toEqual({ route: 'wait', why: 'caches not synced' });
  });

  it('keeps the first list while anything but the pods is still listing', () => {
    const s = new PassScheduler();
    s.firstListPage(pods(3));
    expect(s.next({ ...ready, unsynced: ['pods', 'namespaces'] })).toEqual({ route: 'wait', why: 'caches not synced' });
    expect(s.firstListCount).toBe(3);
    expect(s.next(listing).route).toBe('first-list');
  });

  it('drops the first list without SPIRE, a term or pod entries: the full pass after the sync writes those pods', () => {
    for (const c of [{ ...listing, spireReady: false }, { ...listing, leading: false }, { ...listing, podEntries: false }]) {
      const s = new PassScheduler();
      s.firstListPage(pods(3));
      expect(s.next(c)).toEqual({ route: 'wait', why: 'caches not synced' });
      expect(s.firstListCount).toBe(0);
    }
  });

  it('after a failed batch tries no other in the same lane run, and leaves the rest for the next', () => {
    const s = new PassScheduler();
    s.firstListPage(pods(FIRST_LIST_BATCH + 1));
    expect(s.next(listing).route).toBe('first-list');
    expect(s.next(listing, true)).toEqual({ route: 'wait', why: 'caches not synced' });
    expect(s.firstListCount).toBe(1);
    expect(s.next(listing).route).toBe('first-list');
  });

  it('once synced, runs the batches left, then drops none-taken pods into the full pass', () => {
    const s = new PassScheduler();
    s.firstListPage(pods(2));
    expect(s.next(ready).route).toBe('first-list');
    s.firstListPage(pods(2, 2));
    // A batch failed: the full pass renders every pod, these too.
    expect(s.next(ready, true)).toEqual({ route: 'full' });
    expect(s.firstListCount).toBe(0);
  });

  it('dropFirstList forgets the listed pods (listed again with more fields)', () => {
    const s = new PassScheduler();
    s.firstListPage(pods(2));
    s.dropFirstList();
    expect(s.firstListCount).toBe(0);
  });
});

const at = (name: string) => ({ namespace: 'ns', name });
/** How a pod change arrives: a watch event or a list, while leading or not. */
const watched: PodChange = { listed: false, leading: true };
const listedChange: PodChange = { listed: true, leading: true };
const standingBy: PodChange = { listed: false, leading: false };

/** A scheduler whose term has not taken a snapshot yet, its full pass under way. */
function firstFullPassListing(): PassScheduler {
  const s = new PassScheduler();
  expect(s.next(ready)).toEqual({ route: 'full' });
  return s;
}

describe('PassScheduler: pod events', () => {
  it.each([
    // change, lane woken, how it came, the pod, dirty after
    ['a watch event', 'pod', watched, at('a'), 1],
    ['a watch event while standing by', 'pod', standingBy, at('a'), 1],
    ['a list (the first, or a relist)', 'full', listedChange, at('a'), 0],
    ['a list while standing by', 'full', { listed: true, leading: false }, at('a'), 0],
    ['a delete', 'full', watched, null, 0],
  ] as const)('before the first snapshot of a term: %s wakes the %s lane', (_what, lane, how, where, dirty) => {
    const s = new PassScheduler();
    expect(s.podChanged('a', where, how)).toBe(lane);
    expect(s.dirtyCount).toBe(dirty);
  });

  it('before the first snapshot, a deleted pod is no longer dirty: the full pass deletes its entries', () => {
    const s = firstFullPassListing();
    s.podChanged('a', at('a'), watched);
    s.podChanged('a', null, watched);
    expect(s.dirtyCount).toBe(0);
    expect(s.nextPod(ready)).toEqual({ route: 'wait', why: 'no dirty pods' });
  });

  it.each([
    // conditions, when, the route's name, the route
    ['everything ready', 'before the first snapshot', 'create-only', ready, { route: 'create-only', why: 'no snapshot yet', take: [['a', at('a')]] }],
    ['SPIRE not probed yet', 'before the first snapshot', 'create-only', { ...ready, probed: false }, { route: 'create-only', why: 'no snapshot yet', take: [['a', at('a')]] }],
    ['the state uncertain (not listed yet)', 'before the first snapshot', 'create-only', { ...ready, stateCertain: false }, { route: 'create-only', why: 'no snapshot yet', take: [['a', at('a')]] }],
    ['the state uncertain', 'after the first snapshot', 'create-only', { ...ready, stateCertain: false }, { route: 'create-only', why: 'state uncertain', take: [['a', at('a')]] }],
    ['the state uncertain, SPIRE not probed', 'after the first snapshot', 'create-only', { ...ready, stateCertain: false, probed: false }, { route: 'create-only', why: 'state uncertain', take: [['a', at('a')]] }],
    ['everything ready', 'after the first snapshot', 'pod', ready, { route: 'pod', take: [['a', at('a')]] }],
    ['SPIRE not probed', 'after the first snapshot', 'full', { ...ready, probed: false }, { route: 'full', why: 'not probed' }],
    ['the pods listed again', 'before the first snapshot', 'held', { ...ready, podsCoverTemplates: false }, { route: 'held', why: 'pods relisted' }],
    ['the pods listed again', 'after the first snapshot', 'held', { ...ready, podsCoverTemplates: false }, { route: 'held', why: 'pods relisted' }],
    ['not leading', 'before the first snapshot', 'wait', { ...ready, leading: false }, { route: 'wait', why: 'not leading' }],
    ['not leading', 'after the first snapshot', 'wait', { ...ready, leading: false }, { route: 'wait', why: 'not leading' }],
    ['caches not synced', 'before the first snapshot', 'wait', { ...ready, unsynced: ['nodes'] }, { route: 'wait', why: 'caches not synced' }],
    ['caches not synced', 'after the first snapshot', 'wait', { ...ready, unsynced: ['pods'] }, { route: 'wait', why: 'caches not synced' }],
    ['no pod entries', 'before the first snapshot', 'wait', { ...ready, podEntries: false }, { route: 'wait', why: 'no pod entries' }],
    ['no pod entries', 'after the first snapshot', 'wait', { ...ready, podEntries: false }, { route: 'wait', why: 'no pod entries' }],
  ] as const)('a changed pod with %s, %s: route %s', (_what, when, _name, c: Conditions, route) => {
    const s = when === 'after the first snapshot' ? afterFirstFullPass() : firstFullPassListing();
    s.podChanged('a', at('a'), watched);
    expect(s.nextPod(c)).toEqual(route);
    // Routes that write take the pod, and so does a full pass asked for; the others leave it dirty.
    expect(s.dirtyCount).toBe(route.route === 'pod' || route.route === 'create-only' || route.route === 'full' ? 0 : 1);
  });

  it('after the first full pass\'s snapshot, pods left dirty and pod events take the ordinary route, lists included', () => {
    const s = firstFullPassListing();
    s.podChanged('a', at('a'), watched);
    expect(s.nextPod(ready)).toEqual({ route: 'create-only', why: 'no snapshot yet', take: [['a', at('a')]] });
    s.podPassDone([]);
    s.podChanged('b', at('b'), watched);
    s.snapshotted();
    expect(s.podChanged('c', at('c'), listedChange)).toBe('pod');
    // Also while the full pass plans, which then leaves them out.
    expect(s.nextPod(ready)).toEqual({ route: 'pod', take: [['b', at('b')], ['c', at('c')]] });
    s.podPassDone([]);
    expect(writtenFor(s.planned(planFor({ podUid: 'a' }, { podUid: 'b' }, { podUid: 'c' })))).toEqual(['a']);
  });

  it('pod passes go on while a full pass plans, and its plan leaves out the pods they took and the keys they wrote', () => {
    const s = afterFirstFullPass();
    s.requestFull();
    expect(s.next(ready)).toEqual({ route: 'full' });
    // A pod pass in flight when the snapshot is taken: the plan may not have seen its writes.
    s.podChanged('a', at('a'), watched);
    expect(s.nextPod(ready)).toMatchObject({ route: 'pod' });
    s.snapshotted();
    s.podPassDone(['k-a']);
    // Pod passes while the full pass renders and plans, from what is newer than its snapshot.
    s.podChanged('b', at('b'), watched);
    expect(s.nextPod(ready)).toEqual({ route: 'pod', take: [['b', at('b')]] });
    s.podPassDone(['shared']);
    const writable = s.planned(planFor({ podUid: 'a' }, { podUid: 'b' }, { podUid: 'c' }, { key: 'shared' }, { key: 'static' }));
    expect(writable.creates.map((c) => c.podUid ?? c.key)).toEqual(['c', 'static']);
    // Pod passes after the plan: kept off the pods it writes for, not off the others.
    s.podChanged('b', at('b'), watched);
    s.podChanged('c', at('c'), watched);
    expect(s.nextPod(ready)).toEqual({ route: 'pod', take: [['b', at('b')]] });
    s.podPassDone(['k-b']);
    expect(s.nextPod(ready)).toEqual({ route: 'held', why: 'full pass writes them' });
    // The next full pass keeps everything: nothing was taken since its snapshot.
    s.fullDone();
    s.snapshotted();
    expect(writtenFor(s.planned(planFor({ podUid: 'a' }, { podUid: 'b' })))).toEqual(['a', 'b']);
  });

  it('a pod of the pod pass in flight at the snapshot, changed again, stays dirty: the full pass leaves it to the pod lane', () => {
    const s = afterFirstFullPass();
    s.podChanged('a', at('a'), watched);
    expect(s.nextPod(ready)).toMatchObject({ route: 'pod' });
    s.podChanged('a', at('a2'), watched);
    s.snapshotted();
    expect(s.dirtyCount).toBe(1);
    s.podPassDone([]);
    expect(s.nextPod(ready)).toEqual({ route: 'pod', take: [['a', at('a2')]] });
    s.podPassDone(['k-a']);
    expect(writtenFor(s.planned(planFor({ podUid: 'a' }, { podUid: 'b' })))).toEqual(['b']);
  });

  it('a pod pass that ended before the snapshot does not take its pods out of the plan', () => {
    const s = afterFirstFullPass();
    s.podChanged('a', at('a'), watched);
    expect(s.nextPod(ready)).toMatchObject({ route: 'pod' });
    s.podPassDone(['k-a']);
    s.snapshotted();
    expect(writtenFor(s.planned(planFor({ podUid: 'a' })))).toEqual(['a']);
  });

  it('create-only passes leave the pods the full pass in flight writes for dirty (the processing set)', () => {
    const s = afterFirstFullPass();
    s.requestFull();
    expect(s.next(ready)).toEqual({ route: 'full' });
    s.snapshotted();
    s.planned(planFor({ podUid: 'a' }));
    s.podChanged('a', at('a'), watched);
    s.podChanged('b', at('b'), watched);
    const uncertain = { ...ready, stateCertain: false };
    expect(s.nextPod(uncertain)).toEqual({ route: 'create-only', why: 'state uncertain', take: [['b', at('b')]] });
    expect(s.nextPod(uncertain)).toEqual({ route: 'held', why: 'full pass writes them' });
    s.fullDone();
    expect(s.nextPod(uncertain)).toEqual({ route: 'create-only', why: 'state uncertain', take: [['a', at('a')]] });
  });

  it(`a standby keeps the ${STANDBY_PODS} pods most recently changed by watch events, and creates their entries when its term starts`, () => {
    const s = new PassScheduler();
    for (let i = 0; i < STANDBY_PODS + 2; i++) s.podChanged(`p${i}`, at(`p${i}`), standingBy);
    // Changed again: now the most recent.
    s.podChanged('p2', at('p2'), standingBy);
    s.podChanged('p3', at('p3'), standingBy);
    expect(s.dirtyCount).toBe(STANDBY_PODS);
    expect(s.nextPod({ ...ready, leading: false })).toEqual({ route: 'wait', why: 'not leading' });
    // The term starts: its first full pass is due, and the pod lane creates meanwhile.
    expect(s.next(ready)).toEqual({ route: 'full' });
    const route = s.nextPod({ ...ready, stateCertain: false, probed: false });
    expect(route.route).toBe('create-only');
    const uids = route.route === 'create-only' ? route.take.map(([uid]) => uid) : [];
    expect(uids).toHaveLength(STANDBY_PODS);
    expect(uids.slice(0, 2)).toEqual(['p4', 'p5']);
    expect(uids.slice(-2)).toEqual(['p2', 'p3']);
  });

  it('after the first snapshot wake the pod lane, which takes each pod once however often it changed', () => {
    const s = afterFirstFullPass();
    expect(s.podChanged('a', at('a'), watched)).toBe('pod');
    expect(s.podChanged('a', at('a2'), watched)).toBe('pod');
    expect(s.podChanged('b', null, watched)).toBe('pod');
    expect(s.nextPod(ready)).toEqual({
      route: 'pod',
      take: [
        ['a', at('a2')],
        ['b', null],
      ],
    });
    expect(s.dirtyCount).toBe(0);
    // A pod event asks for no full pass: the full lane hands over to the pod lane.
    expect(s.next(ready)).toEqual({ route: 'pod-lane' });
  });

  it('stay dirty at the snapshot, for the pod lane to take while the full pass renders and plans (which then leaves them out)', () => {
    const s = afterFirstFullPass();
    s.requestFull();
    expect(s.next(ready)).toEqual({ route: 'full' });
    s.podChanged('a', at('a'), watched);
    s.podChanged('b', at('b'), watched);
    s.snapshotted();
    expect(s.dirtyCount).toBe(2);
    expect(s.nextPod(ready)).toEqual({ route: 'pod', take: [['a', at('a')], ['b', at('b')]] });
    s.podPassDone(['k-a']);
    expect(writtenFor(s.planned(planFor({ podUid: 'a' }, { podUid: 'b' }, { podUid: 'c' })))).toEqual(['c']);
  });

  it('left dirty until the full pass has planned, are written by it, and the pod lane waits for its writes', () => {
    const s = afterFirstFullPass();
    s.requestFull();
    expect(s.next(ready)).toEqual({ route: 'full' });
    s.podChanged('a', at('a'), watched);
    s.snapshotted();
    expect(writtenFor(s.planned(planFor({ podUid: 'a' })))).toEqual(['a']);
    expect(s.nextPod(ready)).toEqual({ route: 'held', why: 'full pass writes them' });
    s.fullDone();
    expect(s.nextPod(ready)).toEqual({ route: 'pod', take: [['a', at('a')]] });
  });

  it('while the full pass writes, go on for the pods its plan does not write for (the processing set)', () => {
    const s = afterFirstFullPass();
    s.requestFull();
    expect(s.next(ready)).toEqual({ route: 'full' });
    s.snapshotted();
    s.planned(planFor({ podUid: 'a' }));
    s.podChanged('a', at('a'), watched);
    s.podChanged('b', at('b'), watched);
    expect(s.nextPod(ready)).toEqual({ route: 'pod', take: [['b', at('b')]] });
    expect(s.nextPod(ready)).toEqual({ route: 'held', why: 'full pass writes them' });
    expect(s.dirtyCount).toBe(1);
    s.fullDone();
    expect(s.nextPod(ready)).toEqual({ route: 'pod', take: [['a', at('a')]] });
  });

  it('not probed, go to one full pass, not to a full pass after every snapshot while the probe fails', () => {
    const s = afterFirstFullPass();
    const notProbed = { ...ready, probed: false };
    s.podChanged('a', at('a'), watched);
    expect(s.nextPod(notProbed)).toEqual({ route: 'full', why: 'not probed' });
    s.requestFull();
    expect(s.next(notProbed)).toEqual({ route: 'full' });
    s.snapshotted();
    // The pass's snapshot holds the pod's event: the pod lane has nothing left to ask for.
    expect(s.nextPod(notProbed)).toEqual({ route: 'wait', why: 'no dirty pods' });
    s.planned(planFor({ podUid: 'a' }));
    s.fullDone();
    expect(s.next(notProbed)).toEqual({ route: 'pod-lane' });
  });

  it('are forgotten when the term ends: the next term starts from a full pass of its own, creating meanwhile', () => {
    const s = afterFirstFullPass();
    s.podChanged('a', at('a'), watched);
    s.termEnded();
    expect(s.dirtyCount).toBe(0);
    expect(s.podChanged('b', at('b'), listedChange)).toBe('full');
    expect(s.podChanged('c', at('c'), standingBy)).toBe('pod');
    expect(s.nextPod(ready)).toEqual({ route: 'create-only', why: 'no snapshot yet', take: [['c', at('c')]] });
  });
});
