/**
 * The registration-latency histogram (spire_reconciler_registration_seconds)
 * against a lane's own timing of the same pods, on a real node: the e2e
 * test (registration-latency.test.ts) and `npm run bench:svid` both time
 * each pod from before its create request to the first poll of the SPIRE
 * server's entries (every 50 ms) that shows its entry.
 *
 * Per pod, the controller's figure is from the watch event it received to
 * SPIRE's answer for the create. The lane's is that plus the API server's
 * create and watch delivery before it, and the poll's delay after it, less
 * whatever the controller took to read SPIRE's answer once SPIRE had
 * committed the entry (a poll can see the entry first). So, over a round:
 * the histogram timed every pod, as created from its own event; its sum is
 * no more than the lane's, but for that last part (at most ACK_SLACK_S a
 * pod, generous on a busy two-core node); and the lane's mean exceeds the
 * histogram's by the watch delivery and the poll, which is printed.
 */
import type { SpireClient } from '../../src/spire/index.js';
import { httpGet } from '../support/cli.js';

/** Per pod: how long the controller may take to read SPIRE's answer after a poll could see the entry. */
export const ACK_SLACK_S = 0.25;

export interface RegistrationTotals {
  count: number;
  sum: number;
}

/** The histogram's count and sum for pods timed from their own event, their entry created: read from /metrics. */
export async function registrationTotals(metricsUrl: string): Promise<RegistrationTotals> {
  const body = (await httpGet(metricsUrl)).body;
  const read = (suffix: string) => {
    const m = new RegExp(`^spire_reconciler_registration_seconds_${suffix}\\{outcome="created",trigger="pod"\\} (\\S+)$`, 'm').exec(body);
    if (!m) throw new Error(`no spire_reconciler_registration_seconds_${suffix}{outcome="created",trigger="pod"} at ${metricsUrl}`);
    return Number(m[1]);
  };
  return { count: read('count'), sum: read('sum') };
}

/** The comparison of one round: a line to print, and what does not hold (empty when it agrees). */
export function compareWithLane(before: RegistrationTotals, after: RegistrationTotals, laneMs: readonly number[]): { line: string; problems: string[] } {
  const n = laneMs.length;
  const count = after.count - before.count;
  const sum = after.sum - before.sum;
  const laneSum = laneMs.reduce((a, b) => a + b, 0) / 1000;
  const mean = (s: number, k: number) => (k > 0 ? ((s / k) * 1000).toFixed(1) : '-');
  const line =
    `registration_seconds (created, pod): ${count} pods, mean ${mean(sum, count)} ms; the lane's entry on the server: ${n} pods, mean ${mean(laneSum, n)} ms; ` +
    `difference ${n > 0 && count > 0 ? ((laneSum / n - sum / count) * 1000).toFixed(1) : '-'} ms a pod (the API server's create and watch delivery, and the 50 ms poll)`;
  const problems: string[] = [];
  if (laneMs.some((ms) => !Number.isFinite(ms))) problems.push('the lane did not see every entry');
  if (count !== n) problems.push(`the histogram timed ${count} pods as created from their own event, the lane created ${n}`);
  if (!(sum > 0)) problems.push(`the histogram's sum grew by ${sum} s`);
  if (sum > laneSum + n * ACK_SLACK_S) problems.push(`the histogram's sum (${sum.toFixed(3)} s) exceeds the lane's (${laneSum.toFixed(3)} s) by more than ${ACK_SLACK_S} s a pod`);
  return { line, problems };
}

/**
 * When each pod's entry was first seen on the SPIRE server: its name (the
 * SPIFFE ID's last segment) mapped to the moment a list that held it came
 * back, for pods in `created` (set before each create is sent). The moment
 * after the list, not before it: a pod created while a list is under way
 * can be in its answer, and would otherwise seem registered before it was
 * created. So a figure is at most one list and the 50 ms pause late.
 */
export function pollEntryTimes(spire: SpireClient, created: ReadonlyMap<string, number>): { entryAt: Map<string, number>; stop: () => Promise<void> } {
  const entryAt = new Map<string, number>();
  let polling = true;
  const loop = (async () => {
    while (polling) {
      const entries = await spire.listEntries();
      const now = Date.now();
      for (const e of entries) {
        const name = e.spiffe_id?.path?.split('/').pop();
        if (name && created.has(name) && !entryAt.has(name)) entryAt.set(name, now);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    entryAt,
    stop: async () => {
      polling = false;
      await loop;
    },
  };
}
