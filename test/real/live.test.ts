/**
 * The live controller against a real API server, as its ServiceAccount
 * under deploy/clusterrole.yaml and deploy/role.yaml (not as the admin), so
 * every request it makes is one those permissions allow: the scenarios of
 * test/live/scenarios.test.ts, change by change, with SPIRE and the cluster
 * compared at each step. One controller for the file; each test works in
 * namespaces and ClusterSPIFFEIDs of its own.
 */
import { pino } from 'pino';
import { stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControllerConfig, defaultConfig, parseConfig } from '../../src/api/index.js';
import { passOptions } from '../../src/cli/context.js';
import { type LiveController, startLive } from '../../src/manager/live.js';
import { startTestSpire, type TestSpire } from '../support/spire.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { controllerKubeConfig, csid, DEPLOY_RBAC, deployedConfig, eventually, node, ns, type Obj, objects, pod } from './world.js';

const SA_TEMPLATE = 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}';
const CSID = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID' } as const;

describe('the live controller on a real API server, under deploy/ RBAC', () => {
  let plane: ControlPlane;
  let spire: TestSpire;
  let live: LiveController;
  let config: ControllerConfig;
  let o: ReturnType<typeof objects>;
  const stop = new AbortController();
  const paths = (prefix: string) => spire.server.entries.all().map((e) => e.spiffeId.path).filter((p) => p.startsWith(prefix)).sort();
  const entry = (path: string) => spire.server.entries.all().find((e) => e.spiffeId.path === path);
  const LEADER = 'real-live-test';
  const leaseHolder = async () =>
    (await o.get<{ spec: { holderIdentity?: string } }>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'spire-reconciler-leader-election', namespace: 'spire-server' } }))?.spec.holderIdentity;

  beforeAll(async () => {
    plane = await startControlPlane();
    o = objects(plane);
    const kc = await controllerKubeConfig(plane, DEPLOY_RBAC);
    spire = await startTestSpire();
    const { config: deployed } = parseConfig(toYaml(deployedConfig()), 'deploy/configmap.yaml');
    config = { ...defaultConfig(), ...deployed, spireServerSocketPath: spire.socketPath, clusterDomain: 'cluster.local', gcIntervalMs: 3_600_000, spireRpcTimeoutMs: 5_000 };
    await o.create(node('node-1', { zone: 'z1' }));
    live = await startLive({ config, pass: passOptions(config), kc, log: pino({ level: process.env.TEST_LOG ?? 'silent' }), signal: stop.signal, namespace: 'spire-server', identity: LEADER });
    await eventually(async () => (await leaseHolder()) === LEADER, 'the controller holds the Lease');
  });
  afterAll(async () => {
    stop.abort();
    await live?.done;
    await spire?.close();
    await plane?.stop();
  });

  it('runs with leader election on the Lease deploy/role.yaml names', async () => {
    expect(await leaseHolder()).toBe(LEADER);
  });

  it('creates the entry of a new pod, and deletes it with the pod', async () => {
    await o.create(ns('a1', { t: 'a1' }));
    await o.create(csid('a1', { spiffeIDTemplate: SA_TEMPLATE, namespaceSelector: { matchLabels: { t: 'a1' } } }));
    const web = await o.create(pod('a1', 'web'));
    await eventually(() => paths('/ns/a1/').join() === '/ns/a1/sa/web-sa', 'the entry exists');
    expect(entry('/ns/a1/sa/web-sa')?.selectors).toEqual([{ type: 'k8s', value: `pod-uid:${web.metadata.uid}` }]);
    const nodeUid = (await o.get(node('node-1')))!.metadata.uid;
    expect(entry('/ns/a1/sa/web-sa')?.parentId.path).toBe(`/spire/agent/k8s_psat/demo/${nodeUid}`);
    await o.delete(web);
    await eventually(() => paths('/ns/a1/').length === 0, 'the entry is gone');
  });

  it('drops the entry of a pod that has finished (its phase written through /status)', async () => {
    await o.create(ns('a2', { t: 'a2' }));
    await o.create(csid('a2', { spiffeIDTemplate: SA_TEMPLATE, namespaceSelector: { matchLabels: { t: 'a2' } } }));
    const job = await o.create(pod('a2', 'job'));
    await eventually(() => paths('/ns/a2/').length === 1, 'the entry exists');
    await o.patchStatus(job, { phase: 'Succeeded' });
    await eventually(() => paths('/ns/a2/').length === 0, 'a finished pod has no entry');
  });

  it('keeps the entry of a terminating pod (deleted with its grace period) until the pod is gone', async () => {
    await o.create(ns('a9', { t: 'a9' }));
    await o.create(csid('a9', { spiffeIDTemplate: SA_TEMPLATE, namespaceSelector: { matchLabels: { t: 'a9' } } }));
    const web = await o.create(pod('a9', 'web'));
    await eventually(() => paths('/ns/a9/').length === 1, 'the entry exists');
    const id = entry('/ns/a9/sa/web-sa')?.id;
    // kube-apiserver marks a pod on a node terminating (its 30 s default grace) and keeps it until the kubelet
    // confirms; the workload still runs, and needs its identity, while it shuts down.
    const marked = await o.deleteGracefully<Obj & { metadata: { deletionTimestamp?: string; deletionGracePeriodSeconds?: number } }>(web);
    expect(marked.metadata.deletionTimestamp).toBeDefined();
    expect(marked.metadata.deletionGracePeriodSeconds).toBe(30);
    expect((await o.get(web))?.metadata.uid).toBe(web.metadata.uid);
    const passes = live.passes();
    live.resync();
    await eventually(() => live.passes() > passes, 'a full pass ran');
    expect(entry('/ns/a9/sa/web-sa')?.id).toBe(id);
    // The kubelet's final delete.
    await o.delete(web);
    await eventually(() => paths('/ns/a9/').length === 0, 'the entry is gone with the pod');
    // A pod on no node has nothing to wait for: a graceful delete removes it at once.
    const pending = await o.create(pod('a9', 'pending', { app: 'pending' }, ''));
    await o.deleteGracefully(pending);
    expect(await o.get(pending)).toBeUndefined();
  });

  it("changes exactly a ClusterSPIFFEID's entries when its template changes", async () => {
    await o.create(ns('a3', { t: 'a3' }));
    await o.create(ns('b3', { t: 'b3' }));
    await o.create(csid('a3', { spiffeIDTemplate: SA_TEMPLATE, namespaceSelector: { matchLabels: { t: 'a3' } } }));
    const byName = await o.create(csid('b3', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/b3/pod/{{ .PodMeta.Name }}', namespaceSelector: { matchLabels: { t: 'b3' } } }));
    await o.create(pod('a3', 'web'));
    await o.create(pod('b3', 'api'));
    await eventually(() => entry('/ns/a3/sa/web-sa') !== undefined && entry('/b3/pod/api') !== undefined, 'both entries exist');
    const before = entry('/ns/a3/sa/web-sa');
    await o.patch(byName, { spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/b3/workload/{{ .PodMeta.Name }}' } });
    await eventually(() => entry('/b3/workload/api') !== undefined && entry('/b3/pod/api') === undefined, 'the entry has the new ID, and the old one is gone');
    expect(entry('/ns/a3/sa/web-sa')).toEqual(before);
  });

  it('moves pods in and out of selection when a namespace label changes', async () => {
    await o.create(ns('a4', { t: 'a4' }));
    await o.create(ns('b4', { t: 'other' }));
    await o.create(csid('a4', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/t4/{{ .PodMeta.Namespace }}/{{ .PodMeta.Name }}', namespaceSelector: { matchLabels: { t: 'a4' } } }));
    await o.create(pod('a4', 'web'));
    await o.create(pod('b4', 'api'));
    await eventually(() => paths('/t4/').join() === '/t4/a4/web', 'a4 is selected');
    await o.patch(ns('b4'), { metadata: { labels: { t: 'a4' } } });
    await eventually(() => paths('/t4/').join() === '/t4/a4/web,/t4/b4/api', 'b4 moved in');
    await o.patch(ns('a4'), { metadata: { labels: { t: 'x' } } });
    await eventually(() => paths('/t4/').join() === '/t4/b4/api', 'a4 moved out');
  });

  it('re-renders the entries that read a relabelled node', async () => {
    await o.create(ns('a5', { t: 'a5' }));
    await o.create(node('node-5', { zone: 'z1' }));
    await o.create(
      csid('a5', {
        spiffeIDTemplate: SA_TEMPLATE,
        namespaceSelector: { matchLabels: { t: 'a5' } },
        // A workload selector from the node's label: a node relabel changes the entry.
        workloadSelectorTemplates: ['k8s:node-zone:{{ index .NodeMeta.Labels "zone" }}'],
      }),
    );
    await o.create(pod('a5', 'web', { app: 'web' }, 'node-5'));
    const zone = () => entry('/ns/a5/sa/web-sa')?.selectors.find((s) => s.value.startsWith('node-zone:'))?.value;
    await eventually(() => zone() === 'node-zone:z1', 'the first zone');
    await o.patch(node('node-5'), { metadata: { labels: { zone: 'z2' } } });
    await eventually(() => zone() === 'node-zone:z2', 'the new zone');
  });

  it('writes status stats that match, exactly', async () => {
    await o.create(ns('a6', { t: 'a6' }));
    await o.create(csid('a6', { spiffeIDTemplate: SA_TEMPLATE, namespaceSelector: { matchLabels: { t: 'a6' } } }));
    await o.create(pod('a6', 'web'));
    await o.create(pod('a6', 'db'));
    const status = async () => (await o.get<Obj & { status?: { stats?: { entriesToSet?: number } } }>({ ...CSID, metadata: { name: 'a6' } }))?.status;
    await eventually(async () => (await status())?.stats?.entriesToSet === 2, 'the stats are written');
    expect(await status()).toEqual({
      stats: { namespacesSelected: 1, namespacesIgnored: 0, podsSelected: 2, podEntryRenderFailures: 0, entriesMasked: 0, entriesToSet: 2, entryFailures: 0, entriesWithoutFederation: 0 },
    });
  });

  it('records a Warning event for a render failure', async () => {
    await o.create(ns('a7', { t: 'a7' }));
    await o.create(csid('a7', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.missing }}', namespaceSelector: { matchLabels: { t: 'a7' } } }));
    await o.create(pod('a7', 'web'));
    type Ev = { reason: string; message: string; type: string; involvedObject: { kind: string; name: string } };
    const events = async () => (await plane.request<{ items: Ev[] }>('GET', '/api/v1/namespaces/default/events')).items.filter((e) => e.involvedObject.name === 'a7');
    await eventually(async () => (await events()).length === 1, 'an event is recorded');
    expect((await events())[0]).toMatchObject({
      type: 'Warning',
      reason: 'RenderFailed',
      involvedObject: { kind: 'ClusterSPIFFEID', name: 'a7' },
      message: expect.stringContaining('pod a7/web: failed to render SPIFFE ID: invalid SPIFFE ID "spiffe://example.org/<no value>"'),
    });
  });

  it('adds the DNS names of the services whose EndpointSlices target a pod (autoPopulateDNSNames)', async () => {
    await o.create(ns('a8', { t: 'a8' }));
    await o.create(csid('a8', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/svc8/{{ .PodMeta.Name }}', namespaceSelector: { matchLabels: { t: 'a8' } }, autoPopulateDNSNames: true }));
    const api = await o.create(pod('a8', 'api'));
    await eventually(() => entry('/svc8/api') !== undefined, 'the entry exists');
    await o.create({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'api-abc12', namespace: 'a8', labels: { 'kubernetes.io/service-name': 'api' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.9'], targetRef: { kind: 'Pod', name: 'api', namespace: 'a8', uid: api.metadata.uid } }],
    });
    const expected = ['api', 'api.a8', 'api.a8.svc', 'api.a8.svc.cluster.local'];
    await eventually(() => JSON.stringify(entry('/svc8/api')?.dnsNames) === JSON.stringify(expected), 'the service names are added');
  });
});
