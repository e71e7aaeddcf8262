/**
 * `run` under the RBAC the SPIRE helm chart gives spire-controller-manager
 * (test/fixtures/upstream-chart/clusterrole.yaml: core Endpoints but no
 * EndpointSlices, events only in its namespace, its webhook configuration
 * named <namespace>-<fullname>-webhook): what it may not do degrades as a user
 * expects (names from Endpoints, a metric, a condition), and it is ready.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { exitCode, httpGet, repoRoot, servedAt, spawnCli } from '../support/cli.js';
import { freePort } from '../support/ports.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { controllerKubeConfig, csid, deployedConfig, eventually, node, ns, type Obj, objects, pod, yamlObjects } from './world.js';

const CHART_RBAC = [join(repoRoot, 'deploy/namespace.yaml'), join(repoRoot, 'test/fixtures/upstream-chart/clusterrole.yaml')];
const VWC_NAME = 'spire-server-spire-controller-manager-webhook';

describe("`run` under the SPIRE helm chart's ClusterRole, on a real API server", () => {
  let plane: ControlPlane;
  let dir: string;
  let spire: MemorySpireServer;
  let cli: ReturnType<typeof spawnCli> | undefined;

  beforeAll(async () => {
    plane = await startControlPlane();
    dir = mkdtempSync(join(tmpdir(), 'real-chart-'));
    const kubeconfig = join(dir, 'kubeconfig');
    plane.writeKubeconfig(kubeconfig, await controllerKubeConfig(plane, CHART_RBAC));
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'example.org' });

    const o = objects(plane);
    await o.create(node('node-1'));
    await o.create(ns('shop'));
    await o.create(csid('svc', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/svc/{{ .PodMeta.Name }}', namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } }, autoPopulateDNSNames: true }));
    const api = await o.create(pod('shop', 'api'));
    await o.create({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api', namespace: 'shop' }, subsets: [{ addresses: [{ ip: '10.0.0.9', targetRef: { kind: 'Pod', name: 'api', namespace: 'shop', uid: api.metadata.uid } }] }] });

    const port = await freePort();
    // Last (failurePolicy Fail admits nothing until the webhook serves): deploy/webhook.yaml's configuration under the chart's name, its Service an ExternalName to localhost (see run.test.ts).
    const [service, vwc] = yamlObjects(join(repoRoot, 'deploy/webhook.yaml')) as [Obj, Obj & { webhooks: { clientConfig: { service: { port: number } } }[] }];
    for (const w of vwc.webhooks) w.clientConfig.service.port = port;
    await o.create({ ...service, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'webhook', port }] } });
    await o.create({ ...vwc, metadata: { ...vwc.metadata, name: VWC_NAME } });

    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      toYaml({
        ...deployedConfig(),
        spireServerSocketPath: spire.socketPath,
        clusterDomain: 'cluster.local',
        gcInterval: '1h',
        logEncoding: 'json',
        metrics: { bindAddress: '127.0.0.1:0' },
        health: { healthProbeBindAddress: '127.0.0.1:0' },
        webhook: { host: '127.0.0.1', port },
        // As the chart writes them.
        validatingWebhookConfigurationName: VWC_NAME,
        leaderElection: { leaderElect: true, resourceName: '3a9c1f2e.spiffe.io', resourceNamespace: 'spire-server' },
      }),
    );
    cli = spawnCli(['run', '--config', config], { env: { KUBECONFIG: kubeconfig } });
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
    const health = await servedAt(cli!, 'health probes');
    const metrics = `${await servedAt(cli!, 'metrics')}/metrics`;
    await eventually(async () => (await httpGet(`${health}/readyz`)).status === 200, '/readyz answers 200', 60_000);
    const entry = () => spire.entries.all().find((e) => e.spiffeId.path === '/svc/api');
    await eventually(() => entry()?.dnsNames.length === 4, 'the entry with the Service names', 60_000);
    expect(entry()?.dnsNames).toEqual(['api', 'api.shop', 'api.shop.svc', 'api.shop.svc.cluster.local']);
    expect((await httpGet(metrics)).body).toMatch(/^spire_reconciler_api_forbidden\{resource="endpointslices"\} 1$/m);
    const status = async () => (await plane.request<{ status?: { conditions?: { type: string; status: string; reason: string }[] } }>('GET', '/apis/spire.spiffe.io/v1alpha1/clusterspiffeids/svc')).status;
    await eventually(async () => (await status())?.conditions !== undefined, 'the condition is written');
    expect((await status())?.conditions).toMatchObject([{ type: 'ServiceDNSNames', status: 'True', reason: 'FromEndpoints' }]);
    // The webhook configuration under the chart's name was read and its caBundle written.
    const vwc = await plane.request<{ webhooks: { clientConfig: { caBundle?: string } }[] }>('GET', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${VWC_NAME}`);
    expect(vwc.webhooks.every((w) => (w.clientConfig.caBundle ?? '') !== '')).toBe(true);
  });

  it('a render failure it may not record as an event (events only in its namespace) is a warning and a metric', async () => {
    await plane.request('POST', '/apis/spire.spiffe.io/v1alpha1/clusterspiffeids', { body: csid('broken', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.missing }}', namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }) });
    const metrics = `${await servedAt(cli!, 'metrics')}/metrics`;
    await eventually(async () => /^spire_reconciler_api_forbidden\{resource="events"\} 1$/m.test((await httpGet(metrics)).body), 'the denied event is counted', 60_000);
    expect(cli!.output()).toContain('events cannot be recorded (reconciling goes on)');
    const health = await servedAt(cli!, 'health probes');
    expect((await httpGet(`${health}/readyz`)).status).toBe(200);
  });
});
