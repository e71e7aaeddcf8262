import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { periodicWaits, waitLine } from '../../src/manager/wait-reports.js';

describe('a wait is said soon after it starts, then every 5 s with the time waited, until it ends', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** A reporter on the fake clock, saying into an array. */
  function reporter() {
    const lines: string[] = [];
    return { waits: periodicWaits((l) => lines.push(l), 5_000, () => Date.now()), lines };
  }

  it('a wait known to be one (no socket yet) is said at once, then at 5 s and 10 s, with the limit when there is one', () => {
    const { waits, lines } = reporter();
    const end = waits.begin('the SPIRE server at /run/api.sock', { graceMs: 0, limitMs: 30_000 });
    vi.advanceTimersByTime(0);
    expect(lines).toEqual(['waiting for the SPIRE server at /run/api.sock (up to 30 s)…']);
    vi.advanceTimersByTime(10_000);
    expect(lines.slice(1)).toEqual(['waiting for the SPIRE server at /run/api.sock (5 s of 30 s)…', 'waiting for the SPIRE server at /run/api.sock (10 s of 30 s)…']);
    end();
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(3);
  });

  it('an answer within the grace is never announced; a wait past it is, and goes on without a limit', () => {
    const { waits, lines } = reporter();
    waits.begin('the Kubernetes API server at https://10.0.0.1:6443', { graceMs: 1_000 })();
    vi.advanceTimersByTime(10_000);
    expect(lines).toEqual([]);
    const end = waits.begin('the Kubernetes API server at https://10.0.0.1:6443', { graceMs: 1_000 });
    vi.advanceTimersByTime(6_000);
    expect(lines).toEqual(['waiting for the Kubernetes API server at https://10.0.0.1:6443…', 'waiting for the Kubernetes API server at https://10.0.0.1:6443 (6 s)…']);
    end();
  });

  it('words each line', () => {
    expect(waitLine('X', 0)).toBe('waiting for X…');
    expect(waitLine('X', 0, 2_000)).toBe('waiting for X (up to 2 s)…');
    expect(waitLine('X', 12_400)).toBe('waiting for X (12 s)…');
    expect(waitLine('X', 12_600, 30_000)).toBe('waiting for X (13 s of 30 s)…');
  });
});
