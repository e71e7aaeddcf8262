/**
 * Child process for `npm run bench -- --apiserver real`: a real kube-apiserver
 * and etcd (test/support/real-k8s/, built by `npm run real:build`), filled
 * with the synthetic cluster, in place of the in-process fake
 * (kube-child.ts). Speaks the same messages: `ready` once the cluster is
 * loaded and the kubeconfig written, then pods created on request at a given
 * rate, each reported with the moment the API server answered its create
 * (the object is stored, and its watch event on its way).
 *
 * The objects are created as the admin (RBAC does not apply), many at a time:
 * one by one, 100,000 pods would take most of an hour.
 */
import { performance } from 'node:perf_hooks';
import { startControlPlane } from '../test/support/real-k8s/index.js';
import { podAt, syntheticCluster } from './cluster.js';
import { servePodCreates } from './pod-events.js';

const pods = Number(process.argv[2]);
const kubeconfig = process.argv[3] as string;
/** Creates in flight at once while loading. */
const CONCURRENCY = 48;

const plane = await startControlPlane({
  // Loading sends thousands of creates at once; the defaults (400/200) would throttle with 429s.
  apiServerFlags: ['--max-requests-inflight=1000', '--max-mutating-requests-inflight=1000'],
});
process.once('disconnect', () => void plane.stop().then(() => process.exit(0)));
const cluster = syntheticCluster(pods);
const nsCount = cluster.namespaces.length;
const nodeCount = cluster.nodes.length;

/** Strips what the API server sets itself (the fake takes them, the real one refuses status on create). */
function forCreate(o: object): object {
  const { status: _status, ...rest } = o as { status?: unknown };
  return rest;
}

async function createAll(objects: readonly object[], what: string): Promise<void> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < objects.length) {
      const obj = objects[next++]!;
      await plane.apply(forCreate(obj));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, objects.length) }, worker));
  console.error(`  real API server: ${objects.length} ${what} created in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await createAll(cluster.namespaces, 'namespaces');
await createAll(cluster.nodes, 'nodes');
await createAll(cluster.clusterSPIFFEIDs, 'ClusterSPIFFEIDs');
await createAll(cluster.pods, 'pods');
plane.writeKubeconfig(kubeconfig, plane.admin);
console.error(`  real API server: kube-apiserver ${plane.versions.kubernetes}, etcd ${plane.versions.etcd}`);
process.send?.({ type: 'ready' });

process.on('message', (msg: { type: string }) => {
  if (msg.type !== 'statuses') return;
  // As kube-child.ts answers it: each ClusterSPIFFEID's status, and the objects' names by UID.
  void (async () => {
    type Item = { metadata: { name: string; namespace?: string; uid: string }; status?: unknown };
    const list = async (path: string) => (await plane.request<{ items: Item[] }>('GET', path)).items;
    const statuses = Object.fromEntries((await list('/apis/spire.spiffe.io/v1alpha1/clusterspiffeids')).map((o) => [o.metadata.name, o.status ?? null]));
    const names: Record<string, string> = {};
    for (const o of await list('/api/v1/nodes')) names[o.metadata.uid] = `node/${o.metadata.name}`;
    for (const o of await list('/api/v1/pods')) names[o.metadata.uid] = `pod/${o.metadata.namespace}/${o.metadata.name}`;
    process.send?.({ type: 'statuses', statuses, names });
  })();
});
servePodCreates(async (i) => (await plane.apply<{ metadata: { uid: string } }>(forCreate(podAt(i, nsCount, nodeCount)))).metadata.uid);
