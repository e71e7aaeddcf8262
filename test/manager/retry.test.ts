import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ControllerMetrics } from '../../src/manager/metrics.js';
import { RetryPolicy, writesOutcome } from '../../src/manager/retry.js';

const log = pino({ level: 'silent' });

describe('RetryPolicy: what follows a pass', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function policy() {
    const asked: number[] = [];
    let invalidated = 0;
    const metrics = new ControllerMetrics();
    const failed = vi.spyOn(metrics, 'passFailed');
    const p = new RetryPolicy({ metrics, fullPass: () => asked.push(Date.now()), onError: () => invalidated++ });
    return { p, asked, failed, invalidated: () => invalidated };
  }

  it('errors and requeues wait the backoff, doubling; a full pass that succeeds starts it over, a pod pass does not', () => {
    const { p, asked, failed, invalidated } = policy();
    const start = Date.now();
    p.settle('full', { result: 'error', err: new Error('down') }, log);
    expect([invalidated(), failed.mock.calls.length]).toEqual([1, 1]);
    vi.advanceTimersByTime(1_000);
    p.settle('full', { result: 'requeue' }, log);
    vi.advanceTimersByTime(2_000);
    p.settle('pod', { result: 'success' }, log);
    p.settle('pod', { result: 'requeue' }, log);
    vi.advanceTimersByTime(4_000);
    p.settle('full', { result: 'success' }, log);
    p.settle('full', { result: 'requeue' }, log);
    vi.advanceTimersByTime(1_000);
    expect(asked.map((t) => t - start)).toEqual([1_000, 3_000, 7_000, 8_000]);
    expect(failed).toHaveBeenCalledTimes(1);
  });

  it('a requeue-after waits its own delay beside the backoff, and 0 asks now', () => {
    const { p, asked } = policy();
    const start = Date.now();
    p.settle('full', { result: 'requeue' }, log);
    p.settle('pod', { result: 'requeue-after', ms: 2_000 }, log);
    p.settle('pod', { result: 'requeue-after', ms: 0 }, log);
    vi.advanceTimersByTime(5_000);
    expect(asked.map((t) => t - start)).toEqual([0, 1_000, 2_000]);
    p.settle('pod', { result: 'requeue-after', ms: 2_000 }, log);
    p.stop();
    vi.advanceTimersByTime(5_000);
    expect(asked).toHaveLength(3);
  });

  it('without a full pass to ask for (manifest mode), an error is logged and counted only', () => {
    const metrics = new ControllerMetrics();
    const failed = vi.spyOn(metrics, 'passFailed');
    const p = new RetryPolicy({ metrics });
    p.settle('full', { result: 'error', err: new Error('down') }, log);
    p.settle('full', { result: 'requeue' }, log);
    expect(vi.getTimerCount()).toBe(0);
    expect(failed).toHaveBeenCalledTimes(1);
  });

  it('only a failure SPIRE may not repeat is retried', () => {
    expect(writesOutcome({ failures: [{ codeName: 'INVALID_ARGUMENT' }] })).toBe('success');
    expect(writesOutcome({ failures: [{ codeName: 'UNAVAILABLE' }] })).toBe('requeue');
  });
});
