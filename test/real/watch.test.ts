/**
 * Watches on a real API server: the controller cut off (a TCP proxy between
 * it and kube-apiserver) while the cluster changes, then let back in. It
 * resumes from its resourceVersions; after an etcd compaction and an API
 * server restart those are gone (410 Expired) and it must relist. Either
 * way no change made while it was away may be missed, deletes included.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/api/index.js';
import { passOptions } from '../../src/cli/context.js';
import { type LiveController, startLive } from '../../src/manager/live.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { startTestSpire, type TestSpire } from '../support/spire.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { controllerKubeConfig, csid, DEPLOY_RBAC, eventually, node, ns, objects, pod } from './world.js';

/** The first line of a watch's answer (with the status), or the Status body. */
function firstEvent(raw: { status: number; text: string }): { status: number; event: { type?: string; object?: { code?: number; reason?: string; kind?: string } } & { code?: number; reason?: string } } {
  return { status: raw.status, event: JSON.parse(raw.text.split('\n')[0]!) as never };
}

describe('watches on a real API server: a cut-off controller catches up with every change', () => {
  let plane: ControlPlane;
  let proxy: TcpProxy;
  let spire: TestSpire;
  let live: LiveController;
  let o: ReturnType<typeof objects>;
  const stop = new AbortController();
  const paths = () => spire.server.entries.all().map((e) => e.spiffeId.path).sort();

  beforeAll(async () => {
    plane = await startControlPlane();
    o = objects(plane);
    const kc = await controllerKubeConfig(plane, DEPLOY_RBAC);
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(plane.url).port) });
    spire = await startTestSpire();
    await o.create(node('node-1'));
    await o.create(ns('w', { t: 'w' }));
    await o.create(csid('w', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/w/{{ .PodMeta.Name }}', namespaceSelector: { matchLabels: { t: 'w' } } }));
    const config = { ...defaultConfig(), trustDomain: 'example.org', clusterName: 'demo', clusterDomain: 'cluster.local', spireServerSocketPath: spire.socketPath, gcIntervalMs: 3_600_000 };
    live = await startLive({ config, pass: passOptions(config), kc: plane.via(kc, `https://${proxy.address}`), log: pino({ level: process.env.TEST_LOG ?? 'silent' }), signal: stop.signal });
  });
  afterAll(async () => {
    stop.abort();
    await live?.done;
    await proxy?.close();
    await spire?.close();
    await plane?.stop();
  });

  it('resumes its watches after a short cut, missing nothing made meanwhile', async () => {
    const p1 = await o.create(pod('w', 'p1'));
    await eventually(() => paths().join() === '/w/p1', 'the first entry');
    await proxy.cut();
    await o.create(pod('w', 'p2'));
    await o.delete(p1);
    await proxy.restore();
    await eventually(() => paths().join() === '/w/p2', 'the change made while cut off');
  });

  it('relists after an etcd compaction and an API server restart (410 Expired), missing nothing', async () => {
    const before = (await o.create(pod('w', 'p3'))).metadata.resourceVersion!;
    await eventually(() => paths().join() === '/w/p2,/w/p3', 'the entry of p3');
    await proxy.cut();
    await o.create(pod('w', 'p4'));
    await o.delete(pod('w', 'p2'));
    await plane.compactEtcd();
    await plane.restartApiServer();

    // What the controller's informers will meet: their resourceVersion is gone, and the API server says so.
    const watch = firstEvent(await plane.raw(`/api/v1/pods?watch=1&resourceVersion=${before}&timeoutSeconds=1`));
    expect(watch).toMatchObject({ status: 200, event: { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } } });
    const list = await plane.raw(`/api/v1/pods?resourceVersion=${before}&resourceVersionMatch=Exact`);
    expect(firstEvent(list)).toMatchObject({ status: 410, event: { code: 410, reason: 'Expired' } });

    await proxy.restore();
    await eventually(() => paths().join() === '/w/p3,/w/p4', 'the changes made before the compaction', 60_000);
  });

  it('answers a watch or an exact list from a compacted resourceVersion as the fake does', async () => {
    const fake = await FakeKubeApiServer.start();
    try {
      const old = String(fake.resourceVersion);
      fake.create(ns('x'));
      fake.faults.expireResourceVersions();
      const res = await fetch(`${fake.url}/api/v1/pods?watch=1&resourceVersion=${old}&timeoutSeconds=1`);
      expect(firstEvent({ status: res.status, text: await res.text() })).toMatchObject({ status: 200, event: { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } } });
      const list = await fetch(`${fake.url}/api/v1/pods?resourceVersion=${old}&resourceVersionMatch=Exact`);
      expect(firstEvent({ status: list.status, text: await list.text() })).toMatchObject({ status: 410, event: { code: 410, reason: 'Expired' } });
    } finally {
      await fake.close();
    }
  });
});
