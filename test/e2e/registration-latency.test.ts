/**
 * The registration-latency SLO on a real node: our image in the SPIRE
 * server's pod as the helm chart shapes it, pods created on the node's
 * kubelet, and the controller's histogram (spire_reconciler_registration_seconds,
 * read from its metrics port) against the lane's own timing of the same pods:
 * from before each create request to the first poll (every 50 ms) of the
 * SPIRE server's entries that shows the pod's entry, as bench:svid times
 * "entry on the server". What must hold, and why, is in
 * registration-compare.ts; the figures are printed.
 *
 * Needs what `npm run test:e2e` needs; skipped, loudly, where a node cannot run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpireClient } from '../../src/spire/index.js';
import { httpGet } from '../support/cli.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { nodeUnavailable, type RealNode, startNode } from '../support/real-node/node.js';
import { chartCsid } from '../real/chart.js';
import { eventually, objects } from '../real/world.js';
import { compareWithLane, pollEntryTimes, registrationTotals } from './registration-compare.js';
import { adminSocket, type Deployment, imagesMissing, prepareDeployment, versionsLine, workloadNamespace, workloadPod } from './world.js';

const skip = nodeUnavailable() ?? imagesMissing();
if (skip) console.warn(`test:e2e: SKIPPED: ${skip}`);

const NS = 'timed';
const PODS = 10;

describe.skipIf(!!skip)("registration latency: the controller's histogram against the lane's timing of the same pods", () => {
  let plane: ControlPlane;
  let node: RealNode;
  let dep: Deployment;
  let spire: SpireClient;
  let o: ReturnType<typeof objects>;
  const metric = async (re: RegExp) => Number(re.exec((await httpGet(dep.metricsUrl)).body)?.[1] ?? NaN);

  beforeAll(async () => {
    plane = await startControlPlane();
    node = await startNode(plane);
    console.log(`test:e2e: ${versionsLine(plane, node)}`);
    o = objects(plane);
    dep = await prepareDeployment(plane, node);
    await workloadNamespace(plane, NS, 'timed');
    await o.create(chartCsid('timed', { podSelector: { matchLabels: { app: 'timed' } }, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/pod/{{ .PodMeta.Name }}' }));
    await dep.deploy('ours');
    spire = new SpireClient({ socket: adminSocket(node) });
  }, 900_000);

  afterAll(async () => {
    spire?.close();
    await node?.stop();
    await plane?.stop();
  });

  it(`${PODS} pods created at once: the histogram timed each, within the lane's figures`, async () => {
    // Leading, and past its first full pass: the pods below arrive as watch events.
    await eventually(async () => (await metric(/^spire_reconciler_leader (\S+)$/m)) === 1 && (await metric(/^spire_reconciler_pass_seconds_count (\S+)$/m)) >= 1, 'ours leads and has passed once', 120_000);
    const before = await registrationTotals(dep.metricsUrl);
    expect(before.count).toBe(0);

    const names = Array.from({ length: PODS }, (_, i) => `timed-${i}`);
    const created = new Map<string, number>();
    const { entryAt, stop: stopPolling } = pollEntryTimes(spire, created);
    for (const name of names) {
      created.set(name, Date.now());
      await o.create(workloadPod(node, NS, name, { app: 'timed' }, 'timed'));
    }
    await eventually(() => names.every((n) => entryAt.has(n)), 'every pod has its entry on the server', 60_000);
    await stopPolling();

    let after = before;
    await eventually(async () => (after = await registrationTotals(dep.metricsUrl)).count - before.count >= PODS, 'the histogram timed every pod', 30_000);
    const lane = names.map((n) => entryAt.get(n)! - created.get(n)!);
    const { line, problems } = compareWithLane(before, after, lane);
    console.log(`test:e2e: ${line}`);
    expect(problems).toEqual([]);
    // Nothing waits once every entry is there.
    expect(await metric(/^spire_reconciler_registrations_pending (\S+)$/m)).toBe(0);
  });
});
