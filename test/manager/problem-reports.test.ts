import { describe, expect, it } from 'vitest';
import type { PassProblem } from '../../src/api/index.js';
import { dueProblems, ProblemReports, type Reported } from '../../src/manager/problem-reports.js';

const INTERVAL = 300_000;
const web = { kind: 'ClusterSPIFFEID' as const, name: 'web', uid: 'uid-web', creationTimestamp: '' };
const db = { ...web, name: 'db', uid: 'uid-db' };
const grouped = (n: number, owner = web): PassProblem => ({ owner, level: 'warn', event: 'RenderFailed', message: `${n} pods: bad DNS name (e.g. ...)`, key: 'dns' });
const messages = (ps: readonly PassProblem[]) => ps.map((p) => p.message);

describe('a problem that persists is reported when it is new, when it changes, and once an interval, not every pass', () => {
  it('full passes: new, then silent while the same, again when the count changes or the interval has passed', () => {
    let clock = 0;
    const reports = new ProblemReports(INTERVAL, () => clock);
    expect(messages(reports.due('entries', [grouped(1000)], true))).toEqual(['1000 pods: bad DNS name (e.g. ...)']);
    clock += 5_000;
    expect(reports.due('entries', [grouped(1000)], true)).toEqual([]);
    expect(messages(reports.due('entries', [grouped(1001)], true))).toEqual(['1001 pods: bad DNS name (e.g. ...)']);
    clock += INTERVAL - 1;
    expect(reports.due('entries', [grouped(1001)], true)).toEqual([]);
    clock += 1;
    expect(messages(reports.due('entries', [grouped(1001)], true))).toEqual(['1001 pods: bad DNS name (e.g. ...)']);
    expect(reports.remembered).toBe(1);
  });

  it('a problem a full pass no longer has is forgotten, and reported at once when it comes back', () => {
    let known: Map<string, Reported> = new Map();
    const pass = (ps: PassProblem[]) => {
      const r = dueProblems(known, ps, true, 0, INTERVAL);
      known = r.known;
      return messages(r.due);
    };
    expect(pass([grouped(3), grouped(2, db)])).toHaveLength(2);
    expect(pass([grouped(2, db)])).toEqual([]);
    expect(known.size).toBe(1);
    expect(pass([grouped(3), grouped(2, db)])).toEqual(['3 pods: bad DNS name (e.g. ...)']);
  });

  it('a pod pass reports only a cause not known; the full pass after it reports the new count', () => {
    const reports = new ProblemReports(INTERVAL, () => 0);
    reports.due('entries', [grouped(1000)], true);
    // A pod pass sees one pod of the known cause, and a cause not seen before.
    const newCause: PassProblem = { owner: web, level: 'warn', event: 'RenderFailed', message: 'pod shop/web-7: node n9 is not known yet', key: 'node' };
    expect(messages(reports.due('entries', [{ ...grouped(1), message: 'pod shop/web-1000: bad' }, newCause], false))).toEqual(['pod shop/web-7: node n9 is not known yet']);
    // Further pod passes add nothing about either.
    expect(reports.due('entries', [{ ...newCause, message: 'pod shop/web-8: node n9 is not known yet' }], false)).toEqual([]);
    expect(messages(reports.due('entries', [grouped(1001), { ...newCause, message: '2 pods: node n9 is not known yet (e.g. ...)' }], true))).toEqual([
      '1001 pods: bad DNS name (e.g. ...)',
      '2 pods: node n9 is not known yet (e.g. ...)',
    ]);
  });

  it('the same key on two objects, or under two Event reasons, are two problems; without a key the message is the key', () => {
    const reports = new ProblemReports(INTERVAL, () => 0);
    const conflict: PassProblem = { ...grouped(5), event: 'EntryConflict' };
    expect(reports.due('entries', [grouped(5), grouped(5, db), conflict], true)).toHaveLength(3);
    const plain = (message: string): PassProblem => ({ level: 'error', message });
    expect(reports.due('federation', [plain('federation relationship a.org: refused')], true)).toHaveLength(1);
    expect(reports.due('federation', [plain('federation relationship a.org: refused')], true)).toEqual([]);
    // Each source is remembered apart: the entries part of a pass does not forget the federation part's.
    expect(reports.due('entries', [], true)).toEqual([]);
    expect(reports.due('federation', [plain('federation relationship a.org: refused')], true)).toEqual([]);
  });
});
