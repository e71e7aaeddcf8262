/**
 * The SPIRE helm chart's controller manager container with our image, on a
 * real API server: started as the chart starts it (its arguments, no command,
 * its config file relative to the working directory, test/fixtures/upstream-chart/),
 * under the RBAC the chart gives it (core Endpoints but no EndpointSlices,
 * events only in its namespace, its webhook configuration named
 * <namespace>-<fullname>-webhook), with the chart's webhook configuration.
 * What it may not do degrades as a user expects (names from Endpoints, a
 * metric, a condition); it is ready, and kube-apiserver calls its webhook.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { exitCode, httpGet, spawnCli } from '../support/cli.js';
import { freePort } from '../support/ports.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { CHART, CHART_RBAC, chartConfig, chartContainer as container, chartCsid, writeChartConfig } from './chart.js';
import { controllerKubeConfig, eventually, node, ns, type Obj, objects, pod, yamlObjects } from './world.js';

const VWC_NAME = chartConfig.validatingWebhookConfigurationName;

describe("`run` under the SPIRE helm chart's ClusterRole, on a real API server", () => {
  let plane: ControlPlane;
  let dir: string;
  let spire: MemorySpireServer;
  let cli: ReturnType<typeof spawnCli> | undefined;
  let health: string;
  let metrics: string;

  beforeAll(async () => {
    plane = await startControlPlane();
    dir = mkdtempSync(join(tmpdir(), 'real-chart-'));
    const kubeconfig = join(dir, 'kubeconfig');
    plane.writeKubeconfig(kubeconfig, await controllerKubeConfig(plane, CHART_RBAC));
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'example.org' });

    const o = objects(plane);
    await o.create(node('node-1'));
    await o.create(ns('shop'));
    await o.create(chartCsid('svc', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/svc/{{ .PodMeta.Name }}', namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } }, autoPopulateDNSNames: true }));
    const api = await o.create(pod('shop', 'api'));
    await o.create({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api', namespace: 'shop' }, subsets: [{ addresses: [{ ip: '10.0.0.9', targetRef: { kind: 'Pod', name: 'api', namespace: 'shop', uid: api.metadata.uid } }] }] });

    const port = await freePort();
    // The chart's webhook configuration (its name, webhooks and paths); its Service an ExternalName to localhost (see run.test.ts).
    const [vwc] = yamlObjects(join(CHART, 'webhook.yaml')) as [Obj & { webhooks: { clientConfig: { service: { name: string; namespace: string; port?: number } } }[] }];
    expect(vwc.metadata.name).toBe(VWC_NAME);
    const { name: serviceName, namespace: serviceNamespace } = vwc.webhooks[0]!.clientConfig.service;
    for (const w of vwc.webhooks) w.clientConfig.service.port = port;
    await o.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: serviceName, namespace: serviceNamespace }, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'webhook', port }] } });
    await o.create(vwc);

    // The chart's config; only what cannot be the same in a test differs: the SPIRE socket, the ports, the cluster
    // domain (detected from DNS in a pod), the webhook's address (a Service in the cluster), and gcInterval (an hour,
    // so that the counts below are of one pass, not of every ten seconds).
    ({ health, metrics } = await writeChartConfig(dir, {
      spireServerSocketPath: spire.socketPath,
      clusterDomain: 'cluster.local',
      gcInterval: '1h',
      webhook: { host: '127.0.0.1', port },
    }));
    expect(container.args).toEqual(['--config=controller-manager-config.yaml']);
    const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
    cli = spawnCli(container.args, { cwd: join(dir, 'root'), env: { ...env, KUBECONFIG: kubeconfig } });
  });
  afterAll(async () => {
    if (cli && cli.exitCode === null) {
      const exited = exitCode(cli);
      cli.kill('SIGKILL');
      await exited;
    }
    await spire?.stop();
    await plane?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is ready, creates entries with Service DNS names from core Endpoints, and reports the EndpointSlice denial', async () => {
    await eventually(async () => (await httpGet(`${health}/readyz/webhook-certificate`)).status === 200, `a webhook certificate: ${cli!.output()}`, 60_000);
    const entry = () => spire.entries.all().find((e) => e.spiffeId.path === '/svc/api');
    await eventually(() => entry()?.dnsNames.length === 4, 'the entry with the Service names', 60_000);
    expect(entry()?.dnsNames).toEqual(['api', 'api.shop', 'api.shop.svc', 'api.shop.svc.cluster.local']);
    expect((await httpGet(metrics)).body).toMatch(/^spire_reconciler_api_forbidden\{resource="endpointslices"\} 1$/m);
    const status = async () => (await plane.request<{ status?: { conditions?: { type: string; status: string; reason: string }[] } }>('GET', '/apis/spire.spiffe.io/v1alpha1/clusterspiffeids/svc')).status;
    await eventually(async () => (await status())?.conditions !== undefined, 'the condition is written');
    expect((await status())?.conditions).toMatchObject([{ type: 'ServiceDNSNames', status: 'True', reason: 'FromEndpoints' }]);
    // The chart's webhook configuration was read and its caBundle written.
    const vwc = await plane.request<{ webhooks: { clientConfig: { caBundle?: string } }[] }>('GET', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${VWC_NAME}`);
    expect(vwc.webhooks.every((w) => (w.clientConfig.caBundle ?? '') !== '')).toBe(true);
    // kube-apiserver calls us on the chart's paths: an invalid ClusterSPIFFEID is denied with our message.
    const denied = await plane
      .request('POST', '/apis/spire.spiffe.io/v1alpha1/clusterspiffeids', { body: chartCsid('bad-template', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ lower .PodMeta.Name }}' }) })
      .then(
        () => 'admitted',
        (err: unknown) => (err as Error).message,
      );
    expect(denied).toContain('admission webhook "vclusterspiffeid.kb.io" denied the request: ClusterSPIFFEID bad-template: spec.spiffeIDTemplate: template: 1:');
    // entryIDPrefix is the chart's cluster name, with the dot upstream appends.
    expect(entry()?.id).toMatch(/^example-cluster\./);
  });

  it('a render failure it may not record as an event (events only in its namespace) is a warning and a metric', async () => {
    await plane.request('POST', '/apis/spire.spiffe.io/v1alpha1/clusterspiffeids', { body: chartCsid('broken', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.missing }}', namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }) });
    await eventually(async () => /^spire_reconciler_api_forbidden\{resource="events"\} 1$/m.test((await httpGet(metrics)).body), 'the denied event is counted', 60_000);
    expect(cli!.output()).toContain('events cannot be recorded (reconciling goes on)');
    expect((await httpGet(`${health}/readyz`)).status).toBe(200);
  });
});
