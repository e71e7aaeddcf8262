/** A small seeded PRNG (mulberry32) with the helpers the generators need; the same seed gives the same cases everywhere. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** Picks by weight: [[weight, value], ...]. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    let total = 0;
    for (const [w] of choices) total += w;
    let r = this.next() * total;
    for (const [w, v] of choices) {
      r -= w;
      if (r < 0) return v;
    }
    return choices[choices.length - 1]![1];
  }

  /** A sub-list of items, each kept with probability p, in order. */
  some<T>(items: readonly T[], p: number): T[] {
    return items.filter(() => this.chance(p));
  }
}

/** A 32-bit seed for case `index` of run `seed` (splitmix-style mixing, so neighbouring cases differ). */
export function caseSeed(seed: number, index: number): number {
  let z = (seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}
