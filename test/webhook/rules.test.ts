/** The webhook's decision rules, table by table, without servers where none is needed. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { KubeApiError } from '../../src/kube/rest.js';
import { Backoff } from '../../src/net/backoff.js';
import { caBundlePatch, syncCaBundle } from '../../src/webhook/cabundle.js';
import { type MintedCertificate, mintReason } from '../../src/webhook/svid-cert.js';
import { serviceDnsNames, type ValidatingWebhookConfiguration } from '../../src/webhook/vwc.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { caBundles, demoWebhooks, getVwc, PATHS, vwcObject } from './helpers.js';

describe('when a new serving certificate is minted', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const cert: MintedCertificate = {
    certPem: '',
    keyPem: '',
    spiffeId: 'spiffe://example.org/spire-controller-manager-webhook',
    dnsNames: ['a.ns.svc', 'b.ns.svc'],
    mintedAt: t0,
    notAfter: new Date(t0 + 24 * 3600_000),
  };
  it.each([
    ['never minted', undefined, cert.dnsNames, t0, 'initializing'],
    ['fresh, same names', cert, cert.dnsNames, t0 + 1000, undefined],
    ['just before half-life', cert, cert.dnsNames, t0 + 12 * 3600_000 - 1, undefined],
    ['at half-life', cert, cert.dnsNames, t0 + 12 * 3600_000, 'expires soon'],
    ['expired', cert, cert.dnsNames, t0 + 24 * 3600_000, 'has expired'],
    ['a Service renamed', cert, ['a.ns.svc', 'c.ns.svc'], t0 + 1000, 'stale DNS names'],
    ['a Service removed', cert, ['a.ns.svc'], t0 + 1000, 'stale DNS names'],
  ] as const)('%s -> %s', (_name, current, names, now, reason) => {
    expect(mintReason(current, names, now)).toBe(reason);
  });

  it('DNS names come from every webhook with a Service, sorted and de-duplicated; url webhooks add none', () => {
    const vwc = vwcObject([
      ...demoWebhooks({ name: 'z-svc', namespace: 'ns' }),
      { name: 'b', path: PATHS.cse, service: { name: 'a-svc', namespace: 'ns' } },
      { name: 'c', path: PATHS.cse, url: 'https://x.example.com/' },
    ]) as ValidatingWebhookConfiguration;
    expect(serviceDnsNames(vwc)).toEqual(['a-svc.ns.svc', 'z-svc.ns.svc']);
  });
});

describe('failures are retried with doubling delays from 1 s to 60 s', () => {
  it('1, 2, 4 … 32, 60, 60; and from 1 s again after a success', () => {
    const b = new Backoff(1000, 60_000);
    expect(Array.from({ length: 9 }, () => b.next())).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    b.reset();
    expect(b.next()).toBe(1000);
  });
});

describe('the caBundle patch changes only caBundles, and only on the webhooks it was computed for', () => {
  let kube: FakeKubeApiServer;
  const pem = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
  const log = pino({ level: 'silent' });

  beforeAll(async () => {
    kube = await FakeKubeApiServer.start();
  });
  afterAll(async () => {
    await kube.close();
  });

  it('a test of each webhook name, then an add of its caBundle; nothing for webhooks that already match', () => {
    const vwc = vwcObject() as ValidatingWebhookConfiguration;
    vwc.webhooks![0]!.clientConfig!.caBundle = Buffer.from(pem).toString('base64');
    expect(caBundlePatch(vwc, pem)).toEqual([
      { op: 'test', path: '/webhooks/1/name', value: 'vclusterspiffeid.kb.io' },
      { op: 'add', path: '/webhooks/1/clientConfig/caBundle', value: Buffer.from(pem).toString('base64') },
    ]);
    vwc.webhooks![1]!.clientConfig!.caBundle = Buffer.from(pem).toString('base64');
    expect(caBundlePatch(vwc, pem)).toEqual([]);
  });

  it('applies to a configuration without any caBundle, leaving every other field as it was', async () => {
    kube.create(vwcObject());
    const before = getVwc(kube);
    expect(await syncCaBundle(kube.kubeConfig(), before, pem, log)).toBe(true);
    const after = getVwc(kube);
    expect(caBundles(kube)).toEqual([pem, pem]);
    for (const w of after.webhooks) delete w.clientConfig.caBundle;
    expect(after.webhooks).toEqual(before.webhooks);
    kube.delete('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', before.metadata.name);
  });

  it('is refused (422) when the webhooks were reordered since it was computed, so no caBundle lands on the wrong webhook', async () => {
    kube.create(vwcObject());
    const seen = getVwc(kube);
    seen.webhooks[0].clientConfig.caBundle = Buffer.from(pem).toString('base64'); // only webhook 1 needs a patch
    const current = getVwc(kube);
    current.webhooks.reverse();
    kube.update(current);
    const err = await syncCaBundle(kube.kubeConfig(), seen, pem, log).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).statusCode).toBe(422);
    expect(caBundles(kube)).toEqual(['', '']);
  });
});
