/**
 * Pods for the real node's measurements that no kubelet runs: bound to a node
 * object `ghost` with no kubelet behind it, each selected by a ClusterSPIFFEID
 * of the chart's class, so every one gets an entry on the SPIRE server and
 * none costs the node a container.
 */
import { KubeApiError } from '../../src/kube/rest.js';
import type { SpireClient } from '../../src/spire/index.js';
import type { ControlPlane } from '../support/real-k8s/index.js';
import { chartCsid } from '../real/chart.js';
import { objects } from '../real/world.js';

export const GHOSTS = 'ghosts';

/** The ghost node, its namespace and the ClusterSPIFFEID that selects its pods. */
export async function prepareGhosts(plane: ControlPlane): Promise<void> {
  await objects(plane).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'ghost' }, spec: {} });
  await plane.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: GHOSTS } });
  await objects(plane).create(chartCsid('ghosts', { podSelector: { matchLabels: { app: 'ghost' } }, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/pod/{{ .PodMeta.Name }}' }));
}

/** Creates pods up to `count` in the ghosts namespace, bound to the node no kubelet runs, 32 requests at a time. */
export async function createGhostPods(plane: ControlPlane, from: number, count: number): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const body = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `ghost-${i}`, namespace: GHOSTS, labels: { app: 'ghost' } },
        spec: { nodeName: 'ghost', containers: [{ name: 'c', image: 'localhost/none:never' }] },
      };
      await plane.request('POST', `/api/v1/namespaces/${GHOSTS}/pods`, { body }).catch((err: unknown) => {
        if (!(err instanceof KubeApiError && err.statusCode === 409)) throw err;
      });
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

/** Every one of `count` ghost pods has its entry on the SPIRE server. */
export async function registered(spire: SpireClient, count: number): Promise<boolean> {
  let n = 0;
  for await (const page of spire.entryPages()) n += page.filter((e) => e.spiffe_id?.path?.startsWith(`/ns/${GHOSTS}/pod/`)).length;
  return n >= count;
}
