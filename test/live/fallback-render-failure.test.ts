/**
 * docs/entries.md, "Fallback and render failures": a pod whose entry from a
 * non-fallback ClusterSPIFFEID stops rendering keeps that entry (unknown is
 * not absent) and gets none from a fallback ClusterSPIFFEID beside it, so
 * it never holds two identities; once the render works again, its entry
 * follows the template. Run by the live controller, pod events and full
 * passes alike.
 */
import { afterEach, expect, it } from 'vitest';
import { csid, eventually, node, ns, pod, startWorld, type World } from './world.js';

let w: World;
afterEach(async () => {
  await w?.close();
});

it('a failed render keeps the pod\'s one identity: no fallback entry beside it, and the template takes over again once it renders', { timeout: 60_000 }, async () => {
  w = await startWorld();
  w.kube.create(ns('shop'));
  w.kube.create(node('node-1'));
  w.kube.create(csid('default', { fallback: true, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/default/{{ .PodMeta.Name }}' }));
  w.kube.create(csid('tiered', { podSelector: { matchLabels: { app: 'web' } }, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/tier/{{ .PodMeta.Labels.tier }}' }));
  w.kube.create({ ...pod('shop', 'web', { app: 'web', tier: 'front' }) });
  const live = await w.start();
  const paths = () => w.spire.server.entries.all().map((e) => e.spiffeId.path).sort();
  await eventually(() => paths().join() === '/tier/front', 'the pod has its entry from the non-fallback object only');
  const before = w.spire.server.entries.all()[0]!.id;

  // The label its template reads goes: every render of its entry fails from now on.
  w.kube.patch('v1', 'Pod', 'web', { metadata: { labels: { tier: null } } }, 'shop');
  await new Promise((r) => setTimeout(r, 2_500));
  await live.idle();
  live.trigger();
  await live.idle();
  expect(w.spire.server.entries.all().map((e) => [e.id, e.spiffeId.path])).toEqual([[before, '/tier/front']]);

  w.kube.patch('v1', 'Pod', 'web', { metadata: { labels: { tier: 'back' } } }, 'shop');
  await eventually(() => paths().join() === '/tier/back', "the entry follows the template again, and still no fallback's");
});
