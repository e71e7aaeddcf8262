/**
 * `spire-reconciler run` in the standalone layout, with deploy/standalone's
 * config: its SVID from the SPIRE agent's Workload API (the in-memory fake)
 * and every call to the SPIRE server's TCP port over SPIFFE mTLS (the
 * in-memory server's, which admits admins as SPIRE does). Observed from
 * outside: the probes, the log, the metrics, the SPIRE server's entries and
 * who called it. The faults of a missing agent and a missing admin entry are
 * each a line naming the cause and the fix, a condition and a metric, and the
 * controller goes on once they are fixed: never a crash.
 * test/real-spire/ and the e2e lane take the same path with the real SPIRE
 * server and agent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { MemorySpireServer, MemoryWorkloadApi } from '../../src/memspire/index.js';
import { exitCode, httpGet as get, killIfRunning, logLines, servedAt, spawnCli, waitForOutput } from '../support/cli.js';
import { deployedWebhookConfiguration, ns, pod, standaloneConfig } from '../support/deployed.js';
import { eventually } from '../live/world.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { freePort } from '../support/ports.js';

const TD = 'example.org';
const CONTROLLER_ID = `spiffe://${TD}/spire-reconciler/demo`;
const SELECTED = { 'spiffe.io/spiffe-id': 'true' };

describe('`run` as its own Deployment: an SVID from the agent, SPIFFE mTLS to the SPIRE server', () => {
  let dir: string;
  let kube: FakeKubeApiServer;
  let spire: MemorySpireServer;
  let agent: MemoryWorkloadApi | undefined;
  let cli: ReturnType<typeof spawnCli> | undefined;
  let agentSocket: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'run-standalone-'));
    agentSocket = join(dir, 'agent', 'spire-agent.sock');
    kube = await FakeKubeApiServer.start();
    kube.writeKubeconfig(join(dir, 'kubeconfig'));
    kube.create(deployedWebhookConfiguration());
    kube.create(ns('shop'));
    kube.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, spec: {} });
    kube.create({
      apiVersion: 'spire.spiffe.io/v1alpha1',
      kind: 'ClusterSPIFFEID',
      metadata: { name: 'workloads' },
      spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/pod/{{ .PodMeta.Name }}', podSelector: { matchLabels: SELECTED } },
    });
    kube.create(pod('shop', 'web', SELECTED));
    // No admin_ids: only an entry with admin: true admits the controller, as bootstrap makes it.
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'admin.sock'), trustDomain: TD, tcp: {} });
    const config = standaloneConfig();
    Object.assign(config, {
      spireServerAddress: spire.tcpAddress,
      workloadAPISocketPath: agentSocket,
      clusterDomain: 'cluster.local',
      logEncoding: 'json',
      metrics: { bindAddress: '127.0.0.1:0' },
      health: { healthProbeBindAddress: '127.0.0.1:0' },
      webhook: { host: '127.0.0.1', port: await freePort() },
    });
    writeFileSync(join(dir, 'config.yaml'), toYaml(config));
  });

  afterEach(async () => {
    await killIfRunning(cli);
    cli = undefined;
    await agent?.close();
    agent = undefined;
    await spire.stop();
    await kube.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const bootstrap = async () => {
    const b = spawnCli(['bootstrap', '--trust-domain', TD, '--cluster-name', 'demo', '--apply', '--socket', join(dir, 'admin.sock')]);
    expect(await exitCode(b)).toBe(0);
  };
  const startAgent = async () => {
    agent = await MemoryWorkloadApi.start({ socketPath: agentSocket, spire, spiffeId: CONTROLLER_ID });
  };
  const entryPaths = () => spire.entries.all().map((e) => e.spiffeId.path).sort();

  it('reconciles over TCP as the bootstrapped admin, and its readiness is its own: synced, with a webhook certificate', { timeout: 90_000 }, async () => {
    await bootstrap();
    await startAgent();
    cli = spawnCli(['run', '--config', join(dir, 'config.yaml')], { env: { KUBECONFIG: join(dir, 'kubeconfig') } });
    const health = await servedAt(cli, 'health probes');
    await eventually(async () => (await get(`${health}/readyz`)).status === 200, `ready: ${cli!.output()}`, 60_000);
    // The pods may be listed once more, with the fields the ClusterSPIFFEID's templates read, right after the first
    // sync: readiness, decided by the conditions here, then waits for that list too.
    let verbose: string[] = [];
    await eventually(async () => (verbose = (await get(`${health}/readyz?verbose`)).body.split('\n'))[0] === '[+]informers-synced ok', 'synced with every field', 30_000).catch(() => undefined);
    // Readiness is decided by the controller's own conditions here; the SVID is reported beside them.
    expect(verbose[0]).toBe('[+]informers-synced ok');
    expect(verbose[1]).toBe('[+]webhook-certificate ok');
    expect(verbose[2]).toMatch(new RegExp(`^\\[\\+\\]spire-identity ok: ${CONTROLLER_ID} until \\S+ \\(does not decide readiness\\)$`));
    await eventually(() => entryPaths().includes('/ns/shop/pod/web'), 'the pod has its entry');
    // Every call of the controller came over TCP, presenting the SVID the agent issued (bootstrap's came on the admin socket).
    const calls = spire.calls.filter((c) => c.socket !== join(dir, 'admin.sock'));
    expect(calls.some((c) => c.method === 'BatchCreateEntry')).toBe(true);
    for (const c of calls) expect(c).toMatchObject({ socket: `tcp:${spire.tcpAddress}`, caller: { spiffeId: CONTROLLER_ID } });
    expect(logLines(cli).find((l) => l.msg === 'live mode started')).toMatchObject({ spire: `${spire.tcpAddress} (SPIFFE mTLS)` });
    // The bootstrap entries are not the reconcile's to delete.
    expect(spire.entries.all().filter((e) => e.id.startsWith('spire-reconciler-bootstrap.')).length).toBe(2);
  });

  it('without an agent, then without its admin entry, says why in one line each, and recovers when each is fixed', { timeout: 120_000 }, async () => {
    cli = spawnCli(['run', '--config', join(dir, 'config.yaml')], { env: { KUBECONFIG: join(dir, 'kubeconfig') } });
    const health = await servedAt(cli, 'health probes');
    const metrics = `${await servedAt(cli, 'metrics')}/metrics`;
    await waitForOutput(cli, /no Workload API socket at .*spire-agent\.sock: is the SPIRE agent running on this node/, 30_000);
    const noSocket = await get(`${health}/readyz/spire-identity`);
    expect(noSocket.status).toBe(503);
    expect(noSocket.body).toMatch(/^spire-identity: no Workload API socket at /);
    await eventually(async () => /^spire_reconciler_workload_api_problems_total\{cause="no-socket"\} [1-9]/m.test((await get(metrics)).body), 'the problem is counted');
    // Retried with backoff, said once while it lasts unchanged.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(logLines(cli).filter((l) => String(l.msg).startsWith('no Workload API socket')).length).toBe(1);

    // The agent comes, but no entry names the controller yet: it says to bootstrap.
    agent = await MemoryWorkloadApi.start({ socketPath: agentSocket, spire, spiffeId: CONTROLLER_ID, mode: 'no-identity' });
    await waitForOutput(cli, /spire-reconciler bootstrap/, 30_000);
    expect(logLines(cli).find((l) => l.cause === 'no-identity')).toBeDefined();
    await eventually(async () => (await get(`${health}/readyz/spire-identity`)).body.includes('no identity issued'), 'the condition names it');
    // The waits for the SPIRE server say why they last.
    await waitForOutput(cli, /waiting for the SPIRE server at .* \(SPIFFE mTLS\) \(\d+ s\): no SVID to present: /, 30_000);

    // Bootstrapped: the agent issues the SVID, and the server admits it.
    await bootstrap();
    agent.setMode('serve');
    await eventually(() => entryPaths().includes('/ns/shop/pod/web'), `the pod has its entry: ${cli!.output()}`, 60_000);
    expect((await get(`${health}/readyz/spire-identity`)).status).toBe(200);
    expect(logLines(cli).filter((l) => (l.level as number) >= 60)).toEqual([]);
    cli.kill('SIGTERM');
    expect(await exitCode(cli)).toBe(0);
  });

  it('`plan` against a remote SPIRE server: the same SVID and transport, flags over the file, and a refusal beside --socket', { timeout: 60_000 }, async () => {
    await bootstrap();
    await startAgent();
    const manifests = join(dir, 'manifests.yaml');
    writeFileSync(
      manifests,
      toYaml({
        apiVersion: 'spire.spiffe.io/v1alpha1',
        kind: 'ClusterStaticEntry',
        metadata: { name: 'gw' },
        spec: { spiffeID: `spiffe://${TD}/gw`, parentID: `spiffe://${TD}/spire/server`, selectors: ['unix:uid:1000'] },
      }),
    );
    const base = ['plan', '--trust-domain', TD, '--cluster-name', 'demo', '--manifests', manifests];
    const plan = spawnCli([...base, '--spire-server-address', spire.tcpAddress!, '--workload-api-socket', agentSocket, '-o', 'json']);
    expect(await exitCode(plan)).toBe(0);
    expect(JSON.parse(plan.output().slice(plan.output().indexOf('{')))).toMatchObject({ create: [{ spiffeID: `spiffe://${TD}/gw` }] });
    expect(spire.calls.some((c) => c.method === 'ListEntries' && c.caller?.spiffeId === CONTROLLER_ID)).toBe(true);

    const both = spawnCli([...base, '--spire-server-address', spire.tcpAddress!, '--socket', join(dir, 'admin.sock')]);
    expect(await exitCode(both)).toBe(2);
    expect(both.output()).toContain('--socket names the SPIRE admin socket and spireServerAddress (or --spire-server-address) its TCP port: give one of them');
  });

  it('a SPIRE server address that refuses connections, then one presenting another SPIFFE ID: each said, waited out, and a condition', { timeout: 90_000 }, async () => {
    await bootstrap();
    await startAgent();
    const refused = `127.0.0.1:${await freePort()}`;
    const run = async (over: Record<string, unknown>) => {
      const config = { ...standaloneConfig(), spireServerAddress: refused, workloadAPISocketPath: agentSocket, clusterDomain: 'cluster.local', logEncoding: 'json', metrics: { bindAddress: '127.0.0.1:0' }, health: { healthProbeBindAddress: '127.0.0.1:0' }, webhook: { host: '127.0.0.1', port: await freePort() }, ...over };
      writeFileSync(join(dir, 'config.yaml'), toYaml(config));
      cli = spawnCli(['run', '--config', join(dir, 'config.yaml')], { env: { KUBECONFIG: join(dir, 'kubeconfig') } });
      return servedAt(cli, 'health probes');
    };
    let health = await run({});
    await waitForOutput(cli!, new RegExp(`waiting for the SPIRE server at ${refused} \\(SPIFFE mTLS\\) \\(\\d+ s\\): connection refused by ${refused}: is the SPIRE server running`), 30_000);
    await eventually(async () => (await get(`${health}/readyz/spire-server`)).body.includes('connection refused'), 'the spire-server condition says so');
    cli!.kill('SIGTERM');
    expect(await exitCode(cli!)).toBe(0);

    // The real server's address, but another SPIFFE ID expected of it: the handshake is refused, and why.
    health = await run({ spireServerAddress: spire.tcpAddress, spireServerID: `spiffe://${TD}/not-the-server` });
    await waitForOutput(cli!, new RegExp(`the server presented spiffe://${TD}/spire/server, not spiffe://${TD}/not-the-server \\(spireServerID\\)`), 30_000);
    const condition = await get(`${health}/readyz/spire-server`);
    expect(condition.status).toBe(503);
    expect(condition.body).toContain('not spiffe://example.org/not-the-server');
    expect(entryPaths()).not.toContain('/ns/shop/pod/web');
  });
});
