/**
 * What the real API server lane (test/real/) found the fake doing otherwise,
 * pinned here with kube-apiserver v1.36.3's answers, so the default suite
 * (no Go) keeps the fake honest.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeApiError, kubeRequest } from '../../src/kube/rest.js';
import { FakeKubeApiServer } from '../support/kube/index.js';

type Obj = { metadata: Record<string, unknown> & { uid: string; resourceVersion: string; labels?: Record<string, string> }; spec: Record<string, unknown>; status?: Record<string, unknown>; [k: string]: unknown };

describe('the fake stores built-in objects as kube-apiserver v1.36 does', () => {
  let kube: FakeKubeApiServer;
  const post = (path: string, body: object) => kubeRequest<Obj>(kube.kubeConfig(), 'POST', path, { body });
  beforeEach(async () => {
    kube = await FakeKubeApiServer.start({ namespaceLifecycle: true });
  });
  afterEach(async () => {
    await kube.close();
  });

  it('a new Node: podCIDRs from podCIDR, tainted not-ready (TaintNodesByCondition), zero-valued status structs', async () => {
    const n = await post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'z1' } }, spec: { podCIDR: '10.244.0.0/24' } });
    expect(n.spec).toEqual({ podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'], taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] });
    expect(n.status).toMatchObject({ daemonEndpoints: { kubeletEndpoint: { Port: 0 } }, nodeInfo: { machineID: '', kubeletVersion: '', architecture: '' } });
  });

  it("a new Pod: its spec's defaults, the default tolerations, BestEffort, and its node's topology labels (PodTopologyLabels)", async () => {
    await post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'z1', other: 'x' } }, spec: {} });
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    const p = await post('/api/v1/namespaces/shop/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: { nodeName: 'n1', serviceAccountName: 'web', containers: [{ name: 'web', image: 'shop/web:4.2' }, { name: 'side', image: 'shop/side' }] },
    });
    expect(p.metadata.labels).toEqual({ app: 'web', 'topology.kubernetes.io/zone': 'z1' });
    expect(p.spec).toEqual({
      containers: [
        { name: 'web', image: 'shop/web:4.2', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' },
        { name: 'side', image: 'shop/side', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'web',
      serviceAccount: 'web',
      nodeName: 'n1',
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    });
    expect(p.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('a new EndpointSlice: empty conditions per endpoint, and a generation', async () => {
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    const s = await post('/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices', { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-x' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }] });
    expect(s.endpoints).toEqual([{ addresses: ['10.0.0.1'], conditions: {} }]);
    expect(s.metadata.generation).toBe(1);
  });

  it('a pod on a node deleted with its grace period is only marked terminating; one on no node, or finished, goes at once', async () => {
    const kc = kube.kubeConfig();
    await post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: {} });
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    const pod = (name: string, spec: Record<string, unknown> = { nodeName: 'n1' }) => post('/api/v1/namespaces/shop/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { ...spec, containers: [{ name: 'c', image: 'app' }] } });
    const del = (name: string, query: Record<string, string> = {}) => kubeRequest<Obj>(kc, 'DELETE', `/api/v1/namespaces/shop/pods/${name}`, { query });
    const get = (name: string) => kubeRequest<Obj>(kc, 'GET', `/api/v1/namespaces/shop/pods/${name}`).catch((e: unknown) => (e as KubeApiError).statusCode);
    const seconds = (a: unknown, b: unknown) => (Date.parse(String(a)) - Date.parse(String(b))) / 1000;

    const web = await pod('web');
    expect(web.metadata.generation).toBe(1);
    const before = new Date();
    const marked = await del('web');
    // Marked 30 s ahead (the default terminationGracePeriodSeconds), the generation moved, and it is still there.
    expect(marked.metadata).toMatchObject({ deletionGracePeriodSeconds: 30, generation: 2 });
    expect(seconds(marked.metadata.deletionTimestamp, before)).toBeGreaterThanOrEqual(29);
    expect(seconds(marked.metadata.deletionTimestamp, before)).toBeLessThanOrEqual(31);
    expect((await get('web')) as Obj).toMatchObject({ metadata: { uid: web.metadata.uid, deletionGracePeriodSeconds: 30 } });
    // Deleted again alike: nothing changes. With a shorter grace period: the deadline moves, the generation does not.
    expect((await del('web')).metadata.resourceVersion).toBe(marked.metadata.resourceVersion);
    const sooner = await del('web', { gracePeriodSeconds: '5' });
    expect(sooner.metadata).toMatchObject({ deletionGracePeriodSeconds: 5, generation: 2 });
    expect(sooner.metadata.resourceVersion).not.toBe(marked.metadata.resourceVersion);
    // The kubelet's confirmation (grace period 0) removes it.
    await del('web', { gracePeriodSeconds: '0' });
    expect(await get('web')).toBe(404);

    // The pod's own terminationGracePeriodSeconds is the default.
    await pod('slow', { nodeName: 'n1', terminationGracePeriodSeconds: 7 });
    expect((await del('slow')).metadata.deletionGracePeriodSeconds).toBe(7);
    // On no node, or finished: nothing to wait for.
    await pod('pending', {});
    await del('pending');
    expect(await get('pending')).toBe(404);
    const done = await pod('done');
    await kubeRequest(kc, 'PATCH', '/api/v1/namespaces/shop/pods/done/status', { body: { status: { phase: 'Succeeded' } }, contentType: 'application/merge-patch+json' });
    await del(done.metadata.name as string);
    expect(await get('done')).toBe(404);
  });

  it('an update carrying another UID than the stored one is a failed precondition (409)', async () => {
    const ns = await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    const other = '0b6f7c3e-1d2a-4f5b-8c9d-000000000001';
    const err = await kubeRequest(kube.kubeConfig(), 'PUT', '/api/v1/namespaces/shop', { body: { ...ns, metadata: { ...ns.metadata, uid: other } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).statusCode).toBe(409);
    expect((err as KubeApiError).message).toContain(
      `Operation cannot be fulfilled on namespaces "shop": StorageError: invalid object, Code: 4, Key: /registry/namespaces/shop, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${other}, UID in object meta: ${ns.metadata.uid}`,
    );
  });
});
