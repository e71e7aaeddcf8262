/**
 * etcd restored from a backup under a running controller, as an operator
 * restores a Kubernetes cluster's: kube-apiserver and etcd stopped,
 * `etcdutl snapshot restore` into a new data directory, both started again
 * on their ports (test/support/real-k8s/etcd-restore.ts). The pods created
 * and deleted between the snapshot and the restore are undone by it, so
 * their entries must follow: the pod deleted since is back and gets its
 * entry again, the pod created since is gone and loses its entry.
 *
 * Restored as etcd advises for Kubernetes (`--bump-revision` past every
 * write since the snapshot, `--mark-compacted`), every resourceVersion the
 * informers hold is compacted history: the API server answers their watches
 * 410 Gone, and they relist. Restored without those flags, and with the
 * restored history already past the informers' versions when they
 * reconnect, their watches go on in the new history and nothing calls for a
 * relist: only relistInterval repairs the cache (docs/reliability.md,
 * "After an etcd restore").
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/api/index.js';
import { passOptions } from '../../src/cli/context.js';
import { type LiveController, startLive } from '../../src/manager/live.js';
import { ControllerMetrics } from '../../src/manager/metrics.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { startTestSpire, type TestSpire } from '../support/spire.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { controllerKubeConfig, csid, DEPLOY_RBAC, eventually, node, ns, objects, pod } from './world.js';

/** etcd's Kubernetes guidance bumps by a billion: more writes than any cluster makes between a backup and its restore. */
const BUMP = 1_000_000_000;

interface Controller {
  spire: TestSpire;
  live: LiveController;
  proxy: TcpProxy;
  registry: Registry;
  /** The informers' relist lines so far (the log's words for each). */
  relists(): string[];
  /** The paths of SPIRE's entries for the test's namespace, sorted. */
  paths(): string;
  stop(): Promise<void>;
}

describe('after an etcd restore, the controller converges on the restored cluster', () => {
  let plane: ControlPlane;
  let o: ReturnType<typeof objects>;
  let controller: Controller | undefined;

  beforeAll(async () => {
    plane = await startControlPlane();
    o = objects(plane);
    await o.create(node('node-1'));
  });
  afterEach(async () => {
    await controller?.stop();
    controller = undefined;
  });
  afterAll(async () => {
    await plane?.stop();
  });

  /** The live controller on namespace `namespace`'s pods, reaching the API server through a proxy the test can cut. */
  async function startController(namespace: string, relistIntervalMs: number): Promise<Controller> {
    await o.create(ns(namespace, { t: namespace }));
    await o.create(csid(namespace, { spiffeIDTemplate: `spiffe://{{ .TrustDomain }}/${namespace}/{{ .PodMeta.Name }}`, namespaceSelector: { matchLabels: { t: namespace } } }));
    const kc = await controllerKubeConfig(plane, DEPLOY_RBAC);
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(plane.url).port) });
    const spire = await startTestSpire();
    const lines: { msg?: string; err?: { message?: string } }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as never);
        done();
      },
    });
    const registry = new Registry();
    const stop = new AbortController();
    const config = { ...defaultConfig(), trustDomain: 'example.org', clusterName: 'demo', clusterDomain: 'cluster.local', spireServerSocketPath: spire.socketPath, gcIntervalMs: 3_600_000, relistIntervalMs };
    const live = await startLive({ config, pass: passOptions(config), kc: plane.via(kc, `https://${proxy.address}`), log: pino({ level: 'info' }, sink), metrics: new ControllerMetrics(registry), signal: stop.signal });
    return {
      spire,
      live,
      proxy,
      registry,
      relists: () => lines.map((l) => l.err?.message ?? l.msg ?? '').filter((m) => m.endsWith('; relisting')),
      // This test's namespace's only: another test's ClusterSPIFFEID and pods are still in the cluster.
      paths: () => spire.server.entries.all().map((e) => e.spiffeId.path).filter((p) => p.startsWith(`/${namespace}/`)).sort().join(),
      async stop() {
        stop.abort();
        await live.done;
        await proxy.close();
        await spire.close();
      },
    };
  }

  /** relists counted by the metric, by informer, for one reason. */
  async function relistsFor(c: Controller, reason: string): Promise<Record<string, number>> {
    const metric = (await c.registry.getMetricsAsJSON()).find((m) => m.name === 'spire_reconciler_informer_relists_total');
    const out: Record<string, number> = {};
    for (const v of (metric?.values ?? []) as { labels: Record<string, string>; value: number }[]) if (v.labels.reason === reason) out[v.labels.informer!] = v.value;
    return out;
  }

  it('--bump-revision and --mark-compacted: every informer relists on 410 Gone; the pod deleted since the snapshot gets its entry again, the one created since loses it', async () => {
    const c = (controller = await startController('r', 0));
    await o.create(pod('r', 'kept'));
    const deleted = await o.create(pod('r', 'deleted-since'));
    await eventually(() => c.paths() === '/r/deleted-since,/r/kept', 'the entries before the snapshot');
    const snapshot = await plane.snapshotEtcd();

    await o.create(pod('r', 'created-since'));
    await o.delete(deleted);
    await eventually(() => c.paths() === '/r/created-since,/r/kept', 'the entries of the changes made after the snapshot');
    // The newest resourceVersion anything could hold: the informers' are at most this.
    const held = await plane.etcdRevision();
    expect(held).toBeGreaterThan(snapshot.revision);

    const relistsBefore = c.relists().length;
    const restoredAt = Date.now();
    const revision = await plane.restoreEtcd(snapshot, { bumpRevision: BUMP, markCompacted: true });
    const apiServerBack = Date.now();
    // Past every version a client holds, and the way there compacted: a watch from one is answered 410.
    expect(revision).toBeGreaterThan(held);
    const watch = await plane.raw(`/api/v1/pods?watch=1&resourceVersion=${held}&timeoutSeconds=1`);
    expect(JSON.parse(watch.text.split('\n')[0]!)).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410 } });

    await eventually(() => c.paths() === '/r/deleted-since,/r/kept', 'the entries of the restored cluster', 60_000);
    const convergedAt = Date.now();
    // Every informer relisted for its expired version (the pods' first among them, or the entries would not be right).
    await eventually(async () => Object.keys(await relistsFor(c, 'expired')).length === 7, 'every informer relisted on 410', 60_000);
    const seen = c.relists().slice(relistsBefore);
    expect(seen.some((m) => /^pods: .*too old resource version.*; relisting$/.test(m))).toBe(true);
    console.log(
      `etcd restore: snapshot at revision ${snapshot.revision}, ${held - snapshot.revision} revisions after it undone; restored with --bump-revision ${BUMP} --mark-compacted to revision ${revision}; ` +
        `API server back ${apiServerBack - restoredAt} ms after the restore began, entries right ${convergedAt - apiServerBack} ms after that; relists: ${seen.join(' | ')}`,
    );

    // And the controller goes on in the restored history.
    await o.create(pod('r', 'after'));
    await o.delete(pod('r', 'kept'));
    await eventually(() => c.paths() === '/r/after,/r/deleted-since', 'the entries of changes made after the restore', 30_000);
  });

  it('without them, the restored history past the informers\' versions: their watches go on, missing the restore, until relistInterval relists', async () => {
    const INTERVAL_MS = 90_000;
    const c = (controller = await startController('u', INTERVAL_MS));
    const listedAt = Date.now();
    await o.create(pod('u', 'kept'));
    const deleted = await o.create(pod('u', 'deleted-since'));
    await eventually(() => c.paths() === '/u/deleted-since,/u/kept', 'the entries before the snapshot');
    const snapshot = await plane.snapshotEtcd();

    // Activity after the snapshot (50 writes elsewhere), then the two pod changes: the pod informer's
    // version is 50 past the snapshot's, further than the restarted API server's own writes take it.
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'activity', namespace: 'default' }, data: { n: '0' } };
    await o.create(cm);
    for (let i = 1; i <= 50; i++) await o.patch(cm, { data: { n: String(i) } });
    await o.create(pod('u', 'created-since'));
    await o.delete(deleted);
    await eventually(() => c.paths() === '/u/created-since,/u/kept', 'the entries of the changes made after the snapshot');
    const held = await plane.etcdRevision();

    // The controller is away while etcd is restored as it was (no bump, no compaction marked) and the
    // restored cluster's own writes take its history past every version the informers hold.
    await c.proxy.cut();
    const revision = await plane.restoreEtcd(snapshot, { bumpRevision: 0, markCompacted: false });
    expect(revision).toBeLessThan(held);
    // (The ConfigMap was made after the snapshot: the restored cluster has none.)
    await o.create(cm);
    for (let i = 0; (await plane.etcdRevision()) <= held + 5; i++) await o.patch(cm, { data: { n: `after-${i}` } });
    await c.proxy.restore();
    const backAt = Date.now();

    // The watches resume in the new history: a pod made now gets its entry. But that history holds no
    // pod event for what the restore undid: the cache keeps the pod it removed and lacks the one it
    // brought back, and so do the entries.
    await o.create(pod('u', 'after'));
    await eventually(() => c.paths().includes('/u/after'), 'the pod made after the restore gets its entry: the watch goes on', 45_000);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(c.paths()).toBe('/u/after,/u/created-since,/u/kept');
    expect((await relistsFor(c, 'expired')).pods ?? 0).toBe(0);
    expect((await relistsFor(c, 'resource-version-too-large')).pods ?? 0).toBe(0);
    expect(Date.now() - listedAt).toBeLessThan(INTERVAL_MS);

    // relistInterval after the pod informer's last list, it lists afresh: the restored cluster as it is.
    await eventually(() => c.paths() === '/u/after,/u/deleted-since,/u/kept', 'the periodic relist repairs the entries', INTERVAL_MS + 30_000);
    const repairedAt = Date.now();
    expect((await relistsFor(c, 'periodic')).pods).toBeGreaterThanOrEqual(1);
    expect(repairedAt - listedAt).toBeGreaterThanOrEqual(INTERVAL_MS);
    console.log(
      `etcd restore without --bump-revision/--mark-compacted: restored to revision ${revision} under informers holding up to ${held}, history written past it before they reconnected; ` +
        `entries still wrong ${Math.round((repairedAt - backAt) / 1000)} s after the controller was back, repaired by the periodic relist ${Math.round((repairedAt - listedAt) / 1000)} s after the pod informer's last list (relistInterval ${INTERVAL_MS / 1000} s)`,
    );
  });
});
