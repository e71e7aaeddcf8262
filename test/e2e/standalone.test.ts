/**
 * The standalone layout on a real cluster (./cluster.ts: controllers, a
 * scheduler, a pod network): the SPIRE server pod with no controller
 * container, and our controller as its own Deployment of two replicas, from
 * deploy/standalone as a user applies it (rendered by kustomize through an
 * overlay that sets only what a user sets: the image, the config, the Lease
 * the sidecar held, and where the agent's socket is on this node). Each
 * replica takes its X.509 SVID from the SPIRE agent's Workload API and calls
 * the SPIRE server's TCP port with SPIFFE mTLS, as the admin entry
 * `spire-reconciler bootstrap` wrote allows.
 *
 * In order: ours as the sidecar registers the workloads; bootstrap; the
 * Deployment rolls out beside it and waits for the Lease; the sidecar is
 * removed (the server pod made again without it, as a StatefulSet rolls it:
 * SPIRE restarts too) and a replica takes over with no write; workloads get and
 * lose identities; the controller's own 60 s SVID rotates under load with no
 * failed call; the spire-server container is killed and the controller
 * converges; the leader is killed and the other takes over within the
 * Lease's duration, with no duplicate and no lost entry; the SPIRE server pod
 * was never NotReady but when SPIRE itself restarted; and back to the sidecar
 * with no write. Every scenario is asserted on what workloads hold and on the
 * SPIRE server's entries.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml, stringify as toYaml } from 'yaml';
import { KubeApiError } from '../../src/kube/rest.js';
import { type EntryOut, SpireClient } from '../../src/spire/index.js';
import { exitCode, httpGet, repoRoot, spawnCli } from '../support/cli.js';
import { kustomizeBinary } from '../support/real-k8s/binaries.js';
import { chartConfig, chartCsid } from '../real/chart.js';
import { eventually, type Obj, objects } from '../real/world.js';
import { applyManifests, type Cluster, clusterUnavailable, hostAddress, podsOf, type PodView, startCluster, waitForRollout } from './cluster.js';
import { watchReadiness } from './not-ready.js';
import { adminSocket, agentSocketDir, CLUSTER, type Deployment, held, imagesMissing, podLogs, prepareDeployment, SERVER_NS, TD, versionsLine, workloadNamespace, workloadPod } from './world.js';

const run = promisify(execFile);
const kustomize = kustomizeBinary();
const skip = clusterUnavailable() ?? imagesMissing() ?? (kustomize ? undefined : 'kustomize is not built: run npm run real:build');
if (skip) console.warn(`test:e2e: SKIPPED: ${skip}`);

const NS = 'shop';
const APP = 'app.kubernetes.io/name=spire-reconciler';
const LEASE = chartConfig.leaderElection.resourceName;
const CONTROLLER_ID = `spiffe://${TD}/spire-reconciler/${CLUSTER}`;
const WEB_ID = (name: string) => `spiffe://${TD}/ns/${NS}/sa/web/web/${name}`;

/**
 * deploy/standalone through an overlay with what a user sets: the image (here
 * the one the lane built), the config (the sidecar's, with the SPIRE server's
 * address and the agent's socket instead of the admin socket), the Lease the
 * sidecar holds (the Role names it), and where the agent's socket is on the
 * node. Rendered by kustomize, as `kubectl apply -k` renders it.
 */
/** The image deploy/standalone's kustomization names (its `images:` newName). */
function baseImage(): string {
  const k = parseYaml(readFileSync(join(repoRoot, 'deploy/standalone/kustomization.yaml'), 'utf8')) as { images: { newName: string }[] };
  return k.images[0]!.newName;
}

async function renderStandalone(c: Cluster, dep: Deployment): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'standalone-overlay-'));
  const { spireServerSocketPath: _socket, ...sidecar } = chartConfig as Record<string, unknown>;
  const config = {
    ...sidecar,
    spireServerAddress: `${hostAddress(c.node)}:${dep.ports.spireServer}`,
    workloadAPISocketPath: '/run/spire/agent-sockets/spire-agent.sock',
    validatingWebhookConfigurationName: 'spire-reconciler-standalone-webhook',
    // No cluster DNS here to detect it from.
    clusterDomain: 'cluster.local',
  };
  const patch = (kind: string, name: string, ops: object[]) => ({ target: { kind, name }, patch: toYaml(ops) });
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    toYaml({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      // kustomize takes a base by a relative path only.
      resources: [relative(dir, join(repoRoot, 'deploy/standalone'))],
      // The base names the image as a user's registry would (its `images:`): the overlay renames that.
      images: [{ name: baseImage(), newName: 'localhost/spire-reconciler', newTag: 'dev' }],
      patches: [
        patch('ConfigMap', 'spire-reconciler-standalone-config', [{ op: 'replace', path: '/data/config.yaml', value: toYaml(config) }]),
        patch('Role', 'spire-reconciler-standalone-leader-election', [{ op: 'replace', path: '/rules/1/resourceNames', value: [LEASE] }]),
        patch('Deployment', 'spire-reconciler', [{ op: 'replace', path: '/spec/template/spec/volumes/1/hostPath/path', value: agentSocketDir(c.node) }]),
      ],
    }),
  );
  const { stdout } = await run(kustomize!, ['build', dir], { maxBuffer: 16 << 20 });
  rmSync(dir, { recursive: true, force: true });
  const out = join(c.node.dir, 'standalone.yaml');
  writeFileSync(out, stdout);
  return out;
}

describe.skipIf(!!skip)('standalone: our controller as its own Deployment, over SPIFFE mTLS to the SPIRE server', () => {
  let c: Cluster;
  let dep: Deployment;
  let spire: SpireClient;
  let o: ReturnType<typeof objects>;
  let rendered: string;
  let watch: ReturnType<typeof watchReadiness>;
  /** When SPIRE itself was restarted on purpose: the SPIRE server pod may be NotReady then, on its own account. */
  const spireRestarts: [number, number][] = [];
  let standaloneFrom = 0;

  const holds = (name: string) => held(c.node, NS, name);
  const waitHolds = (name: string, id: string, timeoutMs = 90_000) =>
    eventually(() => holds(name)?.svid?.uri === id, `${name} holds an SVID for ${id} (holds ${JSON.stringify(holds(name))})`, timeoutMs);
  const entries = async (): Promise<EntryOut[]> => (await spire.listEntries()).filter((e) => !e.spiffe_id?.path?.includes('unsupported-fields-probe'));
  /** Every entry's ID and revision: what a controller that writes nothing leaves as it was. */
  const snapshot = async () => Object.fromEntries((await entries()).map((e) => [e.id!, `${e.spiffe_id!.path} r${e.revision_number ?? 0}`]));
  const replicas = async (): Promise<PodView[]> => (await podsOf(c.plane, SERVER_NS, APP)).filter((p) => !p.metadata.deletionTimestamp && p.status.podIP);
  const metric = async (url: string, re: RegExp) => Number(re.exec((await httpGet(url)).body)?.[1] ?? Number.NaN);
  const metricsOf = (p: PodView) => `http://${p.status.podIP}:8082/metrics`;
  const writes = async (url: string) => {
    const n: Record<string, number> = {};
    for (const op of ['created', 'updated', 'deleted', 'failed']) n[op] = await metric(url, new RegExp(`^spire_reconciler_entries_total\\{op="${op}"\\} (\\d+)$`, 'm'));
    return n;
  };
  const failedCalls = async (url: string) => {
    const body = (await httpGet(url)).body;
    return [...body.matchAll(/^spire_reconciler_spire_rpc_seconds_count\{method="[^"]+",code="([A-Z_]+)"\} (\d+)$/gm)].filter((m) => m[1] !== 'OK').reduce((sum, m) => sum + Number(m[2]), 0);
  };
  const leaseHolder = async () => (await o.get<{ spec: { holderIdentity?: string } }>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: LEASE, namespace: chartConfig.leaderElection.resourceNamespace } }))?.spec.holderIdentity ?? '';
  const leader = async (): Promise<PodView | undefined> => {
    const holder = await leaseHolder();
    return (await replicas()).find((p) => holder.startsWith(`${p.metadata.name}_`));
  };
  /** SPIRE restarted on purpose since t0: until the readiness watch has seen the pod Ready again, NotReady is SPIRE's own. */
  const spireBack = async (t0: number) => {
    await eventually(() => watch.ready(), 'the readiness watch sees the SPIRE server pod Ready');
    spireRestarts.push([t0, Date.now()]);
  };
  /** The pod's entries on the SPIRE server, by SPIFFE ID: one each, never two. */
  const entryCount = async (id: string) => (await entries()).filter((e) => `spiffe://${e.spiffe_id!.trust_domain}${e.spiffe_id!.path}` === id).length;

  beforeAll(async () => {
    c = await startCluster();
    console.log(`test:e2e: ${versionsLine(c.plane, c.node)}`);
    o = objects(c.plane);
    // The SPIRE server listens where the pods reach it; its data and socket outlive its pod, as a StatefulSet's volume does.
    // No webhook for the sidecar: this cluster refuses its ExternalName Service; the standalone one has a Service of pods.
    dep = await prepareDeployment(c.plane, c.node, { serverBind: hostAddress(c.node), webhook: false, persistentServer: true });
    await workloadNamespace(c.plane, NS, 'web');
    await o.create(
      chartCsid('web', {
        podSelector: { matchLabels: { app: 'web' } },
        spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}/web/{{ .PodMeta.Name }}',
      }),
    );
    for (const name of ['web-0', 'web-1']) await o.create(workloadPod(c.node, NS, name, { app: 'web' }, 'web'));
    await dep.deploy('ours');
    spire = new SpireClient({ socket: adminSocket(c.node) });
    watch = watchReadiness(c.plane);
  }, 900_000);

  // A scenario that fails says what the SPIRE server, the agent and the replicas logged (their logs go with their pods).
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    const pods = [['spire-server', 'spire-server-0'], ['spire-system', 'spire-agent-0'], ...(await replicas().catch(() => [])).map((p) => [SERVER_NS, p.metadata.name])];
    console.log(pods.map(([ns, name]) => podLogs(c.node, ns!, name!, 60)).join('\n'));
  });

  afterAll(async () => {
    await watch?.stop();
    spire?.close();
    await c?.stop();
  });

  it('ours as the sidecar registers the workloads, which hold their SVIDs', async () => {
    await waitHolds('web-0', WEB_ID('web-0'));
    await waitHolds('web-1', WEB_ID('web-1'));
  });

  it('bootstrap writes the admin entry; the Deployment rolls out beside the sidecar, each replica holding an SVID and waiting for the Lease', async () => {
    const b = spawnCli(['bootstrap', '--trust-domain', TD, '--cluster-name', CLUSTER, '--apply', '--socket', adminSocket(c.node), '--x509-svid-ttl', '60s']);
    expect(await exitCode(b), b.output()).toBe(0);
    expect(b.output()).toContain(`created: spire-reconciler-bootstrap.${CLUSTER}.controller`);
    const started = Date.now();
    rendered = await renderStandalone(c, dep);
    await applyManifests(c.plane, rendered);
    await waitForRollout(c.plane, SERVER_NS, 'spire-reconciler', 180_000).catch(async (err: unknown) => {
      // What each replica said, and what it waits for.
      const said = await Promise.all(
        (await podsOf(c.plane, SERVER_NS, APP)).map(async (p) => {
          const verbose = p.status.podIP ? await httpGet(`http://${p.status.podIP}:8083/readyz?verbose`).then((r) => r.body, (e: unknown) => String(e)) : '(no address)';
          return `${verbose}\n${podLogs(c.node, SERVER_NS, p.metadata.name, 40)}`;
        }),
      );
      throw new Error(`${(err as Error).message}\n${said.join('\n')}`, { cause: err });
    });
    console.log(`test:e2e: the standalone Deployment rolled out ${Date.now() - started} ms after it was applied`);
    const pods = await replicas();
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      // spire-identity does not decide readiness: the agent serves the SVID once it has synced the admin entry
      // bootstrap wrote (its sync runs every 5 s), which may be after the rollout.
      let identity = { status: 0, body: '' };
      await eventually(
        async () => (identity = await httpGet(`http://${p.status.podIP}:8083/readyz/spire-identity`)).status === 200,
        `${p.metadata.name} holds an SVID (spire-identity: ${identity.body})`,
        30_000,
      ).catch(() => undefined);
      expect(identity.status, identity.body).toBe(200);
      expect(identity.body).toContain(CONTROLLER_ID);
      expect(await metric(metricsOf(p), /^spire_reconciler_leader (\d+)$/m)).toBe(0);
    }
    // The sidecar holds it (its identity is the node's host name: it runs on the host's network).
    const holder = await leaseHolder();
    expect(holder).not.toBe('');
    for (const p of pods) expect(holder.startsWith(`${p.metadata.name}_`), holder).toBe(false);
    // docs/standalone.md's step 6: the webhook, which fails closed, once the Deployment is ready (it is not in the kustomization).
    await applyManifests(c.plane, join(repoRoot, 'deploy/standalone/webhook.yaml'));
  });

  it("the standalone webhook, called by the API server through its Service, denies an invalid ClusterSPIFFEID", async () => {
    let denied = '';
    // The API server picks the webhook configuration up from its informer a moment after it is created, and for
    // about a second after that the replicas mint their certificates (docs/standalone.md, step 6): until then a call
    // is refused (failurePolicy Fail) or admitted, and asked again.
    await eventually(
      async () => {
        denied = await o.create(chartCsid('bad', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name' })).then(
          () => 'created',
          (err: unknown) => (err instanceof KubeApiError ? err.message : String(err)),
        );
        if (denied === 'created') await o.delete({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'bad' } });
        return denied.includes('denied the request');
      },
      'the invalid ClusterSPIFFEID is refused',
      30_000,
    );
    expect(denied).toContain('admission webhook "vclusterspiffeid.kb.io" denied the request: ClusterSPIFFEID bad: spec.spiffeIDTemplate');
  });

  it('the sidecar removed (the SPIRE server pod made again without it): a replica takes the Lease, writes nothing, and every workload keeps its SVID', async () => {
    const before = await snapshot();
    const serials = { 'web-0': holds('web-0')!.svid!.serial, 'web-1': holds('web-1')!.svid!.serial };
    const t0 = Date.now();
    await dep.recreateServer('none');
    await spireBack(t0);
    standaloneFrom = Date.now();
    await eventually(async () => !!(await leader()), `a standalone replica holds the Lease (holder ${await leaseHolder()})`, 60_000);
    const lead = (await leader())!;
    await eventually(async () => (await metric(metricsOf(lead), /^spire_reconciler_pass_seconds_count (\d+)$/m)) >= 2, 'two full passes by the new leader', 90_000);
    for (const p of await replicas()) expect(await writes(metricsOf(p)), p.metadata.name).toEqual({ created: 0, updated: 0, deleted: 0, failed: 0 });
    expect(await snapshot()).toEqual(before);
    expect({ 'web-0': holds('web-0')?.svid?.serial, 'web-1': holds('web-1')?.svid?.serial }).toEqual(serials);
  });

  it('a new pod gets the identity its ClusterSPIFFEID names; a deleted pod loses its entry', async () => {
    await o.create(workloadPod(c.node, NS, 'web-2', { app: 'web' }, 'web'));
    await waitHolds('web-2', WEB_ID('web-2'));
    await o.deleteGracefully({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: NS } });
    await eventually(async () => (await entryCount(WEB_ID('web-1'))) === 0, "web-1's entry is deleted", 90_000);
    expect(await entryCount(WEB_ID('web-0'))).toBe(1);
  });

  it('its own 60 s SVID rotates while it reconciles: no failed call, no missed pod', async () => {
    const lead = (await leader())!;
    const expiries = async () => Promise.all((await replicas()).map((p) => metric(metricsOf(p), /^spire_reconciler_svid_expiry_timestamp_seconds (\S+)$/m)));
    const first = await expiries();
    const failedBefore = await failedCalls(metricsOf(lead));
    // New pods through the rotation, one every 5 s.
    const names: string[] = [];
    const started = Date.now();
    while (Date.now() - started < 45_000) {
      const name = `rot-${names.length}`;
      names.push(name);
      await o.create(workloadPod(c.node, NS, name, { app: 'web' }, 'web'));
      await new Promise((r) => setTimeout(r, 5_000));
    }
    await eventually(async () => (await expiries()).every((e, i) => e > first[i]!), `every replica's SVID was renewed (expiries ${first} then ${await expiries()})`, 60_000);
    for (const name of names) await waitHolds(name, WEB_ID(name));
    for (const name of names) expect(await entryCount(WEB_ID(name)), name).toBe(1);
    expect(await failedCalls(metricsOf(lead))).toBe(failedBefore);
  });

  it('the spire-server container killed: the controller reconnects and converges, writing only what the new pod needs', async () => {
    const before = await snapshot();
    const status = (await dep.containerStatus('spire-server'))!;
    const t0 = Date.now();
    await c.node.killContainer(status.containerID!);
    await o.create(workloadPod(c.node, NS, 'after-restart', { app: 'web' }, 'web'));
    await eventually(async () => ((await dep.containerStatus('spire-server'))?.restartCount ?? 0) > status.restartCount && (await dep.serverReady()), 'the SPIRE server is back', 120_000);
    await spireBack(t0);
    await waitHolds('after-restart', WEB_ID('after-restart'));
    const after = await snapshot();
    const added = Object.keys(after).filter((id) => !(id in before));
    expect(added.map((id) => after[id])).toEqual([`/ns/${NS}/sa/web/web/after-restart r0`]);
    for (const [id, v] of Object.entries(before)) expect(after[id], id).toBe(v);
  });

  it("the leader killed: a standby takes over within the Lease's duration, with no duplicate and no lost entry", async () => {
    const old = (await leader())!;
    const oldHolder = await leaseHolder();
    const [other] = (await replicas()).filter((p) => p.metadata.uid !== old.metadata.uid);
    const status = (await c.plane.request<{ status: { containerStatuses: { containerID: string }[] } }>('GET', `/api/v1/namespaces/${SERVER_NS}/pods/${old.metadata.name}`)).status.containerStatuses[0]!;
    const t0 = Date.now();
    // SIGKILL: no Lease released, so a standby waits out the Lease's duration. The kubelet restarts the killed
    // container at once, and that new process is a standby too: it counts the duration from its own first read of
    // the Lease, the other replica from the last renewal it saw, so either may see the Lease expire first.
    await c.node.killContainer(status.containerID);
    await o.create(workloadPod(c.node, NS, 'during-failover', { app: 'web' }, 'web'));
    const newHolder = async () => {
      const holder = await leaseHolder();
      return holder !== '' && holder !== oldHolder && (await replicas()).some((p) => holder.startsWith(`${p.metadata.name}_`));
    };
    await eventually(newHolder, async () => `a live replica holds the Lease (holder ${await leaseHolder()}, the killed leader was ${oldHolder})`, 60_000);
    const tookMs = Date.now() - t0;
    const by = (await leaseHolder()).startsWith(`${other!.metadata.name}_`) ? 'the other replica' : 'the killed replica, restarted by the kubelet,';
    console.log(`test:e2e: ${by} took the Lease ${tookMs} ms after the leader was killed (the Lease lasts 15 s)`);
    // The Lease's duration (15 s), and the new leader's retry period (2 s) to see it expire.
    expect(tookMs).toBeLessThan(15_000 + 2 * 2_000 + 5_000);
    await waitHolds('during-failover', WEB_ID('during-failover'));
    await o.create(workloadPod(c.node, NS, 'after-failover', { app: 'web' }, 'web'));
    await waitHolds('after-failover', WEB_ID('after-failover'));
    // Every live workload has exactly one entry; none is lost.
    const live = (await podsOf(c.plane, NS, 'app=web')).filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name);
    for (const name of live) expect(await entryCount(WEB_ID(name)), name).toBe(1);
    expect(await entries()).toHaveLength(new Set((await entries()).map((e) => `${e.spiffe_id!.path} ${e.parent_id!.path}`)).size);
  });

  it('the SPIRE server pod left Ready only when SPIRE itself was restarted, never on our account', () => {
    const end = Date.now();
    let outside = watch.notReadyMs(standaloneFrom, end);
    for (const [from, to] of spireRestarts.filter(([, to]) => to >= standaloneFrom)) outside -= watch.notReadyMs(Math.max(from, standaloneFrom), to);
    expect(outside).toBe(0);
  });

  it('back to the sidecar: it takes the Lease the Deployment leaves and writes nothing', async () => {
    const before = await snapshot();
    await dep.recreateServer('ours');
    // The webhook first, then the rest (docs/standalone.md): a webhook configuration left without replicas refuses every create of the three kinds.
    for (const doc of [...parseAllDocuments(readFileSync(join(repoRoot, 'deploy/standalone/webhook.yaml'), 'utf8')), ...parseAllDocuments(readFileSync(rendered, 'utf8'))]) {
      const obj = doc.toJS() as Obj | null;
      if (obj) await o.deleteGracefully(obj).catch(() => undefined);
    }
    await eventually(async () => {
      const holder = await leaseHolder();
      return holder !== '' && !holder.startsWith('spire-reconciler-');
    }, `the sidecar holds the Lease (holder ${await leaseHolder()})`, 60_000);
    await eventually(async () => (await metric(dep.metricsUrl, /^spire_reconciler_pass_seconds_count (\d+)$/m)) >= 2, 'two full passes by the sidecar', 90_000);
    expect(await writes(dep.metricsUrl)).toEqual({ created: 0, updated: 0, deleted: 0, failed: 0 });
    expect(await snapshot()).toEqual(before);
  });
});
