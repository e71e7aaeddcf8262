import { describe, expect, it } from 'vitest';
import { Serial } from '../../src/webhook/serial.js';

describe('Serial', () => {
  it('runs jobs in order, one per turn of the event loop, with other callbacks between them', async () => {
    const serial = new Serial();
    const seen: string[] = [];
    const first = serial.run(() => (seen.push('first'), 1));
    const second = serial.run(() => (seen.push('second'), 2));
    // Queued after the first job's turn was scheduled: runs after it, before the second.
    setImmediate(() => seen.push('other'));
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(seen).toEqual(['first', 'other', 'second']);
  });

  it('rejects with the error a job throws, and goes on with the next', async () => {
    const serial = new Serial();
    const failing = serial.run(() => {
      throw new Error('bad body');
    });
    const next = serial.run(() => 'ok');
    await expect(failing).rejects.toThrow('bad body');
    expect(await next).toBe('ok');
  });
});
