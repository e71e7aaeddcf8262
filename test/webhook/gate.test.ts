/**
 * The admission gate's bookkeeping, without the network (limits.test.ts has
 * it over HTTPS): turns, the slab's ranges, the order of those waiting.
 */
import { describe, expect, it } from 'vitest';
import { AdmissionGate, type Pass, UNKNOWN_LENGTH_START } from '../../src/webhook/gate.js';
import { BodySlab } from '../../src/webhook/slab.js';

const live = () => new AbortController().signal;

async function pass(p: Promise<Pass | 'busy' | 'gone'>): Promise<Pass> {
  const got = await p;
  if (typeof got === 'string') throw new Error(`expected a pass, got ${got}`);
  return got;
}

describe('BodySlab', () => {
  it('gives the lowest range that fits, and merges ranges given back', () => {
    const slab = new BodySlab(100);
    const a = slab.take(40)!;
    const b = slab.take(40)!;
    expect([a.start, b.start]).toEqual([0, 40]);
    expect(slab.take(30)).toBeUndefined();
    slab.give(a);
    expect(slab.take(50)).toBeUndefined();
    slab.give(b);
    expect(slab.available).toBe(100);
    expect(slab.take(100)).toEqual({ start: 0, size: 100 });
  });

  it('grows a range in place when the bytes after it are free, else moves it with its bytes', () => {
    const slab = new BodySlab(100);
    const a = slab.take(10)!;
    slab.view(a).write('0123456789');
    const inPlace = slab.grow(a, 30, 10)!;
    expect(inPlace).toEqual({ start: 0, size: 30 });
    const b = slab.take(10)!;
    expect(b.start).toBe(30);
    const moved = slab.grow(inPlace, 50, 10)!;
    expect(moved.start).toBe(40);
    expect(slab.view(moved, 10).toString()).toBe('0123456789');
    expect(slab.grow(moved, 70, 10)).toBeUndefined();
    slab.give(b);
    slab.give(moved);
    expect(slab.available).toBe(100);
  });
});

describe('AdmissionGate', () => {
  it('lets in as many as there are turns and bytes, then queues in arrival order, then refuses', async () => {
    const gate = new AdmissionGate({ bytes: 100, reviews: 2, waiting: 2 });
    const a = await pass(gate.enter(60, live()));
    const b = await pass(gate.enter(30, live()));
    const order: string[] = [];
    const c = gate.enter(10, live()).then((p) => (order.push('c'), p));
    const d = gate.enter(10, live()).then((p) => (order.push('d'), p));
    expect(await gate.enter(1, live())).toBe('busy');
    expect(gate.load).toEqual({ reviewing: 2, bytes: 90, waiting: 2 });
    a.release();
    (await pass(c)).release();
    b.release();
    (await pass(d)).release();
    expect(order).toEqual(['c', 'd']);
    expect(gate.load).toEqual({ reviewing: 0, bytes: 0, waiting: 0 });
  });

  it('keeps the first in line first: a smaller request behind it does not pass it', async () => {
    const gate = new AdmissionGate({ bytes: 100, reviews: 4, waiting: 4 });
    const a = await pass(gate.enter(60, live()));
    const big = gate.enter(50, live());
    const small = gate.enter(10, live());
    expect(gate.load.waiting).toBe(2);
    a.release();
    const [p1, p2] = [await pass(big), await pass(small)];
    expect(gate.load).toEqual({ reviewing: 2, bytes: 60, waiting: 0 });
    p1.release();
    p2.release();
  });

  it('refuses at once a length larger than all the bytes, and lets a waiter whose client went away leave the line', async () => {
    const gate = new AdmissionGate({ bytes: 100, reviews: 1, waiting: 4 });
    expect(await gate.enter(101, live())).toBe('busy');
    const a = await pass(gate.enter(10, live()));
    const leaving = new AbortController();
    const left = gate.enter(10, leaving.signal);
    const stays = gate.enter(10, live());
    leaving.abort();
    expect(await left).toBe('gone');
    expect(gate.load.waiting).toBe(1);
    a.release();
    (await pass(stays)).release();
    expect(gate.load).toEqual({ reviewing: 0, bytes: 0, waiting: 0 });
  });

  it('a body without a length starts small and grows while the bytes are free', async () => {
    const gate = new AdmissionGate({ bytes: 4 * UNKNOWN_LENGTH_START, reviews: 2, waiting: 0 });
    const p = await pass(gate.enter(undefined, live()));
    expect(p.capacity).toBe(UNKNOWN_LENGTH_START);
    expect(p.grow(3 * UNKNOWN_LENGTH_START, 0)).toBe(true);
    expect(gate.load.bytes).toBe(3 * UNKNOWN_LENGTH_START);
    expect(p.grow(5 * UNKNOWN_LENGTH_START, 0)).toBe(false);
    expect(p.capacity).toBe(3 * UNKNOWN_LENGTH_START);
    p.release();
    p.release();
    expect(gate.load).toEqual({ reviewing: 0, bytes: 0, waiting: 0 });
  });
});
