/**
 * Install and removal in the order deploy/README.md (the sidecar) and
 * docs/standalone.md (the Deployment) give, on a real API server, our
 * controller running as a process where the pod would run it: at no step
 * does a fail-closed webhook configuration point at a webhook that does not
 * answer, so after every step a ClusterSPIFFEID can be created and deleted.
 * The one window is the documented one: from the webhook configuration's
 * creation until the controller has minted its serving certificate for the
 * configuration's Service and written the caBundle (the README's
 * `kubectl wait` ends it), which is measured and printed.
 *
 * No kubelet or controller runs here: the StatefulSet and the Deployment
 * are objects only, the controller process stands for their pod, started
 * once the patch or the Deployment is applied and stopped when they are
 * removed; the webhook's Service is an ExternalName to localhost, where the
 * process listens, in place of kube-proxy (as in run.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml, parse as parseYaml } from 'yaml';
import { MemorySpireServer, MemoryWorkloadApi } from '../../src/memspire/index.js';
import { exitCode, httpGet, killIfRunning, repoRoot, servedAt, spawnCli } from '../support/cli.js';
import { freePort } from '../support/ports.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { applyAll, deleteAll, kustomize, patchArgument, probe, readmeCommand, unreachable } from './install-order.js';
import { eventually, node, type Obj, objects, yamlObjects } from './world.js';

const TD = 'example.org';
type Vwc = Obj & { webhooks: { clientConfig: { caBundle?: string; service: { name: string; namespace: string; port?: number } } }[] };

/** The SPIRE server's StatefulSet as the README expects to find it (no helm release), before the patch. */
const spireServerStatefulSet: Obj = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'spire-server', namespace: 'spire-server' },
  spec: {
    serviceName: 'spire-server',
    selector: { matchLabels: { 'app.kubernetes.io/name': 'server' } },
    template: {
      metadata: { labels: { 'app.kubernetes.io/name': 'server' } },
      spec: {
        serviceAccountName: 'spire-server',
        containers: [{ name: 'spire-server', image: 'ghcr.io/spiffe/spire-server:1.15.3', volumeMounts: [{ name: 'spire-server-socket', mountPath: '/tmp/spire-server/private' }] }],
        volumes: [{ name: 'spire-server-socket', emptyDir: {} }],
      },
    },
  },
};

describe('install and removal never leave a fail-closed webhook without an endpoint, on a real API server', () => {
  let plane: ControlPlane;
  let o: ReturnType<typeof objects>;
  let dir: string;
  let cli: ReturnType<typeof spawnCli> | undefined;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    plane = await startControlPlane();
    o = objects(plane);
    dir = mkdtempSync(join(tmpdir(), 'real-install-'));
    await o.create(node('node-1'));
  });
  afterEach(async () => {
    await killIfRunning(cli);
    cli = undefined;
  });
  afterAll(async () => {
    await plane?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Asked after every step: a ClusterSPIFFEID can be created and deleted. */
  const createsWork = async (step: string) => expect(await probe(plane), `after ${step}`).toBeUndefined();

  /** A webhook file's Service and configuration as this lane routes them: to localhost:port, where the process listens. */
  function laneWebhook(file: string, port: number): [Obj, Vwc] {
    const [service, vwc] = yamlObjects(join(repoRoot, file)) as [Obj, Vwc];
    expect([service.kind, vwc.kind]).toEqual(['Service', 'ValidatingWebhookConfiguration']);
    for (const w of vwc.webhooks) w.clientConfig.service.port = port;
    return [{ ...service, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'webhook', port }] } }, vwc];
  }

  /**
   * Applies the webhook, then waits as the README's `kubectl wait` does for the
   * caBundle, asking all the while whether a ClusterSPIFFEID can be created:
   * the refusals in that window, and how long it lasted.
   */
  async function applyWebhook(file: string, port: number): Promise<{ service: Obj; vwc: Vwc; windowMs: number; refused: string[] }> {
    const [service, vwc] = laneWebhook(file, port);
    const t0 = Date.now();
    await applyAll(plane, [service, vwc]);
    const refused: string[] = [];
    let written = false;
    const waited = eventually(
      async () => (written = (await o.get<Vwc>(vwc))!.webhooks.every((w) => !!w.clientConfig.caBundle)),
      'the controller wrote the caBundle (kubectl wait --for=jsonpath=...caBundle)',
      60_000,
    );
    while (!written) {
      const m = await probe(plane);
      if (m) refused.push(m);
      await sleep(100);
    }
    await waited;
    const windowMs = Date.now() - t0;
    // From then on the API server calls a webhook that answers: valid objects are admitted, invalid ones denied by it.
    for (let i = 0; i < 5; i++) await createsWork(`the caBundle was written (probe ${i + 1})`);
    expect(await probe(plane, false)).toMatch(/admission webhook "vclusterspiffeid\.kb\.io" denied the request: ClusterSPIFFEID install-probe-\d+: spec\.spiffeIDTemplate/);
    return { service, vwc, windowMs, refused };
  }

  /** Deletes the webhook and waits until the API server no longer calls it (an object it would deny is admitted): how long that took. */
  async function deleteWebhook(service: Obj, vwc: Vwc): Promise<number> {
    const t0 = Date.now();
    await deleteAll(plane, [vwc, service]);
    await eventually(async () => (await probe(plane, false)) === undefined, 'the API server stops calling the deleted webhook', 30_000);
    return Date.now() - t0;
  }

  /** The controller as the pod runs it: `run` with the config the cluster holds, what a test cannot share replaced. */
  async function startController(configMap: { name: string }, kubeconfigOf: { namespace: string; serviceAccount: string }, over: Record<string, unknown>): Promise<{ health: string }> {
    const cm = await o.get<{ data: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: configMap.name, namespace: 'spire-server' } });
    const config = { ...(parseYaml(cm!.data['config.yaml']!) as Record<string, unknown>), clusterDomain: 'cluster.local', logEncoding: 'json', metrics: { bindAddress: '127.0.0.1:0' }, health: { healthProbeBindAddress: '127.0.0.1:0' }, ...over };
    const file = join(dir, `${configMap.name}.yaml`);
    writeFileSync(file, toYaml(config));
    const kubeconfig = join(dir, `${kubeconfigOf.serviceAccount}.kubeconfig`);
    plane.writeKubeconfig(kubeconfig, await plane.serviceAccount(kubeconfigOf.namespace, kubeconfigOf.serviceAccount));
    cli = spawnCli(['run', '--config', file], { env: { KUBECONFIG: kubeconfig } });
    return { health: await servedAt(cli, 'health probes') };
  }

  async function stopController(): Promise<void> {
    cli!.kill('SIGTERM');
    expect(await exitCode(cli!)).toBe(0);
    cli = undefined;
  }

  it('the sidecar (deploy/ and deploy/sidecar): the webhook applied once the container runs, deleted before it goes', async () => {
    const spire = await MemorySpireServer.start({ socketPath: join(dir, 'sidecar.sock'), trustDomain: TD });
    try {
      // What the README expects to find: the SPIRE server's StatefulSet.
      await o.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'spire-server' } });
      await o.create(spireServerStatefulSet);

      // Step 3: `kubectl apply -k deploy/`: CRDs, RBAC, config, and no webhook configuration.
      const base = kustomize('deploy');
      expect(base.map((x) => x.kind)).not.toContain('ValidatingWebhookConfiguration');
      await applyAll(plane, base);
      await createsWork('kubectl apply -k deploy/');

      // Step 4: the container added (the strategic-merge patch `kubectl patch --patch "$(kubectl kustomize deploy/sidecar)"` sends); its pod runs.
      const [patch] = kustomize('deploy/sidecar');
      await plane.request('PATCH', '/apis/apps/v1/namespaces/spire-server/statefulsets/spire-server', { body: patch, contentType: 'application/strategic-merge-patch+json' });
      const patched = await o.get<typeof spireServerStatefulSet & { spec: { template: { spec: { containers: { name: string }[] } } } }>(spireServerStatefulSet);
      expect(patched!.spec.template.spec.containers.map((c) => c.name).sort()).toEqual(['spire-reconciler', 'spire-server']);
      const port = await freePort();
      const { health } = await startController({ name: 'spire-reconciler-config' }, { namespace: 'spire-server', serviceAccount: 'spire-server' }, { spireServerSocketPath: spire.socketPath, webhook: { host: '127.0.0.1', port } });
      await eventually(async () => (await httpGet(`${health}/readyz/informers-synced`)).status === 200, 'the controller has synced', 60_000);
      await createsWork('the container runs');

      // Step 5: `kubectl apply -f deploy/webhook.yaml`, then `kubectl wait` for the caBundle.
      const install = await applyWebhook('deploy/webhook.yaml', port);
      expect(install.refused.every(unreachable), install.refused.join('\n')).toBe(true);

      // Removal, step 1: the webhook first.
      const stoppedCallingMs = await deleteWebhook(install.service, install.vwc);
      await createsWork('kubectl delete -f deploy/webhook.yaml');

      // Step 2: the container removed, with the README's own patch; its pod restarts without it.
      const remove = readmeCommand('deploy/README.md', 'kubectl patch statefulset spire-server -n spire-server -p');
      await plane.request('PATCH', '/apis/apps/v1/namespaces/spire-server/statefulsets/spire-server', { body: patchArgument(remove), contentType: 'application/strategic-merge-patch+json' });
      const removed = await o.get<{ spec: { template: unknown } }>(spireServerStatefulSet);
      expect(removed!.spec.template).toEqual(
        expect.objectContaining({ spec: expect.objectContaining({ containers: [expect.objectContaining({ name: 'spire-server' })], volumes: [expect.objectContaining({ name: 'spire-server-socket' })] }) }),
      );
      await stopController();
      await createsWork('the container is gone');

      // Step 3: RBAC and config, by name (`kubectl delete -k deploy/` would take the namespace and the CRDs).
      await deleteAll(
        plane,
        base.filter((x) => ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'ConfigMap'].includes(x.kind)),
      );
      await createsWork('RBAC and config deleted');

      // The order this replaces, for contrast: the webhook left behind with nothing serving it refuses every create.
      const [service, vwc] = laneWebhook('deploy/webhook.yaml', port);
      await applyAll(plane, [service, vwc]);
      let trap: string | undefined;
      await eventually(async () => unreachable((trap = await probe(plane))), 'the webhook left without an endpoint refuses creates', 30_000);
      await deleteAll(plane, [vwc, service]);
      await eventually(async () => (await probe(plane)) === undefined, 'creates work again once it is deleted', 30_000);

      console.log(
        `install order, sidecar: webhook applied after the container ran; ${install.refused.length} creates refused in the ${install.windowMs} ms until the caBundle was written (${[...new Set(install.refused.map(reason))].join('; ') || 'none'}); ` +
          `none refused after it or at any other step; on removal the API server stopped calling the deleted webhook within ${stoppedCallingMs} ms. The old order (webhook left behind): ${reason(trap!)}`,
      );
    } finally {
      await spire.stop();
    }
  });

  it('the standalone Deployment (deploy/standalone): the webhook applied once the Deployment is ready, deleted before it', async () => {
    const adminSocket = join(dir, 'admin.sock');
    const agentSocket = join(dir, 'agent', 'spire-agent.sock');
    const spire = await MemorySpireServer.start({ socketPath: adminSocket, trustDomain: TD, tcp: {} });
    let agent: MemoryWorkloadApi | undefined;
    try {
      // Steps 1-3: the CRDs (the lane's control plane has them), the admin entry, the config (the file's own, addresses replaced below).
      const b = spawnCli(['bootstrap', '--trust-domain', TD, '--cluster-name', 'demo', '--apply', '--socket', adminSocket]);
      expect(await exitCode(b), b.output()).toBe(0);
      agent = await MemoryWorkloadApi.start({ socketPath: agentSocket, spire, spiffeId: `spiffe://${TD}/spire-reconciler/demo` });

      // Step 4: `kubectl apply -k deploy/standalone`: everything but the webhook configuration.
      const base = kustomize('deploy/standalone');
      expect(base.map((x) => x.kind)).not.toContain('ValidatingWebhookConfiguration');
      await applyAll(plane, base);
      await createsWork('kubectl apply -k deploy/standalone');

      // Step 5: `kubectl rollout status`: its replica is Ready (in this layout readiness is the controller's own).
      const port = await freePort();
      const { health } = await startController(
        { name: 'spire-reconciler-standalone-config' },
        { namespace: 'spire-server', serviceAccount: 'spire-reconciler' },
        { spireServerAddress: spire.tcpAddress, workloadAPISocketPath: agentSocket, webhook: { host: '127.0.0.1', port } },
      );
      await eventually(async () => (await httpGet(`${health}/readyz`)).status === 200, 'the replica is ready', 60_000);
      await createsWork('the Deployment is ready');

      // Step 6: `kubectl apply -f deploy/standalone/webhook.yaml`, then `kubectl wait` for the caBundle.
      const install = await applyWebhook('deploy/standalone/webhook.yaml', port);
      expect(install.refused.every(unreachable), install.refused.join('\n')).toBe(true);
      expect((await httpGet(`${health}/readyz`)).status).toBe(200);

      // Removal: `kubectl delete -f deploy/standalone/webhook.yaml`, then `kubectl delete -k deploy/standalone`.
      const stoppedCallingMs = await deleteWebhook(install.service, install.vwc);
      await createsWork('kubectl delete -f deploy/standalone/webhook.yaml');
      await deleteAll(plane, base);
      await stopController();
      await createsWork('kubectl delete -k deploy/standalone');
      for (const x of base) expect(await o.get(x), `${x.kind}/${x.metadata.name}`).toBeUndefined();

      console.log(
        `install order, standalone: webhook applied after the replica was ready; ${install.refused.length} creates refused in the ${install.windowMs} ms until the caBundle was written (${[...new Set(install.refused.map(reason))].join('; ') || 'none'}); ` +
          `none refused after it or at any other step; on removal the API server stopped calling the deleted webhook within ${stoppedCallingMs} ms`,
      );
    } finally {
      await agent?.close();
      await spire.stop();
    }
  });
});

/** What a refusal says after the webhook's URL: why the call failed. */
function reason(message: string): string {
  return (/"https:[^"]*": (.*)$/.exec(message)?.[1] ?? message).replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
}
