import { describe, expect, it } from 'vitest';
import { CoalescingTrigger } from '../../src/manager/trigger.js';

describe('a change that arrives during a pass always gets a pass of its own', () => {
  it('coalesces a burst into one more pass and never runs two at once', async () => {
    let running = 0;
    let maxRunning = 0;
    let passes = 0;
    let release!: () => void;
    const trigger = new CoalescingTrigger(async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      passes++;
      if (passes === 1) await new Promise<void>((r) => (release = r));
      running--;
    });
    trigger.trigger();
    trigger.trigger();
    trigger.trigger();
    release();
    await trigger.idle();
    expect(passes).toBe(2);
    expect(maxRunning).toBe(1);
  });

  it('runs nothing after stop, and stop waits for the pass in flight', async () => {
    let finished = false;
    const trigger = new CoalescingTrigger(async () => {
      await new Promise((r) => setTimeout(r, 20));
      finished = true;
    });
    trigger.trigger();
    await trigger.stop();
    expect(finished).toBe(true);
    finished = false;
    trigger.trigger();
    await trigger.idle();
    expect(finished).toBe(false);
  });
});
