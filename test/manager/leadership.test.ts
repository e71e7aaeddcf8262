import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/api/index.js';
import { Leadership } from '../../src/manager/leadership.js';
import { ControllerMetrics } from '../../src/manager/metrics.js';
import { SpireClient } from '../../src/spire/index.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { startTestSpire, type TestSpire } from '../support/spire.js';
import { eventually } from '../live/world.js';

const log = pino({ level: 'silent' });
const leaderGauge = async (m: ControllerMetrics) => /^spire_reconciler_leader (\d)$/m.exec((await m.expose()).body)?.[1];
const entry = { id: 'e1', spiffeId: { trustDomain: 'example.org', path: '/w' }, parentId: { trustDomain: 'example.org', path: '/n' }, selectors: [{ type: 'k8s', value: 'ns:a' }] };

describe('Leadership: who writes', () => {
  let kube: FakeKubeApiServer;
  let spire: TestSpire;
  let client: SpireClient;
  beforeEach(async () => {
    kube = await FakeKubeApiServer.start();
    spire = await startTestSpire();
    client = new SpireClient({ socket: spire.socketPath });
  });
  afterEach(async () => {
    client.close();
    await spire.close();
    await kube.close();
  });

  it('without leader election: one term from the start that never ends, and the leader gauge at 1 once started', async () => {
    const metrics = new ControllerMetrics();
    const l = new Leadership({ config: defaultConfig(), kc: kube.kubeConfig(), log, spire: client, metrics });
    expect(l.term()?.aborted).toBe(false);
    l.start({ onStartedLeading: () => {}, onStoppedLeading: () => {} });
    expect(l.elector).toBeUndefined();
    expect(await leaderGauge(metrics)).toBe('1');
    await l.stop();
    expect(l.term()?.aborted).toBe(false);
  });

  it('with leader election: no term until the Lease is held, writes gated on it, and the term ends when the Lease is released', async () => {
    const config = defaultConfig();
    config.leaderElection = { ...config.leaderElection, leaderElect: true, resourceName: 'lock', resourceNamespace: 'spire-server', leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 };
    const metrics = new ControllerMetrics();
    const started: AbortSignal[] = [];
    let stopped = 0;
    const l = new Leadership({ config, kc: kube.kubeConfig(), log, spire: client, metrics, identity: 'me' });
    expect(l.term()).toBeUndefined();
    l.start({ onStartedLeading: (s) => started.push(s), onStoppedLeading: () => stopped++ });
    await eventually(() => started.length === 1, 'a term');
    expect(l.term()).toBe(started[0]);
    expect(await leaderGauge(metrics)).toBe('1');
    const lease = kube.get('coordination.k8s.io/v1', 'Lease', 'lock', 'spire-server') as { spec: { holderIdentity: string } };
    expect(lease.spec.holderIdentity).toBe('me');
    expect((await client.createEntries([entry])).rpcError).toBeUndefined();
    await l.stop();
    expect(stopped).toBe(1);
    expect(started[0]!.aborted).toBe(true);
    expect(l.term()).toBeUndefined();
    expect(await leaderGauge(metrics)).toBe('0');
    // Out of term, no write batch is sent.
    const refused = await client.createEntries([{ ...entry, id: 'e2' }]);
    expect(JSON.stringify(refused.results)).toContain('does not hold the lease');
  });
});
