import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LeaderElector } from '../../src/kube/leader.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { eventually } from './world.js';

const log = pino({ level: 'silent' });
const timing = { leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 };

describe('leader election on a Lease, as client-go elects', () => {
  let kube: FakeKubeApiServer;
  const electors: LeaderElector[] = [];
  beforeEach(async () => {
    kube = await FakeKubeApiServer.start();
  });
  afterEach(async () => {
    await Promise.all(electors.splice(0).map((e) => e.stop()));
    await kube.close();
  });

  const elector = (identity: string, events: string[]) => {
    const e = new LeaderElector(
      // A token per candidate, so a fault can cut one of them off.
      { kc: kube.kubeConfig(`${identity}-token`), log, namespace: 'spire-server', name: 'lock', identity, ...timing },
      { onStartedLeading: () => events.push(`${identity} leads`), onStoppedLeading: () => events.push(`${identity} stops`) },
    );
    electors.push(e);
    return e;
  };

  it('elects exactly one of two candidates, and records it in the Lease', async () => {
    const events: string[] = [];
    const a = elector('a', events);
    const b = elector('b', events);
    a.start();
    b.start();
    await eventually(() => a.isLeader || b.isLeader, 'a leader');
    await new Promise((r) => setTimeout(r, 600));
    expect([a.isLeader, b.isLeader].filter(Boolean)).toHaveLength(1);
    const lease = kube.get('coordination.k8s.io/v1', 'Lease', 'lock', 'spire-server') as { spec: { holderIdentity: string; leaseDurationSeconds: number } };
    expect(lease.spec.holderIdentity).toBe(a.isLeader ? 'a' : 'b');
    expect(lease.spec.leaseDurationSeconds).toBe(2);
  });

  it('gives leadership up, aborting its term, when it cannot renew within the renew deadline', async () => {
    const events: string[] = [];
    let term: AbortSignal | undefined;
    const a = new LeaderElector(
      { kc: kube.kubeConfig(), log, namespace: 'spire-server', name: 'lock', identity: 'a', ...timing },
      { onStartedLeading: (s) => (term = s), onStoppedLeading: () => events.push('stopped') },
    );
    electors.push(a);
    a.start();
    await eventually(() => a.isLeader, 'a leads');
    kube.faults.failNext(1000, 500, { pathIncludes: '/leases/' });
    await eventually(() => term?.aborted === true, 'the term is aborted', 10_000);
    expect(a.isLeader).toBe(false);
    expect(events).toEqual(['stopped']);
    expect((term?.reason as Error).message).toBe('leadership lost: failed to renew the lease within the renew deadline');
  });

  it('ends its term the moment a writer asks after the renew deadline, before the deadline timer has run', async () => {
    let clock = Date.now();
    let term: AbortSignal | undefined;
    const a = new LeaderElector(
      { kc: kube.kubeConfig(), log, namespace: 'spire-server', name: 'lock', identity: 'a', ...timing, now: () => clock },
      { onStartedLeading: (s) => (term = s), onStoppedLeading: () => {} },
    );
    electors.push(a);
    a.start();
    await eventually(() => a.isLeader, 'a leads');
    expect(a.holdsLease()).toBe(true);
    // As after SIGSTOP and SIGCONT: the clock has moved past the deadline, no timer has fired yet.
    clock += timing.renewDeadlineMs;
    expect(a.holdsLease()).toBe(false);
    expect(term?.aborted).toBe(true);
    expect(a.isLeader).toBe(false);
  });

  it('gives leadership up at the renew deadline while its renewal hangs, before a standby takes the lease', async () => {
    const events: string[] = [];
    const a = elector('a', events);
    a.start();
    await eventually(() => a.isLeader, 'a leads');
    const b = elector('b', events);
    b.start();
    // The server stops answering a (a request would otherwise wait out its 60 s timeout); b still gets through.
    kube.faults.hangNext(1_000, { pathIncludes: '/leases/', token: 'a-token' });
    await eventually(() => b.isLeader, 'b takes over the lease', 20_000);
    expect(events).toEqual(['a leads', 'a stops', 'b leads']);
    expect(a.isLeader).toBe(false);
    // a gave up without an answer: its last renewal is still open.
    expect(kube.requests.some((r) => r.path.includes('/leases/') && r.status === undefined)).toBe(true);
  });

  it('starts no term when its acquire succeeds after stop(), and releases the lease it won', async () => {
    const events: string[] = [];
    const a = elector('a', events);
    const release = kube.faults.hangNext(1, { method: 'POST', pathIncludes: '/leases' });
    a.start();
    await eventually(() => kube.requests.some((r) => r.method === 'POST' && r.path.includes('/leases')), 'the acquire is in flight');
    const stopping = a.stop();
    release();
    await stopping;
    expect(events).toEqual([]);
    expect(a.isLeader).toBe(false);
    const lease = kube.get('coordination.k8s.io/v1', 'Lease', 'lock', 'spire-server') as { spec: { holderIdentity?: string | null } };
    expect(lease.spec.holderIdentity ?? null).toBeNull();
  });

  it('releases the lease on stop, so a standby takes over without waiting out the lease', async () => {
    const events: string[] = [];
    const a = elector('a', events);
    a.start();
    await eventually(() => a.isLeader, 'a leads');
    await a.stop();
    const lease = kube.get('coordination.k8s.io/v1', 'Lease', 'lock', 'spire-server') as { spec: { holderIdentity?: string | null } };
    expect(lease.spec.holderIdentity ?? null).toBeNull();
    const b = elector('b', events);
    b.start();
    await eventually(() => b.isLeader, 'b leads');
    expect(events).toEqual(['a leads', 'a stops', 'b leads']);
  });
});

describe('stopping does not sit out the retry period', () => {
  it('releases the lease at once, however long the wait between renewals', async () => {
    const kube = await FakeKubeApiServer.start();
    // A 20 s retry period: stop() waiting for the loop's sleep would take seconds.
    const e = new LeaderElector(
      { kc: kube.kubeConfig('a-token'), log, namespace: 'spire-server', name: 'lock', identity: 'a', leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 20_000 },
      { onStartedLeading: () => undefined, onStoppedLeading: () => undefined },
    );
    try {
      e.start();
      await eventually(() => e.isLeader, 'a leads');
      const started = Date.now();
      await e.stop();
      expect(Date.now() - started).toBeLessThan(5_000);
      const lease = kube.get('coordination.k8s.io/v1', 'Lease', 'lock', 'spire-server') as { spec: { holderIdentity?: string | null } };
      expect(lease.spec.holderIdentity ?? null).toBeNull();
    } finally {
      await kube.close();
    }
  });
});
