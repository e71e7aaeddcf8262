/**
 * docs/migration.md's "Run plan first" recipe, with every program real:
 * spire-controller-manager v0.7.0 runs as the SPIRE helm chart's container
 * (its arguments, its config, its ClusterRole) against kube-apiserver and a
 * real SPIRE server, and registers the cluster's workloads, Service DNS
 * names (from core Endpoints, all the chart's RBAC allows) and the cluster
 * domain included. Then the recipe, step by step: the chart's config as its
 * ConfigMap holds it (no clusterDomain), the cluster domain the peer logged
 * at start, SPIRE's entries as `spire-server entry show -output json` prints
 * them, and `plan` reading the cluster as the controller's ServiceAccount.
 * The plan is empty: nothing to create, update or delete of what the peer
 * made. Each step is needed: without the cluster domain, or as the admin
 * (who may list EndpointSlices, which the controller may not), it is not.
 *
 * Needs the real SPIRE server and the peer (`npm run real-spire:install --
 * --peer`); skipped without them.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOnce } from '../../src/cli/one-pass.js';
import type { PlanReport } from '../../src/cli/report.js';
import { SpireClient } from '../../src/spire/index.js';
import { killIfRunning } from '../support/cli.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { peerBinary, type RealSpire, spireServerBinary, startRealSpire } from '../support/real-spire.js';
import { CHART, CHART_RBAC, chartConfig, chartCsid, startChartPeer, writeChartConfig } from './chart.js';
import { controllerKubeConfig, eventually, node, ns, objects, pod } from './world.js';

const quiet = pino({ level: 'silent' });
const TD = chartConfig.trustDomain;
const available = existsSync(spireServerBinary()) && existsSync(peerBinary());

describe.runIf(available)("migration.md's plan recipe on the chart's config is empty for what spire-controller-manager made", () => {
  let plane: ControlPlane;
  let spire: RealSpire;
  let client: SpireClient;
  let dir: string;
  let controller: KubeConfig;
  let peer: (ChildProcess & { output: () => string }) | undefined;

  beforeAll(async () => {
    plane = await startControlPlane();
    dir = mkdtempSync(join(tmpdir(), 'real-migration-plan-'));
    const kubeconfig = join(dir, 'kubeconfig');
    controller = await controllerKubeConfig(plane, CHART_RBAC);
    plane.writeKubeconfig(kubeconfig, controller);
    spire = await startRealSpire({ trustDomain: TD });
    client = new SpireClient({ socket: spire.socketPath });

    const o = objects(plane);
    await o.create(node('node-1'));
    await o.create(ns('shop'));
    // The chart's default ClusterSPIFFEID, and one with DNS names from a template and from Services.
    await o.create(chartCsid('spire-server-spire-default', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}' }));
    await o.create(
      chartCsid('web', {
        podSelector: { matchLabels: { app: 'web' } },
        spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/web/{{ .PodMeta.Name }}',
        dnsNameTemplates: ['{{ .PodMeta.Name }}.{{ .PodMeta.Namespace }}.svc.{{ .ClusterDomain }}'],
        autoPopulateDNSNames: true,
      }),
    );
    await o.create({
      apiVersion: 'spire.spiffe.io/v1alpha1',
      kind: 'ClusterStaticEntry',
      metadata: { name: 'gateway' },
      spec: { className: chartConfig.className, spiffeID: `spiffe://${TD}/gateway`, parentID: `spiffe://${TD}/spire/server`, selectors: ['k8s_psat:cluster:example-cluster'] },
    });
    const web = [await o.create(pod('shop', 'web-0', { app: 'web' })), await o.create(pod('shop', 'web-1', { app: 'web' }))];
    await o.create(pod('shop', 'api-0', { app: 'api' }));
    // What the endpoints controller would write for a Service over the web pods (no controller runs here).
    await o.create({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'web', namespace: 'shop' },
      subsets: [{ addresses: web.map((p, i) => ({ ip: `10.1.0.${i + 1}`, targetRef: { kind: 'Pod', name: p.metadata.name, namespace: 'shop', uid: p.metadata.uid } })) }],
    });

    // The peer as the chart runs it. No DNS answers here, so the domain it would detect in a pod is in its config.
    const { root } = await writeChartConfig(dir, { spireServerSocketPath: spire.socketPath, clusterDomain: 'cluster.local' });
    peer = startChartPeer(root, { KUBECONFIG: kubeconfig, ENABLE_WEBHOOKS: 'false' });
    const web0 = async () => (await client.listEntries()).find((e) => e.spiffe_id?.path === '/ns/shop/web/web-0');
    await eventually(async () => (await client.listEntries()).length === 6 && (await web0())?.dns_names.length === 5, `the peer registered every workload: ${peer?.output().slice(-2000)}`, 90_000);
    expect((await web0())?.dns_names.slice().sort()).toEqual(['web', 'web-0.shop.svc.cluster.local', 'web.shop', 'web.shop.svc', 'web.shop.svc.cluster.local']);
  }, 180_000);

  afterAll(async () => {
    await killIfRunning(peer);
    client?.close();
    await spire?.stop();
    await plane?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** `plan -o json` over the chart's config file as the ConfigMap holds it, the dump, and the cluster through `kc`. */
  async function plan(kc: KubeConfig, entries: string, clusterDomain?: string): Promise<PlanReport> {
    let out = '';
    const { code } = await runOnce(
      { config: join(CHART, 'controller-manager-config.yaml'), entries, output: 'json', ...(clusterDomain !== undefined ? { clusterDomain } : {}) },
      { apply: false, log: quiet, print: (s) => (out += s), kubeConfig: () => kc },
    );
    expect(code).toBe(0);
    return JSON.parse(out) as PlanReport;
  }

  const changes = (r: PlanReport) => ({ create: r.create.length, update: r.update.length, delete: r.delete.length, renderFailures: r.renderFailures.length, conflicts: r.conflicts.length });

  it('the recipe: the cluster domain from the peer\'s log, the entries from spire-server entry show, plan as the controller\'s ServiceAccount', async () => {
    // Step: the cluster domain the running spire-controller-manager detected, from its "Config loaded" line.
    const loaded = peer!.output().split('\n').find((l) => l.includes('Config loaded'));
    const domain = /"cluster domain": "([^"]*)"/.exec(loaded ?? '')?.[1];
    expect(domain).toBe('cluster.local');

    // Step: SPIRE's entries, as the recipe takes them from the SPIRE server's container.
    const shown = spawnSync(spireServerBinary(), ['entry', 'show', '-output', 'json', '-socketPath', spire.socketPath], { encoding: 'utf8' });
    expect(shown.status, shown.stderr).toBe(0);
    const entries = join(dir, 'entries.json');
    writeFileSync(entries, shown.stdout);

    const r = await plan(controller, entries, domain);
    expect(changes(r), JSON.stringify({ create: r.create, update: r.update, delete: r.delete, renderFailures: r.renderFailures, notes: r.notes })).toEqual({ create: 0, update: 0, delete: 0, renderFailures: 0, conflicts: 0 });
    expect(r.source?.objects).toMatchObject({ Pod: 3, ClusterSPIFFEID: 2, ClusterStaticEntry: 1, Endpoints: 1, EndpointSlice: 0 });
    expect(r.notes.filter((n) => n.includes('clusterDomain'))).toEqual([]);

    // Without the cluster domain (DNS here names none), the plan differs where the domain matters, and says so.
    const noDomain = await plan(controller, entries);
    expect(noDomain.update.length + noDomain.renderFailures.length).toBeGreaterThan(0);
    expect(noDomain.notes.some((n) => n.includes('the DNS names of ClusterSPIFFEID/web depend on it'))).toBe(true);

    // As the admin, who may list EndpointSlices (none here): not what the chart's ClusterRole lets the controller read.
    const asAdmin = await plan(plane.admin, entries, domain);
    expect(asAdmin.update.map((u) => u.changed)).toEqual([['dnsNames'], ['dnsNames']]);
  });
});
