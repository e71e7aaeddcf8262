import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitCode, spawnCli, waitForOutput } from '../support/cli.js';
import { csid, eventually, leaderElectionFiles, node, ns, pod, startWorld, type World } from './world.js';

// Short lease times so a failover takes seconds; the ordering leaseDuration > renewDeadline > 1.2 * retryPeriod holds.
const LEASE = { leaseDuration: '3s', renewDeadline: '2s', retryPeriod: '500ms' };

describe('two replicas: only the leader writes, and a standby takes over when it dies', () => {
  let w: World;
  let replicas: ReturnType<typeof spawnCli>[] = [];
  beforeEach(async () => {
    w = await startWorld();
    w.kube.create(ns('default'));
    w.kube.create(node('node-1'));
    w.kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
  });
  afterEach(async () => {
    for (const r of replicas) r.kill('SIGKILL');
    replicas = [];
    await w.close();
  });

  it('fails over within the lease duration, writing nothing twice and losing nothing', async () => {
    const { kubeconfig, config } = leaderElectionFiles(w, LEASE);
    const start = () => spawnCli(['run', '--config', config], { env: { KUBECONFIG: kubeconfig } });
    replicas = [start(), start()];
    await Promise.all(replicas.map((r) => waitForOutput(r, /live mode started/)));
    await eventually(() => replicas.some((r) => r.output().includes('became leader')), 'a leader is elected');
    const leader = replicas.find((r) => r.output().includes('became leader'))!;
    const standby = replicas.find((r) => r !== leader)!;

    w.kube.create(pod('default', 'a'));
    await eventually(() => w.spire.server.entries.all().some((e) => e.spiffeId.path === '/pod/a'), 'the leader wrote the first entry');
    const idOfA = w.spire.server.entries.all().find((e) => e.spiffeId.path === '/pod/a')!.id;

    leader.kill('SIGKILL'); // a crash: the lease is not released
    const killedAt = Date.now();
    w.kube.create(pod('default', 'b')); // made while nobody leads
    await waitForOutput(standby, /became leader/, 20_000);
    const takeover = Date.now() - killedAt;
    // By path, not by count: the new leader's unsupported-field probe entry exists for a moment too.
    const paths = () => w.spire.server.entries.all().map((e) => e.spiffeId.path).sort();
    await eventually(() => paths().join() === '/pod/a,/pod/b', 'the new leader wrote the entry made during the failover');

    // A correctness bound (the standby must wait out the dead leader's lease), not a speed target.
    expect(takeover).toBeLessThan(3_000 + 8_000);
    expect(paths()).toEqual(['/pod/a', '/pod/b']);
    // a's entry is the one the first leader wrote: the new leader's create-only pass for the pods it
    // saw change while standing by (a and b) may ask for it again, and SPIRE answers that it holds it.
    expect(w.spire.server.entries.all().find((e) => e.spiffeId.path === '/pod/a')!.id).toBe(idOfA);
    const sent = w.spire.server.calls.filter((c) => c.method === 'BatchCreateEntry').reduce((n, c) => n + c.items, 0);
    // Each pod's entry asked for by each leader at most, and the unsupported-field probes, one per leader.
    expect(sent).toBeLessThanOrEqual(1 + 2 + 2);
    expect(standby.output()).not.toMatch(/"level":50/);

    standby.kill('SIGTERM');
    expect(await exitCode(standby)).toBe(0);
    const lease = w.kube.get('coordination.k8s.io/v1', 'Lease', 'spire-reconciler-test', 'spire-server') as { spec: { holderIdentity?: string | null } };
    expect(lease.spec.holderIdentity ?? null).toBeNull();
  });
});
