/**
 * The whole path a user runs, every program real: our image in the SPIRE
 * server's pod beside spire-server, a SPIRE agent attesting pods through a real
 * kubelet, and workloads holding the X.509 SVIDs their ClusterSPIFFEIDs name.
 * Every scenario is asserted on the certificate a workload holds (its URI SAN
 * and DNS SANs), and on the SPIRE server's entries read over its admin socket.
 *
 * In order, on one node: spire-controller-manager registers two workloads;
 * its image is swapped for ours in the same pod (no entry written, every
 * workload keeps its SVID); a new pod gets its identity; a relabelled pod gets
 * the other ClusterSPIFFEID's; a deleted ClusterSPIFFEID takes its identity
 * away; a deleted pod's entry goes; our container killed is restarted by the
 * kubelet and writes nothing; the webhook denies an invalid ClusterSPIFFEID;
 * and the image swapped back to the peer writes nothing either.
 *
 * Needs root, containerd, runc, the kubelet and the images: `npm run test:e2e`
 * builds what is missing and skips, loudly, where the machine cannot run a node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EntryOut, SpireClient } from '../../src/spire/index.js';
import { httpGet } from '../support/cli.js';
import { KubeApiError } from '../../src/kube/rest.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { nodeUnavailable, type RealNode, startNode } from '../support/real-node/node.js';
import { chartCsid } from '../real/chart.js';
import { eventually, objects } from '../real/world.js';
import { adminSocket, CONTROLLER, type Deployment, held, imagesMissing, prepareDeployment, TD, versionsLine, workloadNamespace, workloadPod } from './world.js';

const skip = nodeUnavailable() ?? imagesMissing();
if (skip) console.warn(`test:e2e: SKIPPED: ${skip}`);

const NS = 'shop';
const WEB_ID = (sa: string, name: string) => `spiffe://${TD}/ns/${NS}/sa/${sa}/web/${name}`;
const API_ID = (sa: string) => `spiffe://${TD}/ns/${NS}/sa/${sa}/api`;

describe.skipIf(!!skip)('the whole path on a real node: image, kubelet, SPIRE server and agent, workloads holding SVIDs', () => {
  let plane: ControlPlane;
  let node: RealNode;
  let dep: Deployment;
  let spire: SpireClient;
  let o: ReturnType<typeof objects>;

  const pod = (name: string, app: string) => workloadPod(node, NS, name, { app }, 'web');
  const holds = (name: string) => held(node, NS, name);
  const entries = async (): Promise<EntryOut[]> => (await spire.listEntries()).filter((e) => !e.spiffe_id?.path?.includes('unsupported-fields-probe'));
  /** Every entry's ID and revision: what a controller that writes nothing leaves as it was. */
  const snapshot = async () => Object.fromEntries((await entries()).map((e) => [e.id!, `${e.spiffe_id!.path} r${e.revision_number ?? 0}`]));
  const metric = async (re: RegExp) => Number(re.exec((await httpGet(dep.metricsUrl)).body)?.[1] ?? NaN);
  const waitHolds = async (name: string, id: string, timeoutMs = 90_000) =>
    eventually(() => holds(name)?.svid?.uri === id, `${name} holds an SVID for ${id} (holds ${JSON.stringify(holds(name))})`, timeoutMs);

  beforeAll(async () => {
    plane = await startControlPlane();
    node = await startNode(plane);
    console.log(`test:e2e: ${versionsLine(plane, node)}`);
    o = objects(plane);
    dep = await prepareDeployment(plane, node);
    await workloadNamespace(plane, NS, 'web');
    await o.create(
      chartCsid('web', {
        podSelector: { matchLabels: { app: 'web' } },
        spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}/web/{{ .PodMeta.Name }}',
        dnsNameTemplates: ['{{ .PodMeta.Name }}.{{ .PodMeta.Namespace }}.svc.cluster.local', 'web.{{ .TrustDomain }}'],
      }),
    );
    await o.create(chartCsid('api', { podSelector: { matchLabels: { app: 'api' } }, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}/api' }));
    for (const name of ['web-0', 'web-1']) await o.create(pod(name, 'web'));
    await dep.deploy('peer');
    spire = new SpireClient({ socket: adminSocket(node) });
  }, 900_000);

  afterAll(async () => {
    spire?.close();
    await node?.stop();
    await plane?.stop();
  });

  it("spire-controller-manager's image in the server pod registers the workloads, which hold their SVIDs", async () => {
    await waitHolds('web-0', WEB_ID('web', 'web-0'));
    await waitHolds('web-1', WEB_ID('web', 'web-1'));
    expect(holds('web-0')!.svid!.dnsNames).toEqual(['web-0.shop.svc.cluster.local', `web.${TD}`]);
  });

  let peerEntries: Record<string, string>;
  let serials: Record<string, string>;

  it('our image swapped in takes over with no entry written, and every workload keeps its SVID', async () => {
    peerEntries = await snapshot();
    serials = { 'web-0': holds('web-0')!.svid!.serial, 'web-1': holds('web-1')!.svid!.serial };
    await dep.swapController('ours');
    await eventually(async () => (await metric(/^spire_reconciler_pass_seconds_count (\d+)$/m)) >= 2, 'two full passes by ours', 90_000);
    for (const op of ['created', 'updated', 'deleted']) expect(await metric(new RegExp(`^spire_reconciler_entries_total\\{op="${op}"\\} (\\d+)$`, 'm')), op).toBe(0);
    expect(await snapshot()).toEqual(peerEntries);
    expect({ 'web-0': holds('web-0')?.svid?.serial, 'web-1': holds('web-1')?.svid?.serial }).toEqual(serials);
  });

  it('a new pod matching a ClusterSPIFFEID gets the SPIFFE ID and DNS names its templates render', async () => {
    await o.create(pod('web-2', 'web'));
    await waitHolds('web-2', WEB_ID('web', 'web-2'));
    const svid = holds('web-2')!.svid!;
    expect(svid.uri).toBe(`spiffe://${TD}/ns/shop/sa/web/web/web-2`);
    expect(svid.dnsNames).toEqual(['web-2.shop.svc.cluster.local', `web.${TD}`]);
  });

  it("a pod relabelled into another ClusterSPIFFEID gets that one's identity", async () => {
    await o.patch({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: NS } }, { metadata: { labels: { app: 'api' } } });
    await waitHolds('web-1', API_ID('web'));
    expect(holds('web-1')!.svid!.dnsNames).toEqual([]);
    expect((await entries()).map((e) => e.spiffe_id!.path)).not.toContain('/ns/shop/sa/web/web/web-1');
  });

  it('its ClusterSPIFFEID deleted, the pod loses the identity', async () => {
    await o.delete({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'api' } });
    await eventually(() => holds('web-1')?.spiffeIDs.length === 0, `web-1 holds no SVID (holds ${JSON.stringify(holds('web-1'))})`, 90_000);
    expect(holds('web-1')!.error).toMatch(/no identity issued/);
  });

  it("the pod deleted, its entry goes; the others' stay", async () => {
    await o.deleteGracefully({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-2', namespace: NS } });
    await eventually(async () => !(await entries()).some((e) => e.spiffe_id!.path === '/ns/shop/sa/web/web/web-2'), "web-2's entry is deleted", 90_000);
    expect((await entries()).map((e) => e.spiffe_id!.path).sort()).toEqual(['/ns/shop/sa/web/web/web-0']);
  });

  it('our container killed, the kubelet restarts it: no entry is written and the workload keeps its SVID', async () => {
    const before = await snapshot();
    const serial = holds('web-0')!.svid!.serial;
    const status = await dep.containerStatus(CONTROLLER);
    await node.killContainer(status!.containerID!);
    await eventually(async () => {
      const s = await dep.containerStatus(CONTROLLER);
      return !!s && s.restartCount > status!.restartCount && s.ready;
    }, 'the kubelet restarted our container and it is ready', 120_000);
    await eventually(async () => (await metric(/^spire_reconciler_pass_seconds_count (\d+)$/m)) >= 2, 'two full passes after the restart', 90_000);
    for (const op of ['created', 'updated', 'deleted']) expect(await metric(new RegExp(`^spire_reconciler_entries_total\\{op="${op}"\\} (\\d+)$`, 'm')), op).toBe(0);
    expect(await snapshot()).toEqual(before);
    expect(holds('web-0')!.svid!.serial).toBe(serial);
  });

  it('the admission webhook, called by the real API server, denies an invalid ClusterSPIFFEID', async () => {
    const denied = await o.create(chartCsid('bad', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name' })).then(
      () => 'created',
      (err: unknown) => (err instanceof KubeApiError ? err.message : String(err)),
    );
    expect(denied).toContain('admission webhook "vclusterspiffeid.kb.io" denied the request: ClusterSPIFFEID bad: spec.spiffeIDTemplate');
  });

  it("spire-controller-manager's image swapped back takes over with no entry written, and the workload keeps its SVID", async () => {
    const before = await snapshot();
    const serial = holds('web-0')!.svid!.serial;
    await dep.swapController('peer');
    // Two of the peer's passes (gcInterval 10 s) after it holds the Lease.
    await new Promise((r) => setTimeout(r, 40_000));
    expect(await snapshot()).toEqual(before);
    expect(holds('web-0')!.svid!.serial).toBe(serial);
  });
});
