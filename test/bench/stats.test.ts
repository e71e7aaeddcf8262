import { describe, expect, it } from 'vitest';
import { median, percentile } from '../../bench/stats.js';

describe('the benchmarks\' summaries', () => {
  it('median: the middle sample, the mean of the two middle ones for an even count, NaN for none', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('percentile: nearest rank, so a p99 of 100 samples is the second largest and of 1,000 the eleventh', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 50)).toBe(50);
    const thousand = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(percentile(thousand, 99)).toBe(990);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it('leaves the samples as they were', () => {
    const xs = [3, 1, 2];
    median(xs);
    percentile(xs, 50);
    expect(xs).toEqual([3, 1, 2]);
  });
});
