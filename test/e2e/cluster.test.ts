/**
 * The lane's cluster as users have one (./cluster.ts): what a Deployment of
 * ours will need, shown with podprobe (test/e2e/images/podprobe) applied from
 * test/e2e/manifests/podprobe as a user applies manifests. Two replicas are
 * scheduled by kube-scheduler, Running and Ready on the node's pod network,
 * listed by their Service's Endpoints and EndpointSlice and counted by their
 * PodDisruptionBudget; each reaches the API server the in-cluster way as its
 * ServiceAccount, and the host's bridge address; the API server calls the
 * webhook they serve through their Service; a deleted pod is replaced; and a
 * host-network pod mounting its own kube-api-access volume runs as in the
 * sidecar lane, admission adding nothing.
 */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError } from '../../src/kube/rest.js';
import { httpGet } from '../support/cli.js';
import { freePort } from '../support/ports.js';
import { createServingPki } from '../support/real-k8s/pki.js';
import { eventually, objects } from '../real/world.js';
import { applyManifests, type Cluster, clusterUnavailable, hostAddress, isReady, podsOf, type PodView, readyPodIPs, startCluster, waitForRollout } from './cluster.js';
import { apiAccessMount, apiAccessVolume, apiEnv, eventuallyPod, IMAGES, workloadNamespace } from './world.js';

const skip = clusterUnavailable();
if (skip) console.warn(`test:e2e: SKIPPED: ${skip}`);

const NS = 'probe';
const APP = 'app=podprobe';
const MANIFESTS = join(import.meta.dirname, 'manifests', 'podprobe');

interface WhoAmI {
  apiServer: string;
  namespace?: string;
  user?: string;
  version?: string;
  error?: string;
}

describe.skipIf(!!skip)('a cluster as users have one: controllers, a scheduler, pods on a bridge, in-cluster API access, webhooks through Services', () => {
  let c: Cluster;
  let o: ReturnType<typeof objects>;
  /** The webhook's serving certificate (in the podprobe-tls Secret) and the CA the webhook configuration trusts. */
  let tls: Awaited<ReturnType<typeof createServingPki>>;
  const podAt = (ip: string, path: string) => httpGet(`http://${ip}:8080${path}`);

  beforeAll(async () => {
    c = await startCluster();
    o = objects(c.plane);
    console.log(`test:e2e: cluster started: control plane with controllers ${c.startup.controlPlaneMs} ms, node with pod network ${c.startup.nodeMs} ms (bridge ${c.node.podNetwork!.bridge}, ${c.node.podNetwork!.subnet})`);
  }, 300_000);

  afterAll(async () => {
    await c?.stop();
  });

  it('a Deployment of two replicas: scheduled, Running and Ready on bridge addresses, in its Endpoints and EndpointSlice, counted by its PDB', async () => {
    const started = Date.now();
    await applyManifests(c.plane, join(MANIFESTS, 'namespace.yaml'));
    // The API server checks a webhook Service's certificate for <service>.<namespace>.svc.
    tls = await createServingPki([`podprobe.${NS}.svc`]);
    await o.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'podprobe-tls', namespace: NS }, type: 'kubernetes.io/tls', stringData: { 'tls.crt': tls.certPem, 'tls.key': tls.keyPem } });
    await applyManifests(c.plane, MANIFESTS);
    await waitForRollout(c.plane, NS, 'podprobe', 120_000);
    console.log(`test:e2e: podprobe rolled out ${Date.now() - started} ms after its manifests were applied`);

    const pods = (await podsOf(c.plane, NS, APP)).filter((p) => !p.metadata.deletionTimestamp);
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      expect(p.spec.nodeName).toBe(c.node.name);
      expect(p.status.phase).toBe('Running');
      expect(isReady(p)).toBe(true);
      expect(p.status.podIP).toMatch(new RegExp(`^${c.node.podNetwork!.subnet.replace(/\.0\/24$/, '').replaceAll('.', '\\.')}\\.\\d+$`));
      // Bound by kube-scheduler: nothing here set nodeName.
      const events = await c.plane.request<{ items: { reason: string; source?: { component?: string }; reportingComponent?: string }[] }>('GET', `/api/v1/namespaces/${NS}/events`, {
        query: { fieldSelector: `involvedObject.name=${p.metadata.name},reason=Scheduled` },
      });
      expect(events.items.map((e) => e.reportingComponent || e.source?.component)).toContain('default-scheduler');
      // The ServiceAccount admission plugin gave the pod its token volume.
      expect(p.spec.volumes?.map((v) => v.name)).toEqual(expect.arrayContaining([expect.stringMatching(/^kube-api-access-/)]));
    }
    const ips = pods.map((p) => p.status.podIP!).sort();

    await eventually(
      async () => {
        const slices = await c.plane.request<{ items: { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }[] }>('GET', `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`, {
          query: { labelSelector: 'kubernetes.io/service-name=podprobe' },
        });
        const sliceIPs = slices.items.flatMap((s) => (s.endpoints ?? []).filter((e) => e.conditions?.ready).flatMap((e) => e.addresses));
        const endpoints = await c.plane.request<{ subsets?: { addresses?: { ip: string }[] }[] }>('GET', `/api/v1/namespaces/${NS}/endpoints/podprobe`);
        const endpointIPs = (endpoints.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
        return JSON.stringify(sliceIPs.sort()) === JSON.stringify(ips) && JSON.stringify(endpointIPs.sort()) === JSON.stringify(ips);
      },
      `the Service's EndpointSlice and Endpoints list ${ips.join(', ')}`,
      30_000,
    );

    let pdb: { status?: Record<string, number> } | undefined;
    await eventually(
      async () => {
        pdb = await c.plane.request('GET', `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/podprobe`);
        return pdb?.status?.currentHealthy === 2;
      },
      'the PodDisruptionBudget counts both pods',
      30_000,
    );
    expect(pdb!.status).toMatchObject({ expectedPods: 2, currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 1 });
  });

  it("each pod reaches the API server the in-cluster way, as its namespace's default ServiceAccount", async () => {
    const ips = await readyPodIPs(c.plane, NS, APP);
    expect(ips).toHaveLength(2);
    for (const ip of ips) {
      const who = JSON.parse((await podAt(ip, '/whoami')).body) as WhoAmI;
      expect(who).toEqual({ apiServer: `${c.plane.kubernetesService.ip}:${c.plane.kubernetesService.port}`, namespace: NS, user: `system:serviceaccount:${NS}:default`, version: c.plane.versions.kubernetes });
    }
  });

  it("a pod reaches a server on the host's bridge address, and nothing off the machine", async () => {
    const host = hostAddress(c.node);
    const port = await freePort(host);
    const server: Server = createServer((_req, res) => res.end('the host answers'));
    await new Promise<void>((resolve) => server.listen(port, host, resolve));
    try {
      const [ip] = await readyPodIPs(c.plane, NS, APP);
      expect(ip).toBeDefined();
      const got = JSON.parse((await podAt(ip!, `/fetch?url=${encodeURIComponent(`http://${host}:${port}/`)}`)).body) as { status?: number; body?: string; error?: string };
      expect(got).toEqual({ status: 200, body: 'the host answers' });
      // No route leads off the machine: the host's other addresses and the world are unreachable.
      const away = JSON.parse((await podAt(ip!, `/fetch?url=${encodeURIComponent('http://192.0.2.1:80/')}`)).body) as { error?: string };
      expect(away.error).toMatch(/network is unreachable/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('the API server calls a webhook Service at a pod address; an ExternalName webhook Service is refused in this cluster', async () => {
    const webhook = (name: string, service: string, label: string) => ({
      name,
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: 'Fail',
      timeoutSeconds: 5,
      clientConfig: { service: { namespace: NS, name: service, port: 443, path: '/validate' }, caBundle: Buffer.from(tls.caPem).toString('base64') },
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], scope: 'Namespaced' }],
      objectSelector: { matchLabels: { 'podprobe-webhook': label } },
    });
    await o.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'podprobe-external', namespace: NS }, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'webhook', port: 443 }] } });
    await o.create({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'podprobe' },
      webhooks: [webhook('deny.podprobe.e2e', 'podprobe', 'deny'), webhook('external.podprobe.e2e', 'podprobe-external', 'external')],
    });

    const podNames = (await podsOf(c.plane, NS, APP)).map((p) => p.metadata.name);
    let attempt = 0;
    const denial = async (label: string) => {
      let message = '';
      // The API server picks the configuration up from its informer a moment after it is created.
      await eventually(
        async () => {
          const name = `probe-${label}-${attempt++}`;
          message = await o.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, labels: { 'podprobe-webhook': label } } }).then(
            () => '',
            (err: unknown) => (err instanceof KubeApiError ? err.message : String(err)),
          );
          return message !== '';
        },
        `a ConfigMap labelled podprobe-webhook=${label} is refused`,
        30_000,
      );
      return message;
    };
    const denied = await denial('deny');
    expect(denied).toMatch(/admission webhook "deny\.podprobe\.e2e" denied the request: denied by podprobe in pod (\S+)/);
    expect(podNames).toContain(/in pod (\S+)/.exec(denied)![1]);
    expect(await denial('external')).toMatch(/failed calling webhook "external\.podprobe\.e2e".*unsupported service type "ExternalName"/);
  });

  it('a deleted pod is replaced: a new one scheduled, Ready, in the EndpointSlice', async () => {
    const before = (await podsOf(c.plane, NS, APP)).filter((p) => !p.metadata.deletionTimestamp);
    const gone = before[0]!;
    const started = Date.now();
    await o.deleteGracefully({ apiVersion: 'v1', kind: 'Pod', metadata: { name: gone.metadata.name, namespace: NS } });
    let now: PodView[] = [];
    await eventually(
      async () => {
        now = await podsOf(c.plane, NS, APP);
        return now.length === 2 && !now.some((p) => p.metadata.uid === gone.metadata.uid) && now.every((p) => isReady(p) && p.spec.nodeName === c.node.name);
      },
      `${gone.metadata.name} is gone and a new pod is Ready in its place`,
      60_000,
    );
    console.log(`test:e2e: a deleted pod replaced and Ready in ${Date.now() - started} ms`);
    const ips = await readyPodIPs(c.plane, NS, APP);
    await eventually(
      async () => {
        const slices = await c.plane.request<{ items: { endpoints?: { addresses: string[] }[] }[] }>('GET', `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`, {
          query: { labelSelector: 'kubernetes.io/service-name=podprobe' },
        });
        return JSON.stringify(slices.items.flatMap((s) => (s.endpoints ?? []).flatMap((e) => e.addresses)).sort()) === JSON.stringify(ips);
      },
      `the EndpointSlice lists ${ips.join(', ')}`,
      30_000,
    );
    await waitForRollout(c.plane, NS, 'podprobe', 30_000);
  });

  it('a host-network pod that mounts its own kube-api-access volume runs as in the sidecar lane: admission adds no volume', async () => {
    const port = await freePort();
    const [ns, name] = ['host-network', 'probe'];
    // world.ts's helper, as the sidecar lane makes its namespaces: here the controllers fill them in.
    await workloadNamespace(c.plane, ns);
    const stored = await o.create<PodView>({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns },
      spec: {
        nodeName: c.node.name,
        hostNetwork: true,
        dnsPolicy: 'None',
        dnsConfig: { nameservers: ['127.0.0.1'] },
        enableServiceLinks: false,
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'podprobe',
            image: IMAGES.podprobe,
            imagePullPolicy: 'Never',
            env: [...apiEnv(c.plane), { name: 'LISTEN', value: `127.0.0.1:${port}` }],
            readinessProbe: { httpGet: { host: '127.0.0.1', port, path: '/readyz' }, periodSeconds: 1 },
            volumeMounts: [apiAccessMount],
          },
        ],
        volumes: [apiAccessVolume],
      },
    });
    expect(stored.spec.volumes?.map((v) => v.name)).toEqual(['kube-api-access']);
    expect(stored.spec.containers[0]!.volumeMounts?.map((m) => m.name)).toEqual(['kube-api-access']);
    await eventuallyPod(c.plane, c.node, ns, name, async () => isReady((await o.get<PodView>({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns } }))!), `${name} is Ready`, 60_000);
    const who = JSON.parse((await httpGet(`http://127.0.0.1:${port}/whoami`)).body) as WhoAmI;
    expect(who).toEqual({ apiServer: new URL(c.plane.url).host, namespace: ns, user: `system:serviceaccount:${ns}:default`, version: c.plane.versions.kubernetes });
  });
});
