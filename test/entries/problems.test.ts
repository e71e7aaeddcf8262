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

  it('groups identical write failures of one object, a create named by its SPIFFE ID (its ID is new every pass)', () => {
    const o = owner('gw', { kind: 'ClusterStaticEntry' });
    const failures = ['a', 'b'].map((p, i) => ({ op: 'create' as const, id: `scm-${i}`, key: p, spiffeId: `spiffe://example.org/${p}`, owner: o, codeName: 'INVALID_ARGUMENT', message: 'bad' }));
    expect(entryPassProblems({ declared: { renderFailures: [] }, plan: { conflicts: [] }, applied: { failures } }).map((p) => p.message)).toEqual([
      'create of 2 entries (spiffe://example.org/a, spiffe://example.org/b): INVALID_ARGUMENT: bad',
    ]);
  });
});

describe('a write SPIRE refuses is an Event on its object; one that did not reach SPIRE is not', () => {
  const gw = owner('gw', { kind: 'ClusterStaticEntry' });
  const failure = (op: 'create' | 'update' | 'delete', codeName: string, o = gw as typeof gw | undefined) => ({
    op,
    id: 'scm-demo.1',
    key: 'k',
    spiffeId: 'spiffe://example.org/gw',
    ...(o ? { owner: o } : {}),
    codeName,
    message: 'why',
  });
  it.each([
    // op, gRPC code, Event reason
    ['create', 'INTERNAL', 'EntryRefused', 'create entry for spiffe://example.org/gw: INTERNAL: why'],
    ['create', 'INVALID_ARGUMENT', 'EntryRefused', 'create entry for spiffe://example.org/gw: INVALID_ARGUMENT: why'],
    ['create', 'ALREADY_EXISTS', 'EntryRefused', 'create entry for spiffe://example.org/gw: ALREADY_EXISTS: why'],
    ['update', 'NOT_FOUND', 'EntryRefused', 'update entry scm-demo.1: NOT_FOUND: why'],
    ['create', 'UNAVAILABLE', undefined, 'create entry for spiffe://example.org/gw: UNAVAILABLE: why'],
    ['update', 'DEADLINE_EXCEEDED', undefined, 'update entry scm-demo.1: DEADLINE_EXCEEDED: why'],
  ] as const)('%s, %s: event %s', (op, code, event, message) => {
    const [p] = entryPassProblems({ declared: { renderFailures: [] }, plan: { conflicts: [] }, applied: { failures: [failure(op, code)] } });
    expect(p).toEqual({ owner: gw, level: 'error', ...(event ? { event } : {}), message });
  });
});
