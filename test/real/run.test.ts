/**
 * `spire-reconciler run` as a process against a real API server, with its
 * ServiceAccount's token under deploy/ RBAC: the admission webhook called by
 * kube-apiserver over TLS, and two replicas failing over on the Lease when the
 * leader is SIGKILLed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { KubeApiError } from '../../src/kube/rest.js';
import { exitCode, httpGet, logLines, repoRoot, servedAt, spawnCli, waitForOutput } from '../support/cli.js';
import { freePort } from '../support/ports.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { controllerKubeConfig, csid, DEPLOY_RBAC, deployedConfig, eventually, node, ns, type Obj, objects, pod, yamlObjects } from './world.js';

const TD = 'example.org';

describe('`run` on a real API server, under deploy/ RBAC', () => {
  let plane: ControlPlane;
  let o: ReturnType<typeof objects>;
  let dir: string;
  let spire: MemorySpireServer;
  let kubeconfig: string;
  const replicas: ReturnType<typeof spawnCli>[] = [];

  /** The deployed config file with what a test cannot share with a cluster (sockets, ports). */
  const writeConfig = (name: string, over: Record<string, unknown>) => {
    const path = join(dir, name);
    writeFileSync(
      path,
      toYaml({
        ...deployedConfig(),
        spireServerSocketPath: spire.socketPath,
        clusterDomain: 'cluster.local',
        gcInterval: '1h',
        logEncoding: 'json',
        metrics: { bindAddress: '127.0.0.1:0' },
        health: { healthProbeBindAddress: '127.0.0.1:0' },
        ...over,
      }),
    );
    return path;
  };
  const start = (config: string, env: Record<string, string> = {}) => {
    const cli = spawnCli(['run', '--config', config], { env: { KUBECONFIG: kubeconfig, ...env } });
    replicas.push(cli);
    return cli;
  };
  const entryPaths = () => spire.entries.all().map((e) => e.spiffeId.path).sort();

  beforeAll(async () => {
    plane = await startControlPlane();
    o = objects(plane);
    dir = mkdtempSync(join(tmpdir(), 'real-run-'));
    kubeconfig = join(dir, 'kubeconfig');
    plane.writeKubeconfig(kubeconfig, await controllerKubeConfig(plane, DEPLOY_RBAC));
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: TD });
    await o.create(node('node-1'));
  });
  afterEach(async () => {
    for (const r of replicas.splice(0)) {
      if (r.exitCode === null && r.signalCode === null) {
        const exited = exitCode(r);
        r.kill('SIGKILL');
        await exited;
      }
    }
  });
  afterAll(async () => {
    await spire?.stop();
    await plane?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the admission webhook that kube-apiserver calls over TLS, and is ready once it can', async () => {
    const port = await freePort();
    // deploy/webhook.yaml's ValidatingWebhookConfiguration, with the Service's port where this test's
    // webhook listens. The Service stands in for kube-proxy: an ExternalName to localhost, so the API
    // server dials localhost:<port> and checks the certificate for spire-reconciler-webhook.spire-server.svc.
    const [service, vwc] = yamlObjects(join(repoRoot, 'deploy/webhook.yaml')) as [Obj, Obj & { webhooks: { clientConfig: { service: { port: number } } }[] }];
    expect([service.kind, vwc.kind]).toEqual(['Service', 'ValidatingWebhookConfiguration']);
    for (const w of vwc.webhooks) w.clientConfig.service.port = port;
    await o.create({ ...service, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'webhook', port }] } });
    await o.create(vwc);
    try {
      await webhookScenario(vwc);
    } finally {
      // Left behind, it would send the next test's creates to a webhook that is gone.
      for (const kind of ['clusterspiffeids', 'clusterstaticentries', 'clusterfederatedtrustdomains']) await plane.request('DELETE', `/apis/spire.spiffe.io/v1alpha1/${kind}/valid`).catch(() => undefined);
      await o.delete(vwc);
      await o.delete(service);
    }
  });

  async function webhookScenario(vwc: Obj) {
    const port = (vwc as Obj & { webhooks: { clientConfig: { service: { port: number } } }[] }).webhooks[0]!.clientConfig.service.port;
    const cli = start(writeConfig('webhook.yaml', { webhook: { host: '127.0.0.1', port }, leaderElection: { leaderElect: false } }));
    const health = await servedAt(cli, 'health probes');
    await eventually(async () => (await httpGet(`${health}/readyz/webhook-certificate`)).status === 200, 'a webhook certificate', 60_000);
    // The caBundle the API server verifies our certificate with was written by the controller, under deploy/ RBAC.
    const stored = await o.get<{ webhooks: { clientConfig: { caBundle?: string } }[] }>(vwc);
    for (const w of stored!.webhooks) expect(Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString()).toContain('-----BEGIN CERTIFICATE-----');

    // Admitted: a valid object of each kind.
    await o.create(csid('valid', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}' }));
    await o.create({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', metadata: { name: 'valid' }, spec: { spiffeID: `spiffe://${TD}/gw`, parentID: `spiffe://${TD}/spire/server`, selectors: ['unix:uid:1000'] } });
    await o.create({
      apiVersion: 'spire.spiffe.io/v1alpha1',
      kind: 'ClusterFederatedTrustDomain',
      metadata: { name: 'valid' },
      spec: { trustDomain: 'partner.org', bundleEndpointURL: 'https://partner.org/bundle', bundleEndpointProfile: { type: 'https_web' } },
    });

    // Denied, with our message, by the API server that called us.
    const denial = async (obj: object) => {
      try {
        await o.create(obj);
      } catch (err) {
        if (err instanceof KubeApiError) return { status: err.statusCode, message: err.message };
        throw err;
      }
      throw new Error('admitted');
    };
    expect(await denial(csid('bad-template', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ lower .PodMeta.Name }}' }))).toEqual({
      status: 403,
      message: expect.stringContaining('admission webhook "vclusterspiffeid.kb.io" denied the request: ClusterSPIFFEID bad-template: spec.spiffeIDTemplate: template: 1:'),
    });
    expect(
      await denial({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', metadata: { name: 'bad-id' }, spec: { spiffeID: 'not-a-spiffe-id', parentID: `spiffe://${TD}/spire/server`, selectors: ['unix:uid:1000'] } }),
    ).toEqual({ status: 403, message: expect.stringContaining('admission webhook "vclusterstaticentry.spire-reconciler.spiffe.io" denied the request: ClusterStaticEntry bad-id: spec.spiffeID: ') });
    expect(
      await denial({
        apiVersion: 'spire.spiffe.io/v1alpha1',
        kind: 'ClusterFederatedTrustDomain',
        metadata: { name: 'own-td' },
        spec: { trustDomain: TD, bundleEndpointURL: 'https://example.org/bundle', bundleEndpointProfile: { type: 'https_web' } },
      }),
    ).toEqual({ status: 403, message: expect.stringContaining('admission webhook "vclusterfederatedtrustdomain.kb.io" denied the request: ClusterFederatedTrustDomain own-td: spec.trustDomain: ') });
    // An update is checked too.
    await expect(o.patch(csid('valid', {}), { spec: { spiffeIDTemplate: 'spiffe://other.org/x' } })).rejects.toThrow(/denied the request: ClusterSPIFFEID valid: spec.spiffeIDTemplate: /);
  }

  it('two replicas: only the leader writes, and a standby takes over when it is SIGKILLed', async () => {
    await o.create(ns('ha', { t: 'ha' }));
    await o.create(csid('ha', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ha/{{ .PodMeta.Name }}', namespaceSelector: { matchLabels: { t: 'ha' } } }));
    const config = writeConfig('ha.yaml', {
      metrics: { bindAddress: '0' },
      leaderElection: { leaderElect: true, resourceName: 'spire-reconciler-leader-election', resourceNamespace: 'spire-server', leaseDuration: '3s', renewDeadline: '2s', retryPeriod: '500ms' },
    });
    const [a, b] = [start(config, { ENABLE_WEBHOOKS: 'false' }), start(config, { ENABLE_WEBHOOKS: 'false' })];
    await Promise.all([a, b].map((r) => waitForOutput(r!, /live mode started/, 60_000)));
    await eventually(() => [a, b].some((r) => r!.output().includes('became leader')), 'a leader is elected');
    const leader = [a, b].find((r) => r!.output().includes('became leader'))!;
    const standby = [a, b].find((r) => r !== leader)!;

    await o.create(pod('ha', 'first'));
    await eventually(() => entryPaths().includes('/ha/first'), 'the leader wrote the first entry');

    leader.kill('SIGKILL'); // a crash: the Lease is not released
    await o.create(pod('ha', 'second')); // made while nobody leads
    await waitForOutput(standby, /became leader/, 30_000);
    await eventually(() => entryPaths().filter((p) => p.startsWith('/ha/')).join() === '/ha/first,/ha/second', 'the new leader wrote the entry made during the failover');
    expect(logLines(standby).filter((l) => (l.level as number) >= 50)).toEqual([]);

    standby.kill('SIGTERM');
    expect(await exitCode(standby)).toBe(0);
    const lease = await o.get<{ spec: { holderIdentity?: string | null } }>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'spire-reconciler-leader-election', namespace: 'spire-server' } });
    expect(lease?.spec.holderIdentity ?? null).toBeNull();
  });
});
