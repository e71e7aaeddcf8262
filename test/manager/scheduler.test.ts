import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/index.js';
import { type Conditions, FIRST_LIST_BATCH, PassScheduler } from '../../src/manager/scheduler.js';

/** Everything ready: leading, SPIRE up, caches synced, state certain, probed. */
const ready: Conditions = { leading: true, spireReady: true, podEntries: true, unsynced: [], stateCertain: true, probed: true, podsCoverTemplates: true };
const listing: Conditions = { ...ready, unsynced: ['pods'] };

const pod = (uid: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { uid, name: uid, namespace: 'ns' }, spec: {} }) as unknown as Pod;
const pods = (n: number, from = 0) => Array.from({ length: n }, (_, i) => pod(`p${from + i}`));

/** A scheduler whose first full pass has taken its snapshot: pod events go to the pod lane from now on. */
function afterFirstFullPass(): PassScheduler {
  const s = new PassScheduler();
  expect(s.next(ready)).toEqual({ route: 'full' });
  s.planningStarted();
  s.snapshotted();
  s.planned(new Set());
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

describe('PassScheduler: pod events', () => {
  it('before the first snapshot wake the full lane and are not dirty', () => {
    const s = new PassScheduler();
    expect(s.podChanged('a', { namespace: 'ns', name: 'a' })).toBe('full');
    expect(s.dirtyCount).toBe(0);
    expect(s.nextPod(ready)).toEqual({ route: 'wait', why: 'no dirty pods' });
  });

  it('after it wake the pod lane, which takes each pod once however often it changed', () => {
    const s = afterFirstFullPass();
    expect(s.podChanged('a', { namespace: 'ns', name: 'a' })).toBe('pod');
    expect(s.podChanged('a', { namespace: 'ns', name: 'a2' })).toBe('pod');
    expect(s.podChanged('b', null)).toBe('pod');
    expect(s.nextPod(ready)).toEqual({
      route: 'pod',
      take: [
        ['a', { namespace: 'ns', name: 'a2' }],
        ['b', null],
      ],
    });
    expect(s.dirtyCount).toBe(0);
    // A pod event asks for no full pass: the full lane hands over to the pod lane.
    expect(s.next(ready)).toEqual({ route: 'pod-lane' });
  });

  it('wait while a full pass plans, and resume for the pods its plan does not write for (the processing set)', () => {
    const s = afterFirstFullPass();
    s.requestFull();
    expect(s.next(ready)).toEqual({ route: 'full' });
    s.podChanged('a', { namespace: 'ns', name: 'a' });
    s.podChanged('b', { namespace: 'ns', name: 'b' });
    s.planningStarted();
    expect(s.nextPod(ready)).toEqual({ route: 'wait', why: 'full pass planning' });
    s.snapshotted();
    expect(s.dirtyCount).toBe(0);
    s.planned(new Set(['a']));
    s.podChanged('a', { namespace: 'ns', name: 'a' });
    s.podChanged('b', { namespace: 'ns', name: 'b' });
    expect(s.nextPod(ready)).toEqual({ route: 'pod', take: [['b', { namespace: 'ns', name: 'b' }]] });
    expect(s.nextPod(ready)).toEqual({ route: 'held', why: 'full pass writes them' });
    expect(s.dirtyCount).toBe(1);
    s.fullDone();
    expect(s.nextPod(ready)).toEqual({ route: 'pod', take: [['a', { namespace: 'ns', name: 'a' }]] });
  });

  it('go to a full pass when the state is uncertain or SPIRE not probed, and are held while the pods are listed again', () => {
    const s = afterFirstFullPass();
    s.podChanged('a', { namespace: 'ns', name: 'a' });
    expect(s.nextPod({ ...ready, stateCertain: false })).toEqual({ route: 'full', why: 'state uncertain' });
    expect(s.nextPod({ ...ready, probed: false })).toEqual({ route: 'full', why: 'not probed' });
    expect(s.nextPod({ ...ready, podsCoverTemplates: false })).toEqual({ route: 'held', why: 'pods relisted' });
    expect(s.nextPod({ ...ready, leading: false })).toEqual({ route: 'wait', why: 'not leading' });
    expect(s.nextPod({ ...ready, unsynced: ['pods'] })).toEqual({ route: 'wait', why: 'caches not synced' });
    expect(s.nextPod({ ...ready, podEntries: false })).toEqual({ route: 'wait', why: 'no pod entries' });
    expect(s.dirtyCount).toBe(1);
  });

  it('are forgotten when the term ends: the next term starts from a full pass of its own', () => {
    const s = afterFirstFullPass();
    s.podChanged('a', { namespace: 'ns', name: 'a' });
    s.termEnded();
    expect(s.dirtyCount).toBe(0);
    expect(s.podChanged('b', { namespace: 'ns', name: 'b' })).toBe('full');
  });
});
