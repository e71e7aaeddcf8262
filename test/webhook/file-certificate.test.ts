/**
 * File mode (webhook.certDir): the certificate comes from a mounted
 * kubernetes.io/tls Secret, e.g. issued by cert-manager (#118). Renewals are
 * served without a restart; nothing is minted and the caBundle is left to
 * cert-manager's CA injector.
 */
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pino, type Logger } from 'pino';
import { SpireClient } from '../../src/spire/index.js';
import { startWebhook, type Webhook } from '../../src/webhook/index.js';
import { x509 } from '../../src/x509/index.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { captureLog, caBundles, issueFileCert, occupiedPort, PATHS, post, review, SERVICE_DNS, testConfig, vwcObject, waitFor } from './helpers.js';

const VALID = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterFederatedTrustDomain', metadata: { name: 'f' }, spec: { trustDomain: 'backend', bundleEndpointURL: 'https://backend.test/bundle', bundleEndpointProfile: { type: 'https_web' } } };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-certs-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

let generation = 0;
/**
 * Writes files into `dir` the way kubelet's AtomicWriter updates a Secret
 * volume: a fresh `..<timestamp>` directory, a `..data_tmp` symlink to it
 * renamed over `..data`, and top-level symlinks `tls.crt -> ..data/tls.crt`.
 */
function writeSecretVolume(dir: string, files: Record<string, string>): void {
  const ts = `..2026_01_01_00_00_00.${++generation}`;
  mkdirSync(join(dir, ts));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, ts, name), content);
  symlinkSync(ts, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  for (const name of Object.keys(files)) {
    try {
      symlinkSync(join('..data', name), join(dir, name));
    } catch {
      // the link exists from an earlier generation and now resolves through the new ..data
    }
  }
  for (const entry of readdirSync(dir)) if (entry.startsWith('..2026') && entry !== ts) rmSync(join(dir, entry), { recursive: true });
}

async function start(certDir: string, opts: { checkIntervalMs: number; log?: Logger; port?: number }): Promise<{ webhook: Webhook; kube: FakeKubeApiServer }> {
  const kube = await FakeKubeApiServer.start();
  cleanups.push(() => kube.close());
  kube.create(vwcObject());
  // A socket nobody serves: file mode must never need SPIRE.
  const spire = new SpireClient({ socket: join(certDir, '..', 'no-spire.sock'), rpcTimeoutMs: 500 });
  cleanups.push(() => spire.close());
  const webhook = await startWebhook({ config: testConfig({ certDir, ...(opts.port !== undefined ? { port: opts.port } : {}) }), kc: kube.kubeConfig(), spire, log: opts.log ?? pino({ level: 'silent' }), checkIntervalMs: opts.checkIntervalMs });
  cleanups.push(() => webhook.close());
  return { webhook, kube };
}

async function servedSerial(webhook: Webhook, ca: string): Promise<string> {
  const reply = await post(webhook.port, PATHS.cftd, JSON.stringify(review('ClusterFederatedTrustDomain', 'CREATE', VALID)), { ca, servername: SERVICE_DNS });
  expect(reply.json.response.allowed).toBe(true);
  return new x509.X509Certificate(reply.cert.raw).serialNumber;
}

describe('with webhook.certDir, the webhook serves the mounted Secret and follows its renewals without a restart', () => {
  it("a renewal swapped in through kubelet's ..data symlink is served on the same listener, seen by the directory watch", async () => {
    const dir = tempDir();
    const a = await issueFileCert(undefined, SERVICE_DNS);
    writeSecretVolume(dir, { 'tls.crt': a.crt, 'tls.key': a.key, 'ca.crt': a.caPem });
    // A periodic check far beyond the test's length: only the watch can notice the renewal.
    const { webhook, kube } = await start(dir, { checkIntervalMs: 10 * 60_000 });
    await waitFor('ready', () => webhook.ready().ok);
    const port = webhook.port;
    expect(await servedSerial(webhook, a.caPem)).toBe(a.serial);
    expect(webhook.certificate()!.pem).toBe(a.crt);

    const b = await issueFileCert(a.ca, SERVICE_DNS);
    writeSecretVolume(dir, { 'tls.crt': b.crt, 'tls.key': b.key, 'ca.crt': b.caPem });
    await waitFor('the renewed certificate served', async () => (await servedSerial(webhook, a.caPem)) === b.serial);
    expect(webhook.port).toBe(port);
    expect(webhook.certificate()!.notAfter.getTime()).toBe(new x509.X509Certificate(b.crt).notAfter.getTime());

    // cert-manager's CA injector owns the caBundle: no VWC reads or writes, nothing minted.
    expect(kube.requests.filter((r) => r.path.includes('validatingwebhookconfigurations'))).toEqual([]);
    expect(caBundles(kube)).toEqual(['', '']);
  });

  it('not ready until the Secret is mounted, naming the missing files; files appearing later are found by the periodic check', async () => {
    const parent = tempDir();
    const dir = join(parent, 'serving-certs'); // does not exist yet, so there is nothing to watch
    const { webhook } = await start(dir, { checkIntervalMs: 200 });
    await waitFor('the first check', () => webhook.ready().detail?.includes('not found'));
    expect(webhook.ready()).toEqual({ ok: false, detail: `no serving certificate yet: ${join(dir, 'tls.crt')} and ${join(dir, 'tls.key')} not found` });
    expect(webhook.certificate()).toBeUndefined();
    expect(webhook.port).toBe(0);

    const a = await issueFileCert(undefined, SERVICE_DNS);
    mkdirSync(dir);
    writeFileSync(join(dir, 'tls.key'), a.key);
    writeFileSync(join(dir, 'tls.crt'), a.crt);
    await waitFor('ready', () => webhook.ready().ok);
    expect(await servedSerial(webhook, a.caPem)).toBe(a.serial);
  });

  it('a renewal caught half-written (a key that does not match) is not served; the old certificate stays until the pair is whole', async () => {
    const dir = tempDir();
    const a = await issueFileCert(undefined, SERVICE_DNS);
    writeFileSync(join(dir, 'tls.crt'), a.crt);
    writeFileSync(join(dir, 'tls.key'), a.key);
    const { log, lines } = captureLog();
    const { webhook } = await start(dir, { checkIntervalMs: 200, log });
    await waitFor('ready', () => webhook.ready().ok);

    const b = await issueFileCert(a.ca, SERVICE_DNS);
    writeFileSync(join(dir, 'tls.crt'), b.crt); // the key is still a's
    await waitFor('the mismatch reported', () => lines.find((l) => l.msg === 'webhook serving certificate files not usable'));
    expect(String(lines.find((l) => l.msg === 'webhook serving certificate files not usable')!.reason)).toMatch(/key values mismatch/);
    expect(webhook.ready().ok).toBe(true);
    expect(await servedSerial(webhook, a.caPem)).toBe(a.serial);

    writeFileSync(join(dir, 'tls.key'), b.key);
    await waitFor('the whole pair served', async () => (await servedSerial(webhook, a.caPem)) === b.serial);
  });

  it('an expired certificate in the Secret makes the webhook not ready, and says when it expired', async () => {
    const dir = tempDir();
    const a = await issueFileCert(undefined, SERVICE_DNS, 1);
    writeFileSync(join(dir, 'tls.crt'), a.crt);
    writeFileSync(join(dir, 'tls.key'), a.key);
    const { webhook } = await start(dir, { checkIntervalMs: 200 });
    const notAfter = new x509.X509Certificate(a.crt).notAfter;
    await waitFor('a certificate loaded', () => webhook.certificate());
    await waitFor('expiry noticed', () => !webhook.ready().ok, 5000);
    expect(webhook.ready().detail).toBe(`serving certificate expired at ${notAfter.toISOString()}: no renewed certificate yet`);
  });
});

describe('with webhook.certDir, a webhook port already in use is reported as a bind failure, not as a Secret problem', () => {
  it('readiness names the address while the certificate files are taken as good', async () => {
    const held = await occupiedPort();
    cleanups.push(() => held.release());
    const dir = tempDir();
    const a = await issueFileCert(undefined, SERVICE_DNS);
    writeFileSync(join(dir, 'tls.crt'), a.crt);
    writeFileSync(join(dir, 'tls.key'), a.key);
    const { log, lines } = captureLog();
    const { webhook } = await start(dir, { checkIntervalMs: 200, log, port: held.port });
    const problem = `cannot serve the admission webhook on 127.0.0.1:${held.port}: address already in use`;
    await waitFor('the bind failure reported', () => webhook.ready().detail?.includes('address already in use'));
    expect(webhook.ready()).toEqual({ ok: false, detail: problem });
    // The error itself is logged: pino adds its causes' messages after its own.
    expect(lines.find((l) => l.msg === 'webhook server cannot listen')?.err).toMatchObject({ type: 'Error', message: expect.stringContaining(problem) });
    expect(lines.filter((l) => l.msg === 'webhook serving certificate files not usable')).toEqual([]);
    expect(lines.filter((l) => l.msg === 'webhook serving certificate loaded')).toHaveLength(1);
  });
});
