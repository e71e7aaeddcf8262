/**
 * No single object or request takes the controller down: `spire-reconciler
 * run` in live mode, as a child process with the heap deploy/ gives it
 * (--max-old-space-size=192), facing a stored ClusterSPIFFEID whose template
 * is 950 KB of 50,000 actions (it used to exhaust the heap at every start: a
 * crash loop) and hostile admission requests (a 1.9 MB template, twelve
 * concurrent 7.9 MB bodies of empty objects, a body over the limit). It keeps
 * running and reconciling, refuses the object with a named error, counts it,
 * and keeps the entries that object declared before. Every request it sends
 * to the API server is one deploy/'s RBAC allows.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { eventually } from '../live/world.js';
import { exitCode, httpGet as get, endProcessTest, logLines, servedAt, spawnCli, waitForOutput } from '../support/cli.js';
import { deployedTestConfig, deployedWebhookConfiguration, pod, seedDeployedCluster } from '../support/deployed.js';
import { freePort } from '../support/ports.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { deniedByDeployRbac, usedVerbs } from '../support/rbac.js';
import { PATHS, post, review } from '../webhook/helpers.js';

const TD = 'example.org';
const CSID = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID' } as const;
const SELECTED = { 'spiffe.io/spiffe-id': 'true' };
/** deploy/webhook.yaml's Service, as the API server names it when it calls the webhook. */
const SERVICE_DNS = 'spire-reconciler-webhook.spire-server.svc';
const HUGE_TEMPLATE = `spiffe://example.org/legacy/${'{{ .PodMeta.Name }}'.repeat(50_000)}`;

describe('under the heap deploy/ sets, a huge stored object and hostile admission requests leave the controller running', () => {
  let dir: string;
  let kube: FakeKubeApiServer;
  let spire: MemorySpireServer;
  let cli: ReturnType<typeof spawnCli> | undefined;
  let webhookPort: number;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'run-hostile-'));
    const socketPath = join(dir, 'api.sock');
    kube = await FakeKubeApiServer.start();
    kube.writeKubeconfig(join(dir, 'kubeconfig'));
    seedDeployedCluster(kube);
    kube.create({ ...CSID, metadata: { name: 'workloads' }, spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}', podSelector: { matchLabels: SELECTED } } });
    // Stored before any webhook could refuse it (or while it was down).
    kube.create({ ...CSID, metadata: { name: 'huge' }, spec: { spiffeIDTemplate: HUGE_TEMPLATE, podSelector: { matchLabels: { app: 'legacy' } } } });
    kube.create(pod('shop', 'web', SELECTED));
    kube.create(pod('shop', 'legacy', { app: 'legacy' }));
    const legacyUid = kube.get('v1', 'Pod', 'legacy', 'shop')?.metadata?.uid as string;
    // The entry the object declared for its pod before it was edited into the huge one.
    spire = await MemorySpireServer.start({
      socketPath,
      trustDomain: TD,
      seed: {
        entries: [
          {
            id: 'scm-legacy',
            spiffe_id: { trust_domain: TD, path: '/legacy/web' },
            parent_id: { trust_domain: TD, path: '/spire/agent/k8s_psat/demo/node-1' },
            selectors: [{ type: 'k8s', value: `pod-uid:${legacyUid}` }],
          },
        ],
      },
    });
    webhookPort = await freePort();
    const config = deployedTestConfig(socketPath, webhookPort);
    writeFileSync(join(dir, 'config.yaml'), toYaml(config));
  });

  afterEach(async () => {
    await endProcessTest({ cli, servers: [spire, kube], dir });
    cli = undefined;
  });

  const entryIds = () => spire.entries.all().map((e) => e.id);
  const entryPaths = () => spire.entries.all().map((e) => e.spiffeId.path).sort();

  it('refuses the object by name, counts it, keeps its entries, and reconciles the rest', { timeout: 240_000 }, async () => {
    cli = spawnCli(['run', '--config', join(dir, 'config.yaml')], { env: { KUBECONFIG: join(dir, 'kubeconfig'), NODE_OPTIONS: '--max-old-space-size=192' } });
    const health = await servedAt(cli, 'health probes');
    const metricsUrl = `${await servedAt(cli, 'metrics')}/metrics`;
    await waitForOutput(cli, /"msg":"live mode started"/, 120_000);

    // The other object's pod gets its entry.
    await eventually(() => entryPaths().includes('/ns/shop/sa/web'), 'the selected pod has its entry', 60_000);
    // A full pass has judged the huge object: counted, by kind.
    const invalid = async () => Number((await get(metricsUrl)).body.match(/^spire_reconciler_invalid_objects\{kind="ClusterSPIFFEID"\} (\d+)$/m)?.[1]);
    await eventually(async () => (await invalid()) === 1, 'the metric counts the refused object', 60_000);
    // Named in the log with its field and reason.
    const problem = logLines(cli).find((l) => typeof l.msg === 'string' && String(JSON.stringify(l)).includes('ClusterSPIFFEID huge: spec.spiffeIDTemplate: template is'));
    expect(JSON.stringify(problem)).toContain(`template is ${HUGE_TEMPLATE.length} bytes, over the limit of 16384`);
    // What it declared before is unknown now, not absent: its entry stays.
    expect(entryIds()).toContain('scm-legacy');

    // The webhook, whose certificate SPIRE minted and whose CA is in the configuration.
    await eventually(async () => (await get(`${health}/readyz/webhook-certificate`)).status === 200, 'a webhook certificate', 60_000);
    const vwc = kube.get('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', deployedWebhookConfiguration().metadata.name) as { webhooks: { clientConfig: { caBundle?: string } }[] };
    const tls = { ca: Buffer.from(vwc.webhooks[0]!.clientConfig.caBundle ?? '', 'base64').toString('utf8'), servername: SERVICE_DNS };

    // 1.9 MB of template: denied by its size, never compiled.
    const template = `spiffe://example.org/${'{{ .PodMeta.Name }}'.repeat(100_000)}`;
    const denied = await post(webhookPort, PATHS.csid, JSON.stringify(review('ClusterSPIFFEID', 'CREATE', { metadata: { name: 'big' }, spec: { spiffeIDTemplate: template } })), tls);
    expect(denied.json.response).toMatchObject({ allowed: false, status: { code: 403, message: `ClusterSPIFFEID big: spec.spiffeIDTemplate: template is ${template.length} bytes, over the limit of 16384` } });

    // Twelve 7.9 MB bodies of empty objects at once: each refused before it is parsed, or told to come back.
    const empties = `[${'{},'.repeat(2_630_000)}{}]`;
    const flood = await Promise.all(Array.from({ length: 12 }, () => post(webhookPort, PATHS.csid, empties, tls)));
    for (const r of flood) expect([400, 429]).toContain(r.status);
    expect(flood.filter((r) => r.status === 400).length).toBeGreaterThan(0);

    // Over the size limit: a 413 with the reason, not a reset.
    const over = await post(webhookPort, PATHS.csid, ' '.repeat(9 * 1024 * 1024), tls);
    expect(over.status).toBe(413);
    expect(over.body).toMatch(/^request body over 8388608 bytes/);

    // Still alive, and still reconciling.
    expect(cli.exitCode).toBeNull();
    expect(await get(`${health}/healthz`)).toMatchObject({ status: 200, body: 'ok' });
    kube.create(pod('shop', 'api', SELECTED));
    await eventually(() => entryPaths().includes('/ns/shop/sa/api'), 'a new pod still gets its entry', 60_000);
    expect(entryIds()).toContain('scm-legacy');

    cli.kill('SIGTERM');
    expect(await exitCode(cli)).toBe(0);

    // Along the way it used every kind of request it makes (events for the refused object, status,
    // the Lease, the webhook's configuration), and deploy/'s RBAC allows each one.
    expect(usedVerbs(kube.requests)).toEqual(
      expect.arrayContaining([
        'create core/events',
        'patch spire.spiffe.io/clusterspiffeids/status',
        'list core/pods',
        'watch core/pods',
        'create coordination.k8s.io/leases',
        'get coordination.k8s.io/leases',
        'update coordination.k8s.io/leases',
        'get admissionregistration.k8s.io/validatingwebhookconfigurations',
        'patch admissionregistration.k8s.io/validatingwebhookconfigurations',
      ]),
    );
    expect(deniedByDeployRbac(kube.requests)).toEqual([]);
  });
});
