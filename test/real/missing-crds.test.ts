/**
 * A cluster with only the ClusterSPIFFEID CRD installed (the ClusterStaticEntry
 * and ClusterFederatedTrustDomain ones left out), on a real kube-apiserver,
 * which answers a list of a resource it does not serve with 404. The live
 * controller, as its ServiceAccount under deploy/ RBAC, must say once per
 * missing CRD what is missing and how to install it, keep reconciling pods,
 * keep the entries a ClusterStaticEntry made (unknown is not absent), and
 * take each kind up on its own once its CRD is installed.
 */
import { pino } from 'pino';
import { stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ControllerConfig, defaultConfig, parseConfig } from '../../src/api/index.js';
import { passOptions } from '../../src/cli/context.js';
import { type LiveController, startLive } from '../../src/manager/live.js';
import { SpireClient } from '../../src/spire/index.js';
import { startTestSpire, type TestSpire } from '../support/spire.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { controllerKubeConfig, csid, DEPLOY_RBAC, deployedConfig, eventually, node, ns, objects, pod } from './world.js';

const TD = 'example.org';
const CSE_CRD = 'clusterstaticentries.spire.spiffe.io';
const CFTD_CRD = 'clusterfederatedtrustdomains.spire.spiffe.io';
// The ID a ClusterStaticEntry of this controller gave its entry before the CRD went missing (deploy/'s prefix).
const STATIC_ID = 'scm-demo.00000000-0000-4000-8000-000000000001';

let plane: ControlPlane;
let spire: TestSpire;
let live: LiveController;
let config: ControllerConfig;
let o: ReturnType<typeof objects>;
const stop = new AbortController();
const lines: { level: number; msg: string }[] = [];
const paths = () => spire.server.entries.all().map((e) => e.spiffeId.path).sort();
const said = (pattern: RegExp) => lines.filter((l) => pattern.test(l.msg));

beforeAll(async () => {
  plane = await startControlPlane({ leaveOutCrds: [CSE_CRD, CFTD_CRD] });
  o = objects(plane);
  const kc = await controllerKubeConfig(plane, DEPLOY_RBAC);
  spire = await startTestSpire({ trustDomain: TD });
  const admin = new SpireClient({ socket: spire.socketPath });
  const made = await admin.createEntries([
    { id: STATIC_ID, spiffe_id: { trust_domain: TD, path: '/db' }, parent_id: { trust_domain: TD, path: '/spire/server' }, selectors: [{ type: 'unix', value: 'uid:1000' }] },
  ]);
  admin.close();
  expect(made.results.map((r) => r.status.code)).toEqual([0]);
  const { config: deployed } = parseConfig(toYaml(deployedConfig()), 'deploy/configmap.yaml');
  config = { ...defaultConfig(), ...deployed, spireServerSocketPath: spire.socketPath, clusterDomain: 'cluster.local', gcIntervalMs: 3_600_000, spireRpcTimeoutMs: 5_000 };
  await o.create(node('node-1'));
  await o.create(ns('shop'));
  await o.create(csid('workloads', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}' }));
  await o.create(pod('shop', 'web'));
  const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) });
  live = await startLive({ config, pass: passOptions(config), kc, log, signal: stop.signal, namespace: 'spire-server', identity: 'missing-crds-test' });
}, 120_000);

afterAll(async () => {
  stop.abort();
  await live?.done;
  await spire?.close();
  await plane?.stop();
});

it('without two of the CRDs: one line each says which and how to install it, pods keep reconciling, the static entry stays', { timeout: 90_000 }, async () => {
  await eventually(() => paths().includes('/ns/shop/sa/web-sa'), "the pod's entry is written", 60_000);
  await o.create(pod('shop', 'api'));
  await eventually(() => paths().includes('/ns/shop/sa/api-sa'), 'a new pod gets its entry');
  // Long enough for the informers to have retried their lists several times (1 s, 2 s, 4 s, ...).
  await new Promise((r) => setTimeout(r, 8_000));

  for (const [kind, file] of [
    ['ClusterStaticEntry', 'spire.spiffe.io_clusterstaticentries.yaml'],
    ['ClusterFederatedTrustDomain', 'spire.spiffe.io_clusterfederatedtrustdomains.yaml'],
  ]) {
    const about = said(new RegExp(`the ${kind} CRD is not installed`));
    expect(about).toHaveLength(1);
    expect(about[0]!.msg).toContain(`kubectl apply -f crds/${file}`);
    expect(about[0]!.msg).toContain('spire-crds');
  }
  // Nothing else complains about them: no informer failure per retry.
  expect(said(/clusterstaticentries|clusterfederatedtrustdomains/).filter((l) => !/CRD is not installed/.test(l.msg))).toEqual([]);
  expect(spire.server.entries.all().find((e) => e.id === STATIC_ID)).toBeDefined();
});

it('takes each kind up on its own once its CRD is installed', { timeout: 120_000 }, async () => {
  await plane.installCrd(CSE_CRD);
  await o.create({
    apiVersion: 'spire.spiffe.io/v1alpha1',
    kind: 'ClusterStaticEntry',
    metadata: { name: 'cache' },
    spec: { spiffeID: `spiffe://${TD}/cache`, parentID: `spiffe://${TD}/spire/server`, selectors: ['unix:uid:2000'] },
  });
  // Within the informer's longest backoff (30 s): the new object's entry, and the old one, which nothing declares now, gone.
  await eventually(() => paths().includes('/cache'), "the ClusterStaticEntry's entry is written", 60_000);
  await eventually(() => !spire.server.entries.all().some((e) => e.id === STATIC_ID), 'the entry no ClusterStaticEntry declares is deleted', 30_000);
  expect(said(/the ClusterStaticEntry CRD is installed/)).toHaveLength(1);

  await plane.installCrd(CFTD_CRD);
  await o.create({
    apiVersion: 'spire.spiffe.io/v1alpha1',
    kind: 'ClusterFederatedTrustDomain',
    metadata: { name: 'partner' },
    spec: { trustDomain: 'partner.example', bundleEndpointURL: 'https://partner.example/bundle', bundleEndpointProfile: { type: 'https_web' } },
  });
  await eventually(() => spire.server.relationships.list(0, '', null).items.some((r) => r.trust_domain === 'partner.example'), 'the federation relationship is set', 60_000);
  expect(said(/the ClusterFederatedTrustDomain CRD is installed/)).toHaveLength(1);
  // Pods went on all along.
  expect(paths()).toEqual(expect.arrayContaining(['/ns/shop/sa/api-sa', '/ns/shop/sa/web-sa']));
});
