import { describe, expect, it } from 'vitest';
import { entryPassProblems, type RenderFailure } from '../../src/entries/index.js';
import { owner } from './fixtures.js';

describe('a pass reports each failure of one object once, however many pods or entries it hits', () => {
  it('groups 1,000 identical render failures of one object into one line, and keeps distinct ones apart', () => {
    const broken = owner('broken');
    const failures: RenderFailure[] = Array.from({ length: 1000 }, (_, i) => ({ owner: broken, pod: `team-a/p-${i}`, message: 'node node-9 is not known yet' }));
    failures.push({ owner: broken, pod: 'team-a/odd', message: 'failed to render SPIFFE ID: boom' }, { owner: owner('other'), pod: 'team-a/p-0', message: 'node node-9 is not known yet' });
    const problems = entryPassProblems({ declared: { renderFailures: failures }, plan: { conflicts: [] } });
    expect(problems.map((p) => [p.owner?.name, p.event, p.message])).toEqual([
      ['broken', 'RenderFailed', '1000 pods (team-a/p-0, team-a/p-1, team-a/p-10 and 997 more): node node-9 is not known yet'],
      ['broken', 'RenderFailed', 'pod team-a/odd: failed to render SPIFFE ID: boom'],
      ['other', 'RenderFailed', 'pod team-a/p-0: node node-9 is not known yet'],
    ]);
  });

  it('groups identical write failures of one object', () => {
    const o = owner('gw', { kind: 'ClusterStaticEntry' });
    const failures = ['scm-1', 'scm-2'].map((id) => ({ op: 'create' as const, id, key: id, owner: o, codeName: 'INVALID_ARGUMENT', message: 'bad' }));
    expect(entryPassProblems({ declared: { renderFailures: [] }, plan: { conflicts: [] }, applied: { failures } }).map((p) => p.message)).toEqual([
      'create of 2 entries (scm-1, scm-2): INVALID_ARGUMENT: bad',
    ]);
  });
});
