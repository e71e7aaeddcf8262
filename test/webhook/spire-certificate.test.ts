/**
 * The serving certificate minted from SPIRE, observed as an operator and the
 * API server observe it: what the TLS handshake presents, what the
 * ValidatingWebhookConfiguration holds, what readiness says.
 */
import { Agent, request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { pino, type Logger } from 'pino';
import { createCertificateAuthority } from '../../src/memspire/ca.js';
import type { MemorySpireServerOptions } from '../../src/memspire/index.js';
import { SpireClient } from '../../src/spire/index.js';
import { startWebhook, type Webhook, type WebhookOptions } from '../../src/webhook/index.js';
import { x509 } from '../../src/x509/index.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { startTestSpire, type TestSpire } from '../support/spire.js';
import { captureLog, caBundles, demoWebhooks, getVwc, occupiedPort, PATHS, post, review, SERVICE_DNS, sans, testConfig, VWC_NAME, vwcObject, waitFor } from './helpers.js';

const IDENTITY = 'spiffe://example.org/spire-controller-manager-webhook';
const VALID = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'x' }, spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}' } };

interface World {
  spire: TestSpire;
  kube: FakeKubeApiServer;
  client: SpireClient;
  webhook: Webhook;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function world(opts: { spire?: Partial<MemorySpireServerOptions>; vwc?: object | null; webhook?: Partial<WebhookOptions>; log?: Logger } = {}): Promise<World> {
  const spire = await startTestSpire(opts.spire);
  cleanups.push(() => spire.close());
  const kube = await FakeKubeApiServer.start();
  cleanups.push(() => kube.close());
  if (opts.vwc !== null) kube.create(opts.vwc ?? vwcObject());
  const client = new SpireClient({ socket: spire.socketPath });
  cleanups.push(async () => client.close());
  const webhook = await startWebhook({ config: testConfig(), kc: kube.kubeConfig(), spire: client, log: opts.log ?? pino({ level: 'silent' }), checkIntervalMs: 200, ...opts.webhook });
  cleanups.push(() => webhook.close());
  return { spire, kube, client, webhook };
}

const caPem = (w: World) => w.spire.server.ca.cert.toString('pem');
const mints = (w: World) => w.spire.server.calls.filter((c) => c.method === 'MintX509SVID').length;
const vwcPatches = (w: World) => w.kube.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(`/validatingwebhookconfigurations/${VWC_NAME}`));
const vwcGets = (w: World) => w.kube.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/validatingwebhookconfigurations/${VWC_NAME}`)).length;

/** The certificate blocks of a PEM bundle, as DER, for comparing with SPIRE's authorities. */
const ders = (pem: string) => (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []).map((b) => Buffer.from(new x509.X509Certificate(b).rawData));

async function admitOnce(w: World, servername: string, ca: string) {
  const reply = await post(w.webhook.port, PATHS.csid, JSON.stringify(review('ClusterSPIFFEID', 'CREATE', VALID)), { ca, servername });
  return { reply, serial: new x509.X509Certificate(reply.cert.raw).serialNumber };
}

describe('the API server can call the webhook with the caBundle the webhook put in the ValidatingWebhookConfiguration', () => {
  it('serves an X509-SVID for the upstream identity, named after every Service the configuration routes to, signed by SPIRE', async () => {
    const webhooks = [
      ...demoWebhooks(),
      { name: 'vclusterstaticentry.spiffe.io', path: PATHS.cse, service: { name: 'other-webhook', namespace: 'other-ns' } },
      { name: 'external.example.com', path: PATHS.cse, url: 'https://webhook.example.com/validate' },
    ];
    const w = await world({ vwc: vwcObject(webhooks) });
    await waitFor('ready', () => w.webhook.ready().ok);
    await waitFor('caBundles', () => caBundles(w.kube).every((b) => b !== ''));

    const cert = w.webhook.certificate()!;
    const { uris, dns, cert: leaf } = sans(cert.pem);
    expect(uris).toEqual([IDENTITY]);
    // Sorted and de-duplicated: the two demo webhooks share one Service; the url webhook has none.
    expect(dns).toEqual(['other-webhook.other-ns.svc', SERVICE_DNS]);
    expect(await leaf.verify({ publicKey: w.spire.server.ca.cert.publicKey, signatureOnly: true })).toBe(true);
    expect(cert.notAfter.getTime()).toBe(leaf.notAfter.getTime());

    // Every webhook, url ones included, trusts exactly SPIRE's X.509 authorities.
    for (const bundle of caBundles(w.kube)) expect(ders(bundle)).toEqual([w.spire.server.ca.der]);

    // The handshake succeeds for each Service name with only the patched caBundle as trust.
    const ca = caBundles(w.kube)[0]!;
    for (const name of dns) expect((await admitOnce(w, name, ca)).reply.json.response.allowed).toBe(true);
    // ...and fails for a name the certificate does not carry.
    await expect(admitOnce(w, 'somewhere-else.spire-system.svc', ca)).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('patches the caBundles once with a JSON patch, and not again while nothing changes', async () => {
    const w = await world();
    await waitFor('caBundles', () => caBundles(w.kube).every((b) => b !== ''));
    const gets = vwcGets(w);
    await waitFor('five more checks', () => vwcGets(w) >= gets + 5);
    const patches = vwcPatches(w);
    expect(patches).toHaveLength(1);
    expect(patches[0]!.contentType).toBe('application/json-patch+json');
    expect(mints(w)).toBe(1);
  });

  it('is not ready while the caBundle is not written, though the certificate is served: the API server could not verify it', async () => {
    const w = await world({ vwc: null });
    w.kube.faults.failNext(3, 500, { method: 'PATCH', pathIncludes: `/validatingwebhookconfigurations/${VWC_NAME}` });
    w.kube.create(vwcObject());
    const detail = await waitFor('not ready, naming the caBundle', () => w.webhook.ready().detail?.includes('caBundle') && w.webhook.ready().detail);
    expect(detail).toMatch(new RegExp(`^the caBundle of ValidatingWebhookConfiguration "${VWC_NAME}" does not carry SPIRE's authorities yet: `));
    expect(w.webhook.port).toBeGreaterThan(0);
    expect(caBundles(w.kube).every((b) => b === '')).toBe(true);
    await waitFor('ready once the patch goes through', () => w.webhook.ready().ok, 15_000);
    expect(caBundles(w.kube).every((b) => b !== '')).toBe(true);
  });

  it('a caBundle patch refused by RBAC (403) does not hold readiness back, and the reason is reported', async () => {
    const w = await world({ vwc: null });
    w.kube.faults.forbid({ method: 'PATCH', pathIncludes: `/validatingwebhookconfigurations/${VWC_NAME}` });
    w.kube.create(vwcObject());
    await waitFor('ready', () => w.webhook.ready().ok);
    expect(caBundles(w.kube).every((b) => b === '')).toBe(true);
  });

  it('a certificate rewritten by hand in a caBundle is put back', async () => {
    const w = await world();
    await waitFor('caBundles', () => caBundles(w.kube).every((b) => b !== ''));
    const vwc = getVwc(w.kube);
    const stranger = await createCertificateAuthority('stranger.test', 3600);
    vwc.webhooks[1].clientConfig.caBundle = Buffer.from(stranger.cert.toString('pem')).toString('base64');
    w.kube.update(vwc);
    await waitFor('the caBundle restored', () => caBundles(w.kube).every((b) => b === caBundles(w.kube)[0]) && ders(caBundles(w.kube)[1]!)[0]?.equals(w.spire.server.ca.der));
    expect(vwcPatches(w)).toHaveLength(2);
  });

  it("a new authority in SPIRE's bundle (a CA rotation) reaches every caBundle", async () => {
    const w = await world();
    await waitFor('caBundles', () => caBundles(w.kube).every((b) => b !== ''));
    const next = await createCertificateAuthority('example.org', 48 * 3600);
    w.spire.server.bundles.put({ trustDomain: 'example.org', x509Authorities: [w.spire.server.ca.der, next.der], jwtAuthorities: [], refreshHint: '0', sequenceNumber: '2' });
    await waitFor('both authorities in every caBundle', () => caBundles(w.kube).every((b) => ders(b).length === 2));
    for (const bundle of caBundles(w.kube)) expect(ders(bundle)).toEqual([w.spire.server.ca.der, next.der]);
    // Go's PEM layout, so replicas of spire-controller-manager during a migration write the same bytes.
    expect(caBundles(w.kube)[0]).toBe(caPem(w).replace(/\r\n/g, '\n').trimEnd() + '\n' + next.cert.toString('pem').replace(/\r\n/g, '\n').trimEnd() + '\n');
  });
});

describe('a Service change in the ValidatingWebhookConfiguration brings a certificate with the new name', () => {
  it('re-mints with the new DNS name; the old name no longer verifies; the port stays', async () => {
    const w = await world();
    await waitFor('ready', () => w.webhook.ready().ok);
    const port = w.webhook.port;
    const ca = await waitFor('caBundle', () => caBundles(w.kube)[0]);
    const before = sans(w.webhook.certificate()!.pem);
    expect(before.dns).toEqual([SERVICE_DNS]);

    const vwc = getVwc(w.kube);
    for (const wh of vwc.webhooks) wh.clientConfig.service = { ...wh.clientConfig.service, name: 'spire-reconciler-webhook' };
    w.kube.update(vwc);

    const renamed = 'spire-reconciler-webhook.spire-system.svc';
    await waitFor('a certificate for the new name', () => sans(w.webhook.certificate()!.pem).dns.includes(renamed));
    expect(sans(w.webhook.certificate()!.pem).dns).toEqual([renamed]);
    expect(sans(w.webhook.certificate()!.pem).uris).toEqual([IDENTITY]);
    expect(w.webhook.port).toBe(port);
    expect((await admitOnce(w, renamed, ca)).reply.json.response.allowed).toBe(true);
    await expect(admitOnce(w, SERVICE_DNS, ca)).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(mints(w)).toBe(2);
  });
});

describe('rotation replaces the certificate before it expires, without a failed request', () => {
  it('6-second SVIDs are renewed at half-life while requests keep flowing on new and kept-alive connections', async () => {
    // ttl 0 asks SPIRE for its default, set to 6 s here: real expiry, real clock.
    const w = await world({ spire: { defaultX509SvidTtlSeconds: 6 }, webhook: { svidTtlSeconds: 0 } });
    await waitFor('ready', () => w.webhook.ready().ok);
    const ca = await waitFor('caBundle', () => caBundles(w.kube)[0]);
    const port = w.webhook.port;
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1, ca, servername: SERVICE_DNS });
    cleanups.push(async () => keepAlive.destroy());
    const keptAlive = (): Promise<{ status: number; localPort: number }> =>
      new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: PATHS.csid, method: 'POST', agent: keepAlive, headers: { 'content-type': 'application/json' } }, (res) => {
          const localPort = (res.socket as TLSSocket).localPort ?? 0;
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, localPort }));
        });
        req.on('error', reject);
        req.end(JSON.stringify(review('ClusterSPIFFEID', 'CREATE', VALID)));
      });

    const failures: string[] = [];
    const served = new Map<string, Date>();
    const keptAlivePorts = new Set<number>();
    const deadline = Date.now() + 25_000;
    while (served.size < 3 && Date.now() < deadline) {
      const at = new Date();
      try {
        const { reply, serial } = await admitOnce(w, SERVICE_DNS, ca);
        if (reply.status !== 200 || reply.json?.response?.allowed !== true) failures.push(`HTTP ${reply.status}: ${reply.body}`);
        const validTo = new Date(reply.cert.valid_to);
        if (validTo <= at) failures.push(`served ${serial}, expired at ${validTo.toISOString()}`);
        served.set(serial, validTo);
      } catch (err) {
        failures.push(`fresh connection: ${(err as Error).message}`);
      }
      try {
        const r = await keptAlive();
        if (r.status !== 200) failures.push(`kept-alive connection: HTTP ${r.status}`);
        keptAlivePorts.add(r.localPort);
      } catch (err) {
        failures.push(`kept-alive connection: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(failures).toEqual([]);
    expect(served.size).toBeGreaterThanOrEqual(3);
    // The listener was never restarted: the same port, and one connection held open throughout.
    expect(w.webhook.port).toBe(port);
    expect(keptAlivePorts.size).toBe(1);
  });

  it('with an injected clock past half-life, a new key and certificate are served at once', async () => {
    let offset = 0;
    const { log, lines } = captureLog();
    const w = await world({ webhook: { now: () => Date.now() + offset }, log });
    await waitFor('ready', () => w.webhook.ready().ok);
    const ca = await waitFor('caBundle', () => caBundles(w.kube)[0]);
    const first = sans(w.webhook.certificate()!.pem);
    const firstKey = Buffer.from(first.cert.publicKey.rawData);

    offset = 12 * 3600 * 1000 + 60_000; // the 24 h SVID is past half-life
    await waitFor('a new certificate', () => sans(w.webhook.certificate()!.pem).serial !== first.serial);
    const second = sans(w.webhook.certificate()!.pem);
    expect(Buffer.from(second.cert.publicKey.rawData).equals(firstKey)).toBe(false);
    expect((await admitOnce(w, SERVICE_DNS, ca)).serial).toBe(second.serial);
    expect(lines.filter((l) => l.msg === 'webhook serving certificate minted').map((l) => l.reason)).toEqual(['initializing', 'expires soon']);
  });
});

describe('readiness: ready once a certificate is served, or while no ValidatingWebhookConfiguration sends requests', () => {
  it('without the configuration nothing is minted or listened on, the probe passes and a warning says why; once it exists, ready only with a certificate', async () => {
    const { log, lines } = captureLog();
    const w = await world({ vwc: null, log });
    const reason = `ValidatingWebhookConfiguration "${VWC_NAME}" not found; the serving certificate is minted once it exists, with its services' DNS names`;
    await waitFor('the warning', () => lines.some((l) => l.level === 40 && l.reason === reason));
    // An install without deploy/webhook.yaml: the SPIRE server pod the sidecar sits in must still become ready.
    expect(w.webhook.ready()).toEqual({ ok: true });
    expect(w.webhook.certificate()).toBeUndefined();
    expect(w.webhook.port).toBe(0); // configured 0: nothing bound yet
    expect(mints(w)).toBe(0);

    w.spire.server.faults.failNext(1, 14, { method: 'MintX509SVID', message: 'injected outage' });
    w.kube.create(vwcObject());
    await waitFor('not ready while the first mint fails', () => w.webhook.ready().detail?.includes('injected outage'));
    expect(w.webhook.ready().ok).toBe(false);
    await waitFor('ready', () => w.webhook.ready().ok);
    expect(w.webhook.port).toBeGreaterThan(0);
    expect(sans(w.webhook.certificate()!.pem).dns).toEqual([SERVICE_DNS]);
    expect(mints(w)).toBe(2);
  });

  it("while SPIRE refuses to mint, the probe carries SPIRE's error; retries back off and then succeed", async () => {
    const w = await world({ vwc: null });
    w.spire.server.faults.failNext(2, 14, { method: 'MintX509SVID', message: 'injected outage' });
    w.kube.create(vwcObject());
    const detail = await waitFor('the failure reported', () => w.webhook.ready().detail);
    await waitFor('the mint failure reported', () => w.webhook.ready().detail?.includes('injected outage'));
    expect(detail).toMatch(/^no serving certificate yet: /);
    expect(w.webhook.ready().detail).toMatch(/^no serving certificate yet: SPIRE SVID\.MintX509SVID failed: UNAVAILABLE on .*: injected outage$/);
    await waitFor('ready after the outage', () => w.webhook.ready().ok);
    expect(mints(w)).toBe(3);
  });
});

describe('a webhook port already in use is reported as a bind failure, and SPIRE is not asked for another certificate', () => {
  it('readiness and the log name the address; the minted certificate is kept while the bind is retried, and served once the port is free', async () => {
    const held = await occupiedPort();
    cleanups.push(() => held.release());
    const { log, lines } = captureLog();
    const w = await world({ webhook: { config: testConfig({ port: held.port }) }, log });
    const problem = `cannot serve the admission webhook on 127.0.0.1:${held.port}: address already in use`;
    await waitFor('the bind failure reported', () => w.webhook.ready().detail?.includes('address already in use'));
    expect(w.webhook.ready()).toEqual({ ok: false, detail: problem });

    // Ten certificate checks and the first bind retry (after 1 s) go by.
    await new Promise((r) => setTimeout(r, 2200));
    expect(mints(w)).toBe(1);
    expect(lines.filter((l) => l.msg === 'webhook server cannot listen').map((l) => l.err)).toEqual([expect.objectContaining({ type: 'Error', message: expect.stringContaining(problem) })]);
    expect(lines.filter((l) => l.msg === 'webhook certificate check failed')).toEqual([]);
    expect(w.webhook.ready()).toEqual({ ok: false, detail: problem });

    await held.release();
    await waitFor('ready once the port is free', () => w.webhook.ready().ok, 10_000);
    expect(w.webhook.port).toBe(held.port);
    const ca = await waitFor('caBundle', () => caBundles(w.kube)[0]);
    expect((await admitOnce(w, SERVICE_DNS, ca)).reply.json.response.allowed).toBe(true);
    expect(mints(w)).toBe(1);
  });
});
