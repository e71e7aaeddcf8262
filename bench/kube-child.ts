/**
 * Child process: the in-process Kubernetes API server, filled with the
 * synthetic cluster, so its CPU and memory are not counted as the
 * controller's. Creates more pods on request, at a given rate, and reports
 * when it created each (the moment its watch event is sent).
 */
import { FakeKubeApiServer } from '../test/support/kube/index.js';
import { podAt, syntheticCluster } from './cluster.js';
import { servePodCreates } from './pod-events.js';

const pods = Number(process.argv[2]);
const kubeconfig = process.argv[3] as string;
const cluster = syntheticCluster(pods);
const nsCount = cluster.namespaces.length;
const nodeCount = cluster.nodes.length;

// Idle connections kept 90 s, as kube-apiserver keeps them: a bare client holding 300,000 listed pods can pause
// for seconds in a collection between two pages, and lost the connection to Node's 5 s default.
const kube = await FakeKubeApiServer.start({ eventHistory: 50_000, bookmarkIntervalMs: 5_000, keepAliveTimeoutMs: 90_000 });
for (const o of [...cluster.namespaces, ...cluster.nodes, ...cluster.clusterSPIFFEIDs, ...cluster.pods]) kube.create(o as never);
kube.writeKubeconfig(kubeconfig);
process.send?.({ type: 'ready' });

process.on('message', (msg: { type: string }) => {
  if (msg.type === 'statuses') {
    // What each controller wrote back, for the side-by-side comparison (--peer).
    const statuses = Object.fromEntries(kube.list('spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID').map((o) => [o.metadata?.name, (o as { status?: unknown }).status ?? null]));
    // The API server chose the UIDs, so entries from two runs compare by object name instead.
    const names: Record<string, string> = {};
    for (const o of kube.list('v1', 'Node')) names[o.metadata?.uid ?? ''] = `node/${o.metadata?.name}`;
    for (const o of kube.list('v1', 'Pod')) names[o.metadata?.uid ?? ''] = `pod/${o.metadata?.namespace}/${o.metadata?.name}`;
    process.send?.({ type: 'statuses', statuses, names });
  }
});
servePodCreates((i) => (kube.create(podAt(i, nsCount, nodeCount) as never) as { metadata: { uid: string } }).metadata.uid);
