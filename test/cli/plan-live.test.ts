/**
 * `plan` without --manifests reads the live cluster (KUBECONFIG) with one-shot
 * paged lists: against the in-process API server it must give the plan that
 * the same objects give as manifest files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DEMO_DIR } from '../../src/cli/demo.js';
import { type PlanReport } from '../../src/cli/report.js';
import { runOnce } from '../../src/cli/one-pass.js';
import { loadManifests } from '../../src/manifests/index.js';
import { exitCode, spawnCli } from '../support/cli.js';
import { FakeKubeApiServer } from '../support/kube/index.js';

const quiet = pino({ level: 'silent' });
const config = join(DEMO_DIR, 'config.yaml');
const entries = join(DEMO_DIR, 'spire-entries.json');

const KINDS: [string, string][] = [
  ['spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID'],
  ['spire.spiffe.io/v1alpha1', 'ClusterStaticEntry'],
  ['v1', 'Namespace'],
  ['v1', 'Node'],
  ['v1', 'Pod'],
  ['discovery.k8s.io/v1', 'EndpointSlice'],
];

/** The plan less what differs between two runs by design: new entry IDs and where the objects came from. */
function comparable(report: PlanReport): object {
  const { source: _source, ...rest } = report;
  return { ...rest, create: rest.create.map((c) => ({ ...c, id: 'NEW' })) };
}

describe('plan reads the live cluster through KUBECONFIG when no manifests are given', () => {
  let server: FakeKubeApiServer;
  let dir: string;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    dir = mkdtempSync(join(tmpdir(), 'plan-live-'));
    // The demo cluster, created in the API server (which gives every object its own UID and creation time).
    const demo = await loadManifests([join(DEMO_DIR, 'manifests')]);
    const objects = [...demo.namespaces, ...demo.nodes, ...demo.clusterSPIFFEIDs, ...demo.clusterStaticEntries, ...demo.pods, ...demo.endpointSlices];
    for (const obj of objects) {
      const { uid: _uid, creationTimestamp: _created, ...metadata } = obj.metadata;
      server.create({ ...obj, metadata });
    }
    // The same objects as the API server holds them, as manifest files (a `kubectl get -o yaml` dump).
    const items = KINDS.flatMap(([apiVersion, kind]) => server.list(apiVersion, kind).map((o) => ({ apiVersion, kind, ...o })));
    writeFileSync(join(dir, 'cluster.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items }));
  });
  afterEach(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the plan the same objects give as manifests, and says what it read from where', async () => {
    let live = '';
    const fromCluster = await runOnce({ config, entries, output: 'json' }, { apply: false, log: quiet, print: (s) => (live += s), kubeConfig: () => server.kubeConfig() });
    let files = '';
    await runOnce({ config, entries, manifests: [dir], output: 'json' }, { apply: false, log: quiet, print: (s) => (files += s) });
    expect(fromCluster.code).toBe(0);
    const liveReport = JSON.parse(live) as PlanReport;
    const fileReport = JSON.parse(files) as PlanReport;
    expect(liveReport.create.length).toBeGreaterThan(0);
    expect(comparable(liveReport)).toEqual(comparable(fileReport));
    expect(liveReport.source).toEqual({
      from: 'cluster',
      location: `${server.url} (context fake)`,
      objects: { ClusterSPIFFEID: 3, ClusterStaticEntry: 1, ClusterFederatedTrustDomain: 0, Namespace: 5, Node: 3, Pod: 8, EndpointSlice: 1, Endpoints: 0 },
    });
    // One-shot lists, no watches: every request is a GET of a list or of discovery.
    expect(server.requests.every((r) => r.method === 'GET' && !r.query.includes('watch=true'))).toBe(true);
  });

  it('as a process: KUBECONFIG names the cluster, and the table says what was read', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    server.writeKubeconfig(kubeconfig);
    const cli = spawnCli(['plan', '--config', config, '--entries', entries], { env: { KUBECONFIG: kubeconfig } });
    expect(await exitCode(cli)).toBe(0);
    expect(cli.output()).toContain(`Read from the cluster at ${server.url} (context fake): 3 ClusterSPIFFEIDs, 1 ClusterStaticEntry, 0 ClusterFederatedTrustDomains, 5 Namespaces, 3 Nodes, 8 Pods, 1 EndpointSlice, 0 Endpoints`);
    expect(cli.output()).not.toContain('not implemented');
  });

  it('names the API server it cannot reach', async () => {
    const url = server.url;
    await server.close();
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'gone', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'gone', context: { cluster: 'gone', user: 'u' } }],
        'current-context': 'gone',
      }),
    );
    const cli = spawnCli(['plan', '--config', config, '--entries', entries], { env: { KUBECONFIG: kubeconfig } });
    expect(await exitCode(cli)).toBe(2);
    expect(cli.output()).toMatch(new RegExp(`cannot read the cluster at ${url} \\(context gone\\): GET /apis/spire.spiffe.io/v1alpha1/clusterspiffeids: cannot reach the Kubernetes API server at ${url}: connect ECONNREFUSED`));
    server = await FakeKubeApiServer.start();
  });

  it('without KUBECONFIG, ~/.kube/config or a service account, says what it looked for instead of failing on every request', async () => {
    const cli = spawnCli(['plan', '--config', config, '--entries', entries], { env: { KUBECONFIG: '', HOME: dir } });
    expect(await exitCode(cli)).toBe(2);
    expect(cli.output()).toContain(`no Kubernetes configuration: KUBECONFIG is not set, ${join(dir, '.kube', 'config')} does not exist, and there is no in-cluster service account`);
    expect(cli.output()).toContain('give --manifests DIR');
  });
});
