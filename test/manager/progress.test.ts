import { describe, expect, it } from 'vitest';
import { ControllerMetrics } from '../../src/manager/metrics.js';
import { ProgressReporter } from '../../src/manager/work-progress.js';
import { parseExposition } from './prom-text.js';

const parsePromText = (text: string) => parseExposition(text).samples;

/** A reporter on a clock the test moves, logging into an array. */
function reporter() {
  let now = 1_000_000;
  const lines: { obj: object; msg: string }[] = [];
  const metrics = new ControllerMetrics();
  const progress = new ProgressReporter({ info: (obj, msg) => lines.push({ obj, msg }) }, metrics, () => now, 5_000);
  return { progress, lines, metrics, advance: (ms: number) => (now += ms) };
}

describe('progress of long work: logged at most every 5 s, with rate and time left, and kept in metrics', () => {
  it('writes: nothing for short work; the count of total, the rate and an estimate while long; a last line when done', async () => {
    const { progress, lines, advance, metrics } = reporter();
    progress.written('full pass', 0, 10);
    advance(100);
    progress.written('full pass', 10, 10);
    expect(lines).toEqual([]);

    progress.written('full pass', 0, 100_000);
    advance(1_000);
    progress.written('full pass', 10_000, 100_000);
    expect(lines).toEqual([]);
    advance(4_000);
    progress.written('full pass', 40_000, 100_000);
    expect(lines).toEqual([
      { obj: { written: 40_000, total: 100_000, perSecond: 8_000, etaSeconds: 8 }, msg: 'full pass: 40,000 of 100,000 entries written (8,000/s, about 8 s left)' },
    ]);
    const text = (await metrics.expose()).body;
    expect(parsePromText(text).filter((s) => s.name === 'spire_reconciler_pass_writes')).toEqual([
      { name: 'spire_reconciler_pass_writes', labels: { state: 'done' }, value: 40_000 },
      { name: 'spire_reconciler_pass_writes', labels: { state: 'planned' }, value: 100_000 },
    ]);
    advance(1_000);
    progress.written('full pass', 50_000, 100_000);
    expect(lines).toHaveLength(1);
    advance(7_000);
    progress.written('full pass', 100_000, 100_000);
    expect(lines.at(-1)).toEqual({ obj: { total: 100_000, seconds: 13 }, msg: 'full pass: 100,000 entries written in 13.0 s' });
  });

  it('the first pod list: pods so far, the rate and the entries already written for them; a last line at sync', async () => {
    const { progress, lines, advance, metrics } = reporter();
    progress.podsListed(500);
    advance(2_000);
    progress.podsListed(20_000);
    progress.writtenWhileListing(15_000);
    expect(lines).toEqual([]);
    advance(3_000);
    progress.podsListed(9_500);
    expect(lines).toEqual([
      { obj: { podsListed: 30_000, perSecond: 6_000, entriesWritten: 15_000 }, msg: 'listing pods: 30,000 so far (6,000/s); entries written for them so far: 15,000' },
    ]);
    expect(parsePromText((await metrics.expose()).body).find((s) => s.name === 'spire_reconciler_pods_listed')?.value).toBe(30_000);
    advance(1_000);
    progress.podsSynced();
    expect(lines.at(-1)?.msg).toBe('listed 30,000 pods in 6.0 s; entries written for them so far: 15,000 (the full pass writes the rest)');
  });
});
