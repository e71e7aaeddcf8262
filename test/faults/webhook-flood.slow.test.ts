/**
 * The webhook's port takes requests from anyone who can reach it (no client
 * authentication, as upstream's). A flood of the largest bodies it reads
 * must not take the process past deploy/'s memory limit, where the pod
 * would be OOM-killed with the SPIRE server beside it, nor keep the leader
 * from renewing its Lease and reconciling.
 *
 * `spire-reconciler run` runs as the image runs it (compiled, started by the
 * entrypoint, which sizes V8 from the memory limit and sets malloc's and
 * V8's flags), with deploy/sidecar's environment and memory limit, while
 * 100 clients each send an 8 MB AdmissionReview at once; its resident
 * memory is read from /proc during the flood and its peak (VmHWM) after.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { eventually } from '../live/world.js';
import { endProcessTest, httpGet as get, servedAt, type spawnCli, waitForOutput } from '../support/cli.js';
import { deployedConfig, deployedContainer, deployedTestConfig, deployedWebhookConfiguration, pod, seedDeployedCluster } from '../support/deployed.js';
import { buildImageLayout, type ImageLayout } from '../support/image.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { freePort } from '../support/ports.js';
import { PATHS, post, review } from '../webhook/helpers.js';

const TD = 'example.org';
const SELECTED = { 'spiffe.io/spiffe-id': 'true' };
/** deploy/webhook.yaml's Service, as the API server names it when it calls the webhook. */
const SERVICE_DNS = 'spire-reconciler-webhook.spire-server.svc';
const CLIENTS = 100;
const BODY_BYTES = 8_000_000;
const MiB = 1024 * 1024;
// Shorter than deploy/'s (15 s, 10 s, 2 s): a loop held for four seconds loses the Lease.
const LEASE = { leaseDuration: '6s', renewDeadline: '4s', retryPeriod: '1s' };
const LEASE_MS = 6_000;

/** A ClusterSPIFFEID review of exactly `bytes` bytes: a valid object with one huge annotation. */
function hugeReview(bytes: number): Buffer {
  const shell = JSON.stringify(review('ClusterSPIFFEID', 'CREATE', { metadata: { name: 'huge', annotations: { 'example.org/blob': '' } }, spec: { spiffeIDTemplate: 'spiffe://example.org/huge' } }));
  return Buffer.from(shell.replace('"example.org/blob":""', `"example.org/blob":"${'x'.repeat(bytes - Buffer.byteLength(shell))}"`));
}

/** Resident and peak resident memory of a process, in bytes. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/** One POST of `body` on its own TLS connection, written 1 MiB at a time; chunked unless `withLength`. Its status, or the error that ended it. */
function send(port: number, tls: { ca: string; servername: string }, body: Buffer, withLength: boolean): Promise<number | string> {
  return new Promise((resolve) => {
    const headers = { 'content-type': 'application/json', ...(withLength ? { 'content-length': body.length } : { 'transfer-encoding': 'chunked' }) };
    const req = request({ host: '127.0.0.1', port, path: PATHS.csid, method: 'POST', ca: tls.ca, servername: tls.servername, agent: false, headers }, (res: IncomingMessage) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', (err) => resolve(err.message));
    });
    req.on('error', (err) => resolve(err.message));
    void (async () => {
      for (let at = 0; at < body.length && !req.destroyed; at += MiB) {
        if (!req.write(body.subarray(at, at + MiB))) await new Promise((r) => req.once('drain', r).once('close', r));
      }
      req.end();
    })();
  });
}

describe('fault: 100 concurrent 8 MB admission reviews (issue 25, item 3)', () => {
  let image: ImageLayout | undefined;
  let dir: string;
  let kube: FakeKubeApiServer;
  let spire: MemorySpireServer;
  let cli: ReturnType<typeof spawnCli> | undefined;
  let webhookPort: number;
  const leaderElection = deployedConfig().leaderElection as { resourceName: string; resourceNamespace: string };

  beforeAll(async () => {
    image = await buildImageLayout();
  }, 300_000);
  afterAll(() => image?.remove());

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-flood-'));
    const socketPath = join(dir, 'api.sock');
    kube = await FakeKubeApiServer.start();
    kube.writeKubeconfig(join(dir, 'kubeconfig'));
    seedDeployedCluster(kube);
    kube.create({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'workloads' }, spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/pod/{{ .PodMeta.Name }}', podSelector: { matchLabels: SELECTED } } });
    kube.create(pod('shop', 'before', SELECTED));
    spire = await MemorySpireServer.start({ socketPath, trustDomain: TD });
    webhookPort = await freePort();
    const config = deployedTestConfig(socketPath, webhookPort, { leaderElection: { ...leaderElection, leaderElect: true, ...LEASE } });
    writeFileSync(join(dir, 'config.yaml'), toYaml(config));
  });

  afterEach(async () => {
    await endProcessTest({ cli, servers: [spire, kube], dir });
    cli = undefined;
  });

  const entryPaths = () => spire.entries.all().map((e) => e.spiffeId.path);
  const lease = () => kube.get('coordination.k8s.io/v1', 'Lease', leaderElection.resourceName, leaderElection.resourceNamespace) as { spec: { holderIdentity: string; renewTime: string } };

  it('stays under the memory limit, answers every client, keeps its Lease and keeps reconciling', { timeout: 300_000 }, async () => {
    const container = deployedContainer();
    cli = image!.spawn(['run', '--config', join(dir, 'config.yaml')], { env: { ...container.env, KUBECONFIG: join(dir, 'kubeconfig') }, memoryLimitBytes: container.memoryLimitBytes });
    const pid = cli.pid!;
    const health = await servedAt(cli, 'health probes');
    await waitForOutput(cli, /became leader/, 120_000);
    await eventually(() => entryPaths().includes('/ns/shop/pod/before'), 'the first pod has its entry', 60_000);
    await eventually(async () => (await get(`${health}/readyz/webhook-certificate`)).status === 200, 'a webhook certificate', 60_000);
    const vwc = kube.get('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', deployedWebhookConfiguration().metadata.name) as { webhooks: { clientConfig: { caBundle?: string } }[] };
    const tls = { ca: Buffer.from(vwc.webhooks[0]!.clientConfig.caBundle ?? '', 'base64').toString('utf8'), servername: SERVICE_DNS };
    const holder = lease().spec.holderIdentity;
    const before = memoryOf(pid);

    const body = hugeReview(BODY_BYTES);
    let sampledPeak = before.rss;
    const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, memoryOf(pid).rss)), 20);
    // Half declare their length; half are chunked, their bytes counted as they arrive.
    const flood = Promise.all(Array.from({ length: CLIENTS }, (_, i) => send(webhookPort, tls, body, i % 2 === 0)));
    // A pod created while the flood is read gets its entry.
    kube.create(pod('shop', 'during', SELECTED));
    const answers = await flood;
    await eventually(() => entryPaths().includes('/ns/shop/pod/during'), 'the pod created during the flood has its entry', 60_000);
    clearInterval(sampler);
    const after = memoryOf(pid);

    const statuses: Record<string, number> = {};
    for (const a of answers) statuses[a] = (statuses[a] ?? 0) + 1;
    const mib = (n: number) => Math.round(n / MiB);
    const environment = readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter((e) => /^(NODE_OPTIONS|MALLOC_ARENA_MAX)=/.test(e));
    console.log(`webhook flood: ${JSON.stringify({ environment, limitMiB: mib(container.memoryLimitBytes), residentBeforeMiB: mib(before.rss), sampledPeakMiB: mib(sampledPeak), peakMiB: mib(after.hwm), residentAfterMiB: mib(after.rss), answers: statuses })}`);

    // The peak the kernel recorded over the process's life, start and flood included.
    expect(mib(after.hwm)).toBeLessThan(mib(container.memoryLimitBytes));
    // Every client got an HTTP answer: its review's verdict, or 429 to come back later; no reset.
    expect(answers.filter((a) => a !== 200 && a !== 429)).toEqual([]);
    expect(statuses['200']).toBeGreaterThan(0);
    // The webhook still answers, the leader kept its Lease throughout and holds it now.
    const small = await post(webhookPort, PATHS.csid, JSON.stringify(review('ClusterSPIFFEID', 'CREATE', { metadata: { name: 'small' }, spec: { spiffeIDTemplate: 'spiffe://example.org/small' } })), tls);
    expect(small.json.response.allowed).toBe(true);
    expect(cli.exitCode).toBeNull();
    expect(cli.output()).not.toMatch(/lost leadership/);
    expect(lease().spec.holderIdentity).toBe(holder);
    expect(Date.parse(lease().spec.renewTime)).toBeGreaterThan(Date.now() - LEASE_MS);
  });
});
