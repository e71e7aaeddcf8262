/**
 * A controller config with no optional block, in the SPIRE server's pod: the
 * SPIRE server holds the chart's ports in the pod's network namespace (its
 * agents' port 0.0.0.0:8081 and its health checks on 0.0.0.0:8080), and the
 * controller's defaults must take neither. Upstream serves no probes without a
 * `health` block; ours once listened on :8081 there and exited at start with
 * "address already in use" (or, first to bind, kept the SPIRE server from
 * starting). Asserted on what the pod's containers do and on the SVID a
 * workload holds; the webhook answers on its default port, 9443.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpireClient } from '../../src/spire/index.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { nodeUnavailable, type RealNode, startNode } from '../support/real-node/node.js';
import { chartCsid } from '../real/chart.js';
import { eventually, objects } from '../real/world.js';
import { adminSocket, CHART_DEFAULT_PORTS, CONTROLLER, type Deployment, held, imagesMissing, podLogs, prepareDeployment, SERVER_NS, SERVER_POD, TD, versionsLine, workloadNamespace, workloadPod } from './world.js';

const skip = nodeUnavailable() ?? imagesMissing();
if (skip) console.warn(`test:e2e: SKIPPED: ${skip}`);

const NS = 'plain';

/** Rejects, naming the port, when another process of this machine holds it: the pods here share the node's network. */
function mustBeFree(port: number): Promise<void> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new Error(`port ${port} is held on this machine (${err.code}); this lane needs it free, as the chart's pod has it`)));
    server.listen({ port, host: '0.0.0.0' }, () => server.close(() => resolve()));
  });
}

describe.skipIf(!!skip)('a controller config with no optional block, beside the SPIRE server on its own ports', () => {
  let plane: ControlPlane;
  let node: RealNode;
  let dep: Deployment;
  let spire: SpireClient;

  beforeAll(async () => {
    for (const port of Object.values(CHART_DEFAULT_PORTS)) await mustBeFree(port);
    plane = await startControlPlane();
    node = await startNode(plane);
    console.log(`test:e2e: ${versionsLine(plane, node)}`);
    const o = objects(plane);
    dep = await prepareDeployment(plane, node, { chartDefaults: true });
    await workloadNamespace(plane, NS);
    await o.create(chartCsid('plain', { podSelector: { matchLabels: { app: 'plain' } }, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/{{ .PodMeta.Name }}' }));
    await o.create(workloadPod(node, NS, 'plain-0', { app: 'plain' }));
    await dep.deploy('ours');
    spire = new SpireClient({ socket: adminSocket(node) });
  }, 900_000);

  afterAll(async () => {
    spire?.close();
    await node?.stop();
    await plane?.stop();
  });

  it('starts, takes neither of the SPIRE server’s ports, and a workload holds the SVID its ClusterSPIFFEID names', async () => {
    await eventually(() => held(node, NS, 'plain-0')?.svid?.uri === `spiffe://${TD}/ns/${NS}/plain-0`, `plain-0 holds its SVID (holds ${JSON.stringify(held(node, NS, 'plain-0'))})`, 90_000);
    // The agent attested through 8081 and the kubelet's probes of the SPIRE server reach 8080: both are the server's.
    expect(await dep.serverReady()).toBe(true);
    const status = await dep.containerStatus(CONTROLLER);
    expect(status, podLogs(node, SERVER_NS, SERVER_POD)).toMatchObject({ ready: true, restartCount: 0 });
    expect(podLogs(node, SERVER_NS, SERVER_POD, 400)).not.toMatch(/address already in use|EADDRINUSE/i);
    expect((await spire.listEntries()).map((e) => e.spiffe_id?.path)).toContain(`/ns/${NS}/plain-0`);
  });

  it('serves its webhook on the default port: kube-apiserver reaches it and an invalid ClusterSPIFFEID is denied', async () => {
    const o = objects(plane);
    const denied = await o.create(chartCsid('bad', { spiffeIDTemplate: 'spiffe:/{{ .TrustDomain }}/x' })).then(
      () => 'admitted',
      (err: unknown) => (err as Error).message,
    );
    expect(denied).toMatch(/denied the request: ClusterSPIFFEID bad: spec\.spiffeIDTemplate/);
  });
});
