import { describe, expect, it } from 'vitest';
import { compileLabelSelector, durationToSeconds, parseGoDuration } from '../../src/api/index.js';

describe('durations are read as Go reads them', () => {
  it.each([
    ['0', 0],
    ['1h', 3600e9],
    ['1h30m', 5400e9],
    ['1.5h', 5400e9],
    ['300ms', 300e6],
    ['-2s', -2e9],
    ['10us', 10e3],
    ['10µs', 10e3],
  ])('%s', (input, ns) => {
    expect(parseGoDuration(input)).toBe(ns);
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['10', 'time: missing unit in duration "10"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['h', 'time: invalid duration "h"'],
  ])('%j is rejected', (input, message) => {
    expect(() => parseGoDuration(input)).toThrow(message);
  });

  it('sends TTLs to SPIRE as whole seconds, truncated', () => {
    expect(durationToSeconds('1500ms')).toBe(1);
    expect(durationToSeconds(undefined)).toBe(0);
    expect(durationToSeconds('1h')).toBe(3600);
  });
});

describe('label selectors select as Kubernetes selects', () => {
  const labels = { app: 'web', tier: 'front' };
  it.each([
    [undefined, true],
    [{}, true],
    [{ matchLabels: { app: 'web' } }, true],
    [{ matchLabels: { app: 'db' } }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, false],
    [{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    [{ matchExpressions: [{ key: 'app', operator: 'Exists' }] }, true],
    [{ matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, false],
    [{ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, false],
  ])('%j -> %s', (selector, matches) => {
    expect(compileLabelSelector(selector)(labels)).toBe(matches);
  });

  it('a selector matches nothing on an object without labels unless it needs none', () => {
    expect(compileLabelSelector({ matchLabels: { app: 'web' } })(undefined)).toBe(false);
    expect(compileLabelSelector({ matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] })(undefined)).toBe(true);
  });
});
