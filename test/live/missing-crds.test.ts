/**
 * A cluster without the ClusterSPIFFEID CRD (the fake API server answers its
 * list 404, as kube-apiserver does): the pods' entries are unknown, not
 * absent, so none is deleted, by a full pass or a pod pass, while
 * ClusterStaticEntries reconcile and the missing CRD is said once. The case
 * of the other two CRDs missing, and of a CRD installed later, runs on a real
 * kube-apiserver: test/real/missing-crds.test.ts.
 */
import { afterEach, expect, it } from 'vitest';
import { SpireClient } from '../../src/spire/index.js';
import { DEFAULT_CRD_FILES } from '../support/kube/resources.js';
import { eventually, memoryLog, node, ns, pod, startWorld, TD, type World } from './world.js';

let w: World;
afterEach(async () => {
  await w?.close();
});

it('without the ClusterSPIFFEID CRD: pod entries stay through pod events and passes, static entries reconcile, one line says it', { timeout: 60_000 }, async () => {
  w = await startWorld({}, {}, { crds: DEFAULT_CRD_FILES.filter((f) => !f.endsWith('clusterspiffeids.yaml')) });
  w.kube.create(ns('shop'));
  w.kube.create(node('node-1'));
  const web = w.kube.create(pod('shop', 'web')) as { metadata: { uid: string } };
  // The entry a ClusterSPIFFEID of this controller gave the pod before the CRD went missing.
  const admin = new SpireClient({ socket: w.spire.socketPath });
  const podEntryId = 'scm-demo.00000000-0000-4000-8000-0000000000aa';
  await admin.createEntries([
    { id: podEntryId, spiffe_id: { trust_domain: TD, path: '/ns/shop/sa/web' }, parent_id: { trust_domain: TD, path: '/spire/agent/k8s_psat/demo/node-1' }, selectors: [{ type: 'k8s', value: `pod-uid:${web.metadata.uid}` }] },
  ]);
  admin.close();
  const { log, lines } = memoryLog();
  await w.start({ log });

  w.kube.create({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', metadata: { name: 'db' }, spec: { spiffeID: `spiffe://${TD}/db`, parentID: `spiffe://${TD}/spire/server`, selectors: ['unix:uid:1000'] } });
  await eventually(() => w.spire.server.entries.all().some((e) => e.spiffeId.path === '/db'), "the ClusterStaticEntry's entry is written");
  // A pod event: the pod lane plans this pod's entries, which are unknown.
  w.kube.patch('v1', 'Pod', 'web', { metadata: { labels: { app: 'web', changed: 'yes' } } }, 'shop');
  w.kube.create(pod('shop', 'api'));
  // The pod passes, the follow-up full pass 2 s after pod events, and one more asked for.
  const live = w.controllers[0]!.live;
  await new Promise((r) => setTimeout(r, 2_500));
  await live.idle();
  live.trigger();
  await live.idle();
  expect(w.spire.server.entries.all().map((e) => e.id)).toContain(podEntryId);
  const about = lines.filter((l) => /the ClusterSPIFFEID CRD is not installed/.test(l.msg));
  expect(about).toHaveLength(1);
  expect(about[0]!.msg).toContain('kubectl apply -f crds/spire.spiffe.io_clusterspiffeids.yaml');
});
