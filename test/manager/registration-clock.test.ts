import { describe, expect, it } from 'vitest';
import type { ApplyFailure, PlannedCreate, PlannedUpdate } from '../../src/entries/index.js';
import { PENDING_LIMIT, podWrites, type PodWrites, RegistrationClock, type RegistrationOutcome, type RegistrationTrigger, standings } from '../../src/manager/registration-clock.js';

const pod = (uid: string, o: { node?: string; labels?: Record<string, string>; phase?: string } = {}) => ({
  metadata: { uid, name: `p-${uid}`, namespace: 'ns', labels: o.labels ?? { app: 'a' } },
  spec: o.node === undefined ? { nodeName: 'node-1' } : o.node ? { nodeName: o.node } : {},
  status: { phase: o.phase ?? 'Running' },
});

const NOTHING: PodWrites = { created: new Set(), updated: new Set(), refused: new Set(), unsure: new Set(), similarKeys: new Set() };
const wrote = (w: Partial<Record<'created' | 'updated' | 'refused' | 'unsure', string[]>>): PodWrites => ({
  created: new Set(w.created),
  updated: new Set(w.updated),
  refused: new Set(w.refused),
  unsure: new Set(w.unsure),
  similarKeys: new Set(),
});

/** A clock on a hand-moved time (ms), and what it observed. */
function clockAt() {
  let t = 1_000;
  const seen: [RegistrationOutcome, RegistrationTrigger, number][] = [];
  const clock = new RegistrationClock((o, tr, s) => seen.push([o, tr, s]), () => t);
  return { clock, seen, advance: (ms: number) => (t += ms) };
}

describe('the registration clock times a pod from the event that made it registrable to its entry', () => {
  it('a pod created on a node waits until a pass that read it writes its entry', () => {
    const { clock, seen, advance } = clockAt();
    clock.podEvent('add', pod('a'), undefined);
    const mark = clock.mark;
    advance(40);
    clock.settle('a', 'held', wrote({ created: ['a'] }));
    expect(seen).toEqual([['created', 'pod', 0.04]]);
    expect(clock.pending()).toEqual({ pods: 0, oldestSeconds: 0 });
    // Settled once: a later pass has nothing to say about it.
    expect(clock.isDue('a', mark)).toBe(false);
  });

  it('starts at the binding for a pod created without a node, and not at a change of its phase', () => {
    const { clock, seen, advance } = clockAt();
    clock.podEvent('add', pod('a', { node: '' }), undefined);
    expect(clock.pending().pods).toBe(0);
    advance(1_000);
    clock.podEvent('update', pod('a'), pod('a', { node: '' }));
    advance(10);
    clock.podEvent('update', pod('a', { phase: 'Running' }), pod('a', { phase: 'Pending' }));
    advance(10);
    clock.settle('a', 'held', wrote({ created: ['a'] }));
    expect(seen).toEqual([['created', 'pod', 0.02]]);
    // A phase change of a pod not waiting starts nothing, nor does a finished pod.
    clock.podEvent('update', pod('b', { phase: 'Running' }), pod('b', { phase: 'Pending' }));
    clock.podEvent('add', pod('c', { phase: 'Succeeded' }), undefined);
    expect(clock.pending().pods).toBe(0);
  });

  it('starts at a label change; found already there, nothing waited', () => {
    const { clock, seen } = clockAt();
    clock.podEvent('update', pod('a', { labels: { app: 'b' } }), pod('a'));
    clock.settle('a', 'held', NOTHING);
    clock.podEvent('update', pod('b', { labels: { app: 'b' } }), pod('b'));
    clock.settle('b', 'held', wrote({ created: ['b'] }));
    expect(seen.map(([o, t]) => [o, t])).toEqual([['created', 'pod']]);
    expect(clock.pending().pods).toBe(0);
  });

  it('a new pod whose entry is found there is already registered', () => {
    const { clock, seen } = clockAt();
    clock.podEvent('add', pod('a'), undefined);
    clock.settle('a', 'held', NOTHING);
    expect(seen.map(([o]) => o)).toEqual(['already-registered']);
  });

  it('is settled only by a pass that read the pod at least as new as its last event', () => {
    const { clock, seen, advance } = clockAt();
    clock.podEvent('add', pod('a', { labels: { app: 'x' } }), undefined);
    const older = clock.mark;
    // Relabelled before the pass that read it is done: that pass declared nothing for it.
    clock.podEvent('update', pod('a'), pod('a', { labels: { app: 'x' } }));
    expect(clock.isDue('a', older)).toBe(false);
    expect(clock.due(older, new Set())).toEqual([]);
    const newer = clock.mark;
    expect(clock.due(newer, new Set(['a']))).toEqual([]);
    expect(clock.due(newer, new Set())).toEqual([{ uid: 'a', namespace: 'ns', name: 'p-a' }]);
    // anyDue answers what due's emptiness would.
    expect([clock.anyDue(older, new Set()), clock.anyDue(newer, new Set(['a'])), clock.anyDue(newer, new Set())]).toEqual([false, false, true]);
    advance(5);
    clock.settle('a', 'held', wrote({ created: ['a'] }));
    // Timed from its first event.
    expect(seen).toEqual([['created', 'pod', 0.005]]);
  });

  it('waits on through a render failure, a missing entry and a write of unknown outcome; a refusal ends it', () => {
    const { clock, seen, advance } = clockAt();
    clock.podEvent('add', pod('a'), undefined);
    clock.settle('a', 'render-failed', NOTHING);
    clock.settle('a', 'missing', NOTHING);
    clock.settle('a', 'held', wrote({ created: ['a'], unsure: ['a'] }));
    expect(clock.pending().pods).toBe(1);
    advance(3_000);
    expect(clock.pending().oldestSeconds).toBe(3);
    clock.settle('a', 'held', wrote({ created: ['a'] }));
    expect(seen).toEqual([['created', 'pod', 3]]);
    clock.podEvent('add', pod('b'), undefined);
    clock.settle('b', 'missing', wrote({ refused: ['b'] }));
    expect(seen[1]?.[0]).toBe('refused');
  });

  it('drops a pod that declares nothing, or is deleted, without timing it', () => {
    const { clock, seen } = clockAt();
    clock.podEvent('add', pod('a'), undefined);
    clock.settle('a', 'none', NOTHING);
    clock.podEvent('add', pod('b'), undefined);
    clock.podEvent('delete', pod('b'), pod('b'));
    clock.podEvent('add', pod('c'), undefined);
    clock.forget('c');
    expect(seen).toEqual([]);
    expect(clock.pending().pods).toBe(0);
  });

  it('times at most PENDING_LIMIT pods at once, the first ones', () => {
    const { clock } = clockAt();
    for (let i = 0; i <= PENDING_LIMIT; i++) clock.podEvent('add', pod(`u${i}`), undefined);
    expect(clock.pending().pods).toBe(PENDING_LIMIT);
    expect(clock.isDue('u0', clock.mark)).toBe(true);
    expect(clock.isDue(`u${PENDING_LIMIT}`, clock.mark)).toBe(false);
  });

  it('times a full pass\'s writes after a ClusterSPIFFEID or Namespace change from the first one, but not pods already waiting or refusals', () => {
    const { clock, seen, advance } = clockAt();
    clock.selectionChanged();
    advance(100);
    clock.selectionChanged();
    clock.podEvent('add', pod('w'), undefined);
    const since = clock.takeSelection()!;
    expect(clock.takeSelection()).toBeUndefined();
    advance(200);
    clock.selected(since, wrote({ created: ['a', 'w'], updated: ['b'], refused: ['c'] }));
    expect(seen).toEqual([
      ['created', 'selection', 0.3],
      ['updated', 'selection', 0.3],
    ]);
    // A pass that failed gives its changes back, keeping the earlier start.
    clock.selectionChanged();
    clock.returnSelection(since);
    expect(clock.takeSelection()).toBe(since);
  });

  it('a term that ends forgets what it timed', () => {
    const { clock } = clockAt();
    clock.podEvent('add', pod('a'), undefined);
    clock.selectionChanged();
    clock.clear();
    expect(clock.pending().pods).toBe(0);
    expect(clock.takeSelection()).toBeUndefined();
  });
});

describe('what a pass did for each pod', () => {
  const create = (id: string, key: string, podUid?: string): PlannedCreate => ({ id, key, spec: {} as never, owner: {} as never, ...(podUid ? { podUid } : {}) });
  const update = (id: string, key: string, podUid: string): PlannedUpdate => ({ id, key, spec: {} as never, current: {} as never, changed: [], owner: {} as never, podUid });
  const failure = (op: ApplyFailure['op'], id: string, codeName: string, similarTo?: string): ApplyFailure => ({ op, id, key: '', spiffeId: '', codeName, message: '', ...(similarTo ? { similarTo } : {}) });

  it('sorts creates and updates by SPIRE\'s answer: OK, refused for good, unknown, or a similar entry held', () => {
    const w = podWrites(
      {
        creates: [create('1', 'k1', 'a'), create('2', 'k2', 'b'), create('3', 'k3', 'c'), create('4', 'k4', 'd'), create('5', 'k5')],
        updates: [update('6', 'k6', 'e'), update('7', 'k7', 'f')],
      },
      { failures: [failure('create', '2', 'INVALID_ARGUMENT'), failure('create', '3', 'UNAVAILABLE'), failure('create', '4', 'ALREADY_EXISTS', 'other'), failure('update', '7', 'DEADLINE_EXCEEDED'), failure('delete', '1', 'INTERNAL')] },
    );
    expect([...w.created]).toEqual(['a']);
    expect([...w.updated]).toEqual(['e']);
    expect([...w.refused]).toEqual(['b']);
    expect([...w.unsure].sort()).toEqual(['c', 'f']);
    expect([...w.similarKeys]).toEqual(['k4']);
    // Without an apply, nothing was written.
    expect(podWrites({ creates: [create('1', 'k1', 'a')], updates: [] }, undefined).created.size).toBe(0);
  });

  it('says where each pod\'s declared entries stand, in one walk', () => {
    const pods = ['a', 'b', 'c', 'd'].map((uid) => ({ uid, namespace: 'ns', name: uid }));
    const declared = {
      entries: [
        { key: 'ka', podUid: 'a', spec: {} as never, owner: {} as never },
        { key: 'kb1', podUid: 'b', spec: {} as never, owner: {} as never },
        { key: 'kb2', podUid: 'b', spec: {} as never, owner: {} as never },
        { key: 'kd', podUid: 'd', spec: {} as never, owner: {} as never },
      ],
      renderFailures: [{ owner: {} as never, pod: 'ns/d', message: 'node n is not known yet' }],
    };
    const s = standings(pods, declared, (k) => k === 'ka' || k === 'kb1');
    expect(Object.fromEntries(s)).toEqual({ a: 'held', b: 'missing', c: 'none', d: 'render-failed' });
  });
});
