/**
 * `spire-reconciler run` in live Kubernetes mode, as a child process started
 * the way deploy/ starts it (deploy/configmap.yaml's config file, the
 * ValidatingWebhookConfiguration of deploy/webhook.yaml in the cluster),
 * observed from outside as an operator observes it: the probe and metrics
 * endpoints over HTTP, the entries in SPIRE, the ClusterSPIFFEID's status and
 * the Lease in the API server, the exit code and the log.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import type { ClusterSPIFFEIDStats } from '../../src/api/index.js';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { exitCode, httpGet as get, killIfRunning, logLines, servedAt, spawnCli, waitForOutput } from '../support/cli.js';
import { deployedConfig, deployedWebhookConfiguration, ns, pod } from '../support/deployed.js';
import { eventually } from '../live/world.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { freePort } from '../support/ports.js';

const TD = 'example.org';
const CLUSTER = 'demo';
const CSID = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID' } as const;
const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' } as const;

const SELECTED = { 'spiffe.io/spiffe-id': 'true' };

describe('`run` in live mode, as deployed beside SPIRE: probes, entries, metrics, status and shutdown as an operator sees them', () => {
  let dir: string;
  let kube: FakeKubeApiServer;
  let spire: MemorySpireServer | undefined;
  let cli: ReturnType<typeof spawnCli> | undefined;
  let socketPath: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'run-live-'));
    socketPath = join(dir, 'spire-server', 'api.sock');
    kube = await FakeKubeApiServer.start();
    kube.writeKubeconfig(join(dir, 'kubeconfig'));
    env = { KUBECONFIG: join(dir, 'kubeconfig') };

    kube.create(deployedWebhookConfiguration());
    kube.create(ns('shop'));
    kube.create(ns('kube-system'));
    kube.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, spec: {} });
    kube.create({
      ...CSID,
      metadata: { name: 'workloads' },
      spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}', podSelector: { matchLabels: SELECTED } },
    });
    kube.create(pod('shop', 'web', SELECTED));
    // Not selected: no label.
    kube.create(pod('shop', 'cron', {}));
    // Labelled, but in a namespace ignored by default.
    kube.create(pod('kube-system', 'dns', SELECTED));

    // The deployed config file; only what cannot be the same in a test differs.
    const config = deployedConfig();
    Object.assign(config, {
      spireServerSocketPath: socketPath,
      // Deployed, it is detected from the cluster's DNS.
      clusterDomain: 'cluster.local',
      // Only watch events drive passes here, so a missed event shows.
      gcInterval: '1h',
      logEncoding: 'json',
      metrics: { bindAddress: '127.0.0.1:0' },
      health: { healthProbeBindAddress: '127.0.0.1:0' },
      webhook: { host: '127.0.0.1', port: await freePort() },
    });
    expect(config).toMatchObject({ trustDomain: TD, clusterName: CLUSTER, leaderElection: { leaderElect: true } });
    writeFileSync(join(dir, 'config.yaml'), toYaml(config));
  });

  afterEach(async () => {
    await killIfRunning(cli);
    cli = undefined;
    await spire?.stop();
    spire = undefined;
    await kube.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const entries = () => spire?.entries.all() ?? [];
  const entryPaths = () => entries().map((e) => e.spiffeId.path).sort();
  const stats = () => (kube.get(CSID.apiVersion, CSID.kind, 'workloads') as { status?: { stats?: Partial<ClusterSPIFFEIDStats> } }).status?.stats;
  const lease = () => kube.get(LEASE.apiVersion, LEASE.kind, 'spire-reconciler-leader-election', 'spire-server') as { spec: { holderIdentity?: string | null } } | undefined;

  it('is ready at once in the SPIRE server pod, says it has no webhook certificate until SPIRE mints one, then keeps SPIRE equal to the cluster, reports it, and stops cleanly on SIGTERM', { timeout: 120_000 }, async () => {
    // Started before SPIRE, as a sidecar may be.
    cli = spawnCli(['run', '--config', join(dir, 'config.yaml')], { env });
    const health = await servedAt(cli, 'health probes');
    const metricsUrl = `${await servedAt(cli, 'metrics')}/metrics`;
    expect(health).not.toBe(metricsUrl.replace(/\/metrics$/, ''));
    await waitForOutput(cli, /waiting for the SPIRE server at /);

    // Alive and ready (the SPIRE server pod's readiness is SPIRE's), but no serving certificate without SPIRE: its condition says so.
    expect(await get(`${health}/healthz`)).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(`${health}/readyz`)).toMatchObject({ status: 200, body: 'ok' });
    const noCert = await get(`${health}/readyz/webhook-certificate`);
    expect(noCert.status).toBe(503);
    expect(noCert.body).toMatch(/^webhook-certificate: no serving certificate yet: .+$/m);
    expect(entries()).toEqual([]);

    spire = await MemorySpireServer.start({ socketPath, trustDomain: TD });
    await eventually(async () => (await get(`${health}/readyz/webhook-certificate`)).status === 200, '/readyz/webhook-certificate answers 200');
    expect(await get(`${health}/readyz`)).toMatchObject({ status: 200, body: 'ok' });
    const verbose = await get(`${health}/readyz?verbose`);
    expect(verbose.body.split('\n')).toEqual([
      '[+]informers-synced ok (does not decide readiness)',
      '[+]webhook-certificate ok (does not decide readiness)',
      'readiness check passed',
      '',
    ]);
    await waitForOutput(cli, /"msg":"live mode started"/);

    // The one selected pod, outside the ignored namespaces, has its entry: the ClusterSPIFFEID's template,
    // the default parent ID (the node's agent), the pod's UID, and an ID with the default prefix.
    // Only the pod's: the probe of the fields SPIRE stores makes an entry of its own and deletes it at once.
    await eventually(() => entries().length === 1 && entries()[0]!.spiffeId.path === '/ns/shop/sa/web', 'the selected pod has its entry');
    const webUid = kube.get('v1', 'Pod', 'web', 'shop')?.metadata?.uid;
    const nodeUid = kube.get('v1', 'Node', 'node-1')?.metadata?.uid;
    const [entry] = entries();
    expect(webUid && nodeUid).toBeTruthy();
    expect(entry!.spiffeId).toEqual({ trustDomain: TD, path: '/ns/shop/sa/web' });
    expect(entry!.parentId).toEqual({ trustDomain: TD, path: `/spire/agent/k8s_psat/${CLUSTER}/${nodeUid}` });
    expect(entry!.selectors).toContainEqual({ type: 'k8s', value: `pod-uid:${webUid}` });
    expect(entry!.id).toMatch(new RegExp(`^scm-${CLUSTER}\\.[0-9a-f]{8}`));
    expect(entry!.id).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // The leader (leader election is on, as deployed) writes the ClusterSPIFFEID's status.
    expect(lease()?.spec.holderIdentity).toMatch(new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_`));
    await eventually(() => stats()?.podsSelected === 1, 'the status counts the selected pod');
    expect(stats()).toEqual({
      // As upstream: an ignored namespace counts as selected too (shop and kube-system).
      namespacesSelected: 2,
      namespacesIgnored: 1,
      podsSelected: 1,
      podEntryRenderFailures: 0,
      entriesMasked: 0,
      entriesToSet: 1,
      entryFailures: 0,
      entriesWithoutFederation: 0,
    });

    // A pod created while running gets its entry; a deleted pod loses its own.
    kube.create(pod('shop', 'api', SELECTED));
    await eventually(() => entryPaths().join() === '/ns/shop/sa/api,/ns/shop/sa/web', 'the new pod has its entry');
    kube.delete('v1', 'Pod', 'web', 'shop');
    await eventually(() => entryPaths().join() === '/ns/shop/sa/api', "the deleted pod's entry is gone");
    await eventually(() => stats()?.podsSelected === 1 && stats()?.entriesToSet === 1, 'the status follows');

    // Prometheus text with the controller's own metrics: what it did, and that it leads.
    // SPIRE holds the result before the controller has counted it, so wait for the count.
    await eventually(async () => /^spire_reconciler_entries_total\{op="deleted"\} 1$/m.test((await get(metricsUrl)).body), 'the delete is counted');
    const metrics = await get(metricsUrl);
    expect(metrics.status).toBe(200);
    expect(metrics.contentType).toMatch(/^text\/plain/);
    const sample = (line: RegExp) => Number(metrics.body.match(line)?.[1]);
    expect(sample(/^spire_reconciler_entries_total\{op="created"\} (\d+)$/m)).toBe(2);
    expect(sample(/^spire_reconciler_entries_total\{op="deleted"\} (\d+)$/m)).toBe(1);
    expect(sample(/^spire_reconciler_leader (\d+)$/m)).toBe(1);
    expect(metrics.body).toMatch(/^spire_reconciler_pass_seconds_count \d+$/m);
    expect(metrics.body).toMatch(/^process_resident_memory_bytes \d+/m);

    // SIGTERM: exit 0, "stopped", the lease released for a standby, and SPIRE's entries left as they are.
    const before = entries().map((e) => e.id);
    cli.kill('SIGTERM');
    expect(await exitCode(cli)).toBe(0);
    expect(logLines(cli).map((l) => l.msg)).toContain('stopped');
    expect(logLines(cli).filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(lease()?.spec.holderIdentity ?? null).toBeNull();
    expect(entries().map((e) => e.id)).toEqual(before);
  });

  // A sidecar's readiness is the SPIRE server pod's (docs/observability.md, "Health probes"): waiting for SPIRE
  // would keep SPIRE out of its own Service. What it waits for is still said, condition by condition.
  it('without the webhook configuration, says its caches have synced, even before SPIRE answers', { timeout: 60_000 }, async () => {
    kube.delete('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', deployedWebhookConfiguration().metadata.name);
    cli = spawnCli(['run', '--config', join(dir, 'config.yaml')], { env });
    const health = await servedAt(cli, 'health probes');
    await waitForOutput(cli, /waiting for the SPIRE server at /);
    // The informers list, then watch: once they watch, the caches sync within moments.
    await eventually(() => kube.openWatches > 0, 'the informers watch');
    await eventually(async () => (await get(`${health}/readyz/informers-synced`)).status === 200, '/readyz/informers-synced answers 200 without SPIRE', 10_000);
    expect((await get(`${health}/readyz/webhook-certificate`)).status).toBe(200);
    // Stopped before SPIRE ever answered: a clean exit, and no claim that live mode started.
    cli.kill('SIGTERM');
    expect(await exitCode(cli)).toBe(0);
    const messages = logLines(cli).map((l) => l.msg);
    expect(messages).toContain('stopped');
    expect(messages).not.toContain('live mode started');
  });
});
