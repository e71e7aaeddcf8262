import { describe, expect, it } from 'vitest';
import { ACK_SLACK_S, compareWithLane } from '../e2e/registration-compare.js';

/** The check the e2e lane and bench:svid make of the histogram against their own timing (run there on a real node). */
describe("the registration histogram against a lane's timing of the same pods", () => {
  const before = { count: 2, sum: 0.1 };

  it('agrees when every pod was timed and the lane saw each entry no sooner than the controller, less the slack for reading the answer', () => {
    const r = compareWithLane(before, { count: 5, sum: 0.1 + 0.12 }, [60, 70, 80]);
    expect(r.problems).toEqual([]);
    expect(r.line).toBe(
      "registration_seconds (created, pod): 3 pods, mean 40.0 ms; the lane's entry on the server: 3 pods, mean 70.0 ms; difference 30.0 ms a pod (the API server's create and watch delivery, and the 50 ms poll)",
    );
    // The controller may read SPIRE's answer after a poll saw the entry: up to the slack.
    expect(compareWithLane(before, { count: 5, sum: 0.1 + 0.21 + 3 * ACK_SLACK_S - 0.001 }, [60, 70, 80]).problems).toEqual([]);
  });

  it('disagrees on a pod not timed, a sum beyond the lane, or an entry the lane did not see', () => {
    expect(compareWithLane(before, { count: 4, sum: 0.2 }, [60, 70, 80]).problems).toEqual(['the histogram timed 2 pods as created from their own event, the lane created 3']);
    expect(compareWithLane(before, { count: 5, sum: 0.1 + 0.21 + 3 * ACK_SLACK_S + 0.01 }, [60, 70, 80]).problems[0]).toMatch(/^the histogram's sum \(0\.970 s\) exceeds the lane's \(0\.210 s\) by more than 0\.25 s a pod$/);
    expect(compareWithLane(before, { count: 5, sum: 0.2 }, [60, Number.NaN, 80]).problems).toContain('the lane did not see every entry');
    expect(compareWithLane(before, { count: 5, sum: 0.1 }, [60, 70, 80]).problems).toContain("the histogram's sum grew by 0 s");
  });
});
