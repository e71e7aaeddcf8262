/**
 * A pod not scheduled yet (no spec.nodeName), as spire-controller-manager
 * v0.8.0 treats it (its pull request #741) and ours always has: no entry, no
 * render failure in the ClusterSPIFFEID's status, no log line pass after
 * pass; counted as selected; and its entry written once it is scheduled.
 */
import { afterEach, expect, it } from 'vitest';
import { csid, eventually, memoryLog, node, ns, pod, startWorld, type World } from './world.js';

let w: World;
afterEach(async () => {
  await w?.close();
});

it('an unscheduled pod: no entry, no failure counted or logged, pass after pass; its entry once scheduled', { timeout: 60_000 }, async () => {
  w = await startWorld();
  w.kube.create(ns('shop'));
  w.kube.create(node('node-1'));
  w.kube.create(csid('web', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/{{ .PodMeta.Name }}' }));
  const pending = pod('shop', 'pending') as { spec: Record<string, unknown> };
  delete pending.spec.nodeName;
  w.kube.create({ ...pending, status: { phase: 'Pending' } });
  w.kube.create(pod('shop', 'running'));
  const { log, lines } = memoryLog('debug');
  const live = await w.start({ log });
  const paths = () => w.spire.server.entries.all().map((e) => e.spiffeId.path).sort();
  const stats = () => (w.kube.get('spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID', 'web') as { status?: { stats?: Record<string, number> } }).status?.stats;

  await eventually(() => paths().join() === '/ns/shop/running', 'the scheduled pod has its entry');
  for (let i = 0; i < 3; i++) {
    live.trigger();
    await live.idle();
  }
  await live.statusWritesIdle();
  expect(paths()).toEqual(['/ns/shop/running']);
  expect(stats()).toMatchObject({ podsSelected: 2, podEntryRenderFailures: 0 });
  expect(lines.filter((l) => /pending/.test(JSON.stringify(l)))).toEqual([]);

  w.kube.patch('v1', 'Pod', 'pending', { spec: { nodeName: 'node-1' } }, 'shop');
  await eventually(() => paths().includes('/ns/shop/pending'), 'once scheduled, it gets its entry');
});
