import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_GENERATED_ID } from '../../src/entries/index.js';
import { csid, eventually, node, ns, pod, startWorld, type World } from './world.js';

/** A logger whose warnings a test can read. */
function capture(): { log: pino.Logger; warnings: string[] } {
  const warnings: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
  return { log, warnings };
}

const gateway = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', metadata: { name: 'gateway' }, spec: { spiffeID: '/gateway', parentID: '/spire/server', selectors: ['k8s_psat:cluster:demo'] } };

describe('against a SPIRE server older than 1.8.0, which ignores requested entry IDs', () => {
  let w: World;
  const paths = () => w.spire.server.entries.all().map((e) => e.spiffeId.path).sort();

  afterEach(async () => {
    await w.close();
  });

  it('notices it once, names the release that fixes it, and leaks no entry as pods come and go', async () => {
    w = await startWorld({ gcIntervalMs: 300 }, { ignoreRequestedEntryIds: true });
    w.kube.create(ns('default'));
    w.kube.create(node('node-1'));
    w.kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
    w.kube.create(gateway);
    const { log, warnings } = capture();
    const live = await w.start({ log });

    for (let round = 0; round < 4; round++) {
      if (round > 0) w.kube.delete('v1', 'Pod', `p-${round - 1}`, 'default');
      w.kube.create(pod('default', `p-${round}`));
      await eventually(() => JSON.stringify(paths()) === JSON.stringify(['/gateway', `/pod/p-${round}`]), `round ${round}: exactly the live pod's entry and the gateway`);
    }
    // Full passes with nothing changing find nothing to clean and create nothing twice.
    const passes = live.passes();
    await eventually(() => live.passes() >= passes + 3, 'more full passes');
    expect(paths()).toEqual(['/gateway', '/pod/p-3']);
    // The server chose every ID.
    for (const e of w.spire.server.entries.all()) expect(e.id).toMatch(SERVER_GENERATED_ID);

    // A static entry the controller created under the server's ID is still deleted with its object.
    w.kube.delete('spire.spiffe.io/v1alpha1', 'ClusterStaticEntry', 'gateway');
    await eventually(() => JSON.stringify(paths()) === JSON.stringify(['/pod/p-3']), "the gateway's entry is gone");

    const reported = warnings.filter((m) => m.includes('ignores requested entry IDs'));
    expect(reported).toHaveLength(1);
    expect(reported[0]).toContain('older than 1.8.0');
    // The probe entry went too: it is deleted by the ID the server gave it.
    expect(paths().some((p) => p.includes('probe'))).toBe(false);
  });

  it('after a restart, still deletes the entries of pods that went while it was down', async () => {
    w = await startWorld({ gcIntervalMs: 300 }, { ignoreRequestedEntryIds: true });
    w.kube.create(ns('default'));
    w.kube.create(node('node-1'));
    w.kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
    w.kube.create(pod('default', 'a'));
    w.kube.create(pod('default', 'b'));
    await w.start();
    await eventually(() => paths().length === 2, 'both entries');
    const first = w.controllers.pop()!;
    first.stop.abort();
    await first.live.done;

    // Gone while no controller ran: nothing in this process remembers creating its entry.
    w.kube.delete('v1', 'Pod', 'a', 'default');
    await w.start();
    await eventually(() => JSON.stringify(paths()) === JSON.stringify(['/pod/b']), "a's entry is deleted, b's kept");
  });
});
