/**
 * The admission webhook's serving certificate minted by a real SPIRE server,
 * and the quick-start demo (plan, reconcile --once, plan again) run against a
 * real SPIRE server seeded with the demo's previous state: it must plan and do
 * exactly what it does against the in-memory server.
 * Run by `npm run test:real-spire`.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_DIR } from '../../src/cli/demo.js';
import { readSeedFile } from '../../src/cli/memory-spire.js';
import { runOnce } from '../../src/cli/one-pass.js';
import { SpireClient } from '../../src/spire/index.js';
import { startWebhook } from '../../src/webhook/index.js';
import { x509 } from '../../src/x509/index.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { emptySpire, startRealSpire } from '../support/real-spire.js';
import { openRawStubs, startTestSpire } from '../support/spire.js';
import { caBundles, PATHS, post, review, SERVICE_DNS, sans, testConfig, vwcObject, waitFor } from '../webhook/helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const ders = (pem: string) => (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []).map((b) => Buffer.from(new x509.X509Certificate(b).rawData));

describe('the admission webhook with a real SPIRE server', () => {
  it('serves an X509-SVID minted by SPIRE (MintX509SVID), trusted through the caBundle it writes', async () => {
    const real = await startRealSpire({ trustDomain: 'example.org' });
    cleanups.push(() => real.stop());
    const kube = await FakeKubeApiServer.start();
    cleanups.push(() => kube.close());
    kube.create(vwcObject());
    const client = new SpireClient({ socket: real.socketPath });
    cleanups.push(async () => client.close());
    const webhook = await startWebhook({ config: testConfig(), kc: kube.kubeConfig(), spire: client, log: pino({ level: 'silent' }), checkIntervalMs: 200 });
    cleanups.push(() => webhook.close());
    await waitFor('ready', () => webhook.ready().ok, 60_000);
    await waitFor('caBundles', () => caBundles(kube).every((b) => b !== ''), 60_000);

    const { uris, dns, cert: leaf } = sans(webhook.certificate()!.pem);
    expect(uris).toEqual(['spiffe://example.org/spire-controller-manager-webhook']);
    expect(dns).toEqual([SERVICE_DNS]);
    const authorities = (await client.getBundle()).x509_authorities.map((a) => Buffer.from(a.asn1));
    for (const bundle of caBundles(kube)) expect(ders(bundle)).toEqual(authorities);
    const ca = new x509.X509Certificate(authorities[0]!);
    expect(await leaf.verify({ publicKey: ca.publicKey, signatureOnly: true })).toBe(true);

    const reply = await post(webhook.port, PATHS.csid, JSON.stringify(review('ClusterSPIFFEID', 'CREATE', { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'x' }, spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/w' } })), {
      ca: caBundles(kube)[0]!,
      servername: SERVICE_DNS,
    });
    expect(reply.json.response.allowed).toBe(true);
  });
});

/** The demo's three steps against one socket, as JSON plans with IDs of created entries blanked. */
async function demoSteps(socket: string): Promise<{ first: unknown; applied: unknown; again: unknown }> {
  const flags = { config: join(DEMO_DIR, 'config.yaml'), manifests: [join(DEMO_DIR, 'manifests')], socket, output: 'json' as const };
  const log = pino({ level: 'silent' });
  const run = async (apply: boolean) => {
    let out = '';
    await runOnce(flags, { apply, log, print: (s) => (out += s) });
    // A create's ID is new every run.
    return JSON.parse(out.replace(/"scm-demo\.[0-9a-f-]{36}"/g, '"scm-demo.NEW"')) as unknown;
  };
  return { first: await run(false), applied: await run(true), again: await run(false) };
}

describe('the demo with a real SPIRE server in place of the in-memory one', () => {
  it('plans, applies and then finds nothing to do, exactly as against the in-memory server', async () => {
    const seed = readSeedFile(join(DEMO_DIR, 'spire-entries.json'));
    const memory = await startTestSpire({ trustDomain: 'demo.example', seed });
    cleanups.push(() => memory.close());
    const expected = await demoSteps(memory.socketPath);

    const real = await startRealSpire({ trustDomain: 'demo.example' });
    cleanups.push(() => real.stop());
    const { raw, closeStubs } = openRawStubs(real.socketPath);
    cleanups.push(async () => closeStubs());
    await emptySpire(raw);
    if (seed.federatedBundles?.length) expect((await raw.bundle.BatchSetFederatedBundle({ bundle: seed.federatedBundles })).results.every((r) => r.status?.code === 0)).toBe(true);
    if (seed.federationRelationships?.length) {
      const res = await raw.trustDomain.BatchCreateFederationRelationship({ federation_relationships: seed.federationRelationships });
      expect(res.results.every((r) => r.status?.code === 0)).toBe(true);
    }
    const created = await raw.entry.BatchCreateEntry({ entries: seed.entries ?? [] });
    expect(created.results.map((r) => r.status)).toEqual((seed.entries ?? []).map(() => ({ code: 0, message: 'OK' })));

    const got = await demoSteps(real.socketPath);
    expect(got).toEqual(expected);
    const again = got.again as { create: unknown[]; update: unknown[]; delete: unknown[] };
    expect([again.create, again.update, again.delete]).toEqual([[], [], []]);
    // The foreign entry of the previous state is still there.
    expect((await raw.entry.ListEntries({})).entries.map((e) => e.id)).toContain('7f8e1b0a-52c4-4d1e-9a3f-2b6c8d0e1f3a');
  });
});
