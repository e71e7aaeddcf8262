/**
 * The controller against a real SPIRE server older than 1.8.0, which stores
 * entries under IDs of its own whatever a create asks for: what the
 * in-memory server's ignoreRequestedEntryIds stands for, checked against the
 * real thing. The probe must notice it, and the controller, unable to tell
 * its entries by their IDs, must still leak none as pods come and go.
 * Runs when the old server is installed (`npm run real-spire:install --
 * --old`, which `npm run test:real-spire` does where go is on PATH).
 */
import { existsSync } from 'node:fs';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { probeSpireServer, SERVER_GENERATED_ID } from '../../src/entries/index.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { emptySpire, oldSpireServerBinary } from '../support/real-spire.js';
import { csid, eventually, node, ns, pod } from '../live/world.js';
import { realSpireConfig, type RunningController, startController, stopControllers, TD, useRealSpire } from './world.js';

const binary = oldSpireServerBinary();

describe.runIf(existsSync(binary))(`a real SPIRE server older than 1.8.0 (${binary})`, () => {
  const spire = useRealSpire({ binary });
  const running: RunningController[] = [];
  let kube: FakeKubeApiServer | undefined;
  afterAll(async () => {
    await stopControllers(running);
    await kube?.close();
  });

  const paths = async () => (await spire.current.client.listEntries()).map((e) => e.spiffe_id!.path!).sort();

  /** A controller whose warnings the test reads; full passes every 500 ms. */
  async function start(k: FakeKubeApiServer): Promise<RunningController & { warnings: string[] }> {
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
    const r = { ...(await startController(k, realSpireConfig(spire.current, { gcIntervalMs: 500 }), log)), warnings };
    running.push(r);
    return r;
  }

  it('answers a create with an ID of its own, which the probe reports, and removes', async () => {
    const traits = await probeSpireServer(spire.current.client, TD, 'demo.');
    expect(traits.ignoresEntryIds).toBe(true);
    // It stores every optional field the controller writes (hint, jwt_svid_ttl, store_svid).
    expect([...traits.unsupported]).toEqual([]);
    expect(await spire.current.client.listEntries()).toEqual([]);
  });

  it('the controller says so once, names the release that fixes it, and leaks no entry as pods come and go', { timeout: 120_000 }, async () => {
    kube = await FakeKubeApiServer.start();
    kube.create(ns('default'));
    kube.create(node('node-1'));
    kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
    kube.create({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', metadata: { name: 'gateway' }, spec: { spiffeID: '/gateway', parentID: '/spire/server', selectors: ['k8s_psat:cluster:demo'] } });
    const { live, warnings } = await start(kube);
    for (let round = 0; round < 4; round++) {
      if (round > 0) kube.delete('v1', 'Pod', `p-${round - 1}`, 'default');
      kube.create(pod('default', `p-${round}`));
      const want = JSON.stringify(['/gateway', `/pod/p-${round}`]);
      await eventually(async () => JSON.stringify(await paths()) === want, `round ${round}: exactly the live pod's entry and the gateway`, 30_000);
    }
    // Full passes with nothing changing find nothing to clean and create nothing twice.
    const passes = live.passes();
    await eventually(() => live.passes() >= passes + 3, 'more full passes', 30_000);
    expect(await paths()).toEqual(['/gateway', '/pod/p-3']);
    for (const e of await spire.current.client.listEntries()) expect(e.id).toMatch(SERVER_GENERATED_ID);

    // A static entry made under the server's ID is still deleted with its object.
    kube.delete('spire.spiffe.io/v1alpha1', 'ClusterStaticEntry', 'gateway');
    await eventually(async () => JSON.stringify(await paths()) === JSON.stringify(['/pod/p-3']), "the gateway's entry is gone", 30_000);

    const reported = warnings.filter((m) => m.includes('ignores requested entry IDs'));
    expect(reported).toHaveLength(1);
    expect(reported[0]).toContain('older than 1.8.0');
  });

  it('after a restart, still deletes the entries of pods that went while it was down', { timeout: 120_000 }, async () => {
    // The previous test's controller goes first: it must not act on this test's entries.
    await stopControllers(running.splice(0));
    await emptySpire(spire.current.raw);
    await kube?.close();
    kube = await FakeKubeApiServer.start();
    kube.create(ns('default'));
    kube.create(node('node-1'));
    kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
    kube.create(pod('default', 'a'));
    kube.create(pod('default', 'b'));
    const first = await start(kube);
    await eventually(async () => (await paths()).length === 2, 'both entries', 30_000);
    await stopControllers([first]);

    // Gone while no controller ran: nothing in the next process remembers creating its entry, and its ID is SPIRE's.
    kube.delete('v1', 'Pod', 'a', 'default');
    await start(kube);
    await eventually(async () => JSON.stringify(await paths()) === JSON.stringify(['/pod/b']), "a's entry is deleted, b's kept", 30_000);
  });
});
