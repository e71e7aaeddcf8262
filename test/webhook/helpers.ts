/** Shared set-up for the webhook tests: real HTTPS calls, the demo VWC, configs, loggers, waiting. */
import { webcrypto } from 'node:crypto';
import { request } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { pino, type Logger } from 'pino';
import { type ControllerConfig, defaultConfig } from '../../src/api/index.js';
import { createCertificateAuthority, signLeaf, type CertificateAuthority } from '../../src/memspire/ca.js';
import { EC_P256, x509 } from '../../src/x509/index.js';
import { SpireClient } from '../../src/spire/index.js';
import { startWebhook, type Webhook } from '../../src/webhook/index.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { startTestSpire } from '../support/spire.js';

export const TD = 'example.org';
export const VWC_NAME = 'spire-controller-manager-webhook';
export const SERVICE_DNS = 'spire-controller-manager-webhook-service.spire-system.svc';
export const PATHS = {
  csid: '/validate-spire-spiffe-io-v1alpha1-clusterspiffeid',
  cse: '/validate-spire-spiffe-io-v1alpha1-clusterstaticentry',
  cftd: '/validate-spire-spiffe-io-v1alpha1-clusterfederatedtrustdomain',
} as const;

export function testConfig(webhook: Partial<ControllerConfig['webhook']> = {}): ControllerConfig {
  const c = defaultConfig();
  c.trustDomain = TD;
  c.webhook = { ...c.webhook, host: '127.0.0.1', port: 0, ...webhook };
  return c;
}

export interface CapturedLog {
  log: Logger;
  lines: { msg: string; [k: string]: unknown }[];
}

/** A real pino logger whose JSON lines are kept for assertions. */
export function captureLog(): CapturedLog {
  const lines: CapturedLog['lines'] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as CapturedLog['lines'][number]) });
  return { log, lines };
}

interface WebhookSpec {
  name: string;
  path: string;
  service?: { name: string; namespace: string };
  url?: string;
}

/** The demo ValidatingWebhookConfiguration (upstream's demo/…/spire-controller-manager-webhook.yaml), without caBundle. */
export function vwcObject(webhooks: WebhookSpec[] = demoWebhooks()): object {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: VWC_NAME },
    webhooks: webhooks.map((w) => ({
      name: w.name,
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: 'Fail',
      clientConfig: w.url ? { url: w.url } : { service: { ...w.service, path: w.path } },
      rules: [{ apiGroups: ['spire.spiffe.io'], apiVersions: ['v1alpha1'], operations: ['CREATE', 'UPDATE'], resources: ['x'] }],
    })),
  };
}

export function demoWebhooks(service = { name: 'spire-controller-manager-webhook-service', namespace: 'spire-system' }): WebhookSpec[] {
  return [
    { name: 'vclusterfederatedtrustdomain.kb.io', path: PATHS.cftd, service },
    { name: 'vclusterspiffeid.kb.io', path: PATHS.csid, service },
  ];
}

/* eslint-disable @typescript-eslint/no-explicit-any -- Kubernetes JSON read back from the fake API server */
export function getVwc(kube: FakeKubeApiServer): any {
  return kube.get('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', VWC_NAME);
}

/** Every webhook's caBundle, decoded. */
export function caBundles(kube: FakeKubeApiServer): string[] {
  return ((getVwc(kube)?.webhooks ?? []) as any[]).map((w) => Buffer.from(w.clientConfig?.caBundle ?? '', 'base64').toString('utf8'));
}
/* eslint-enable @typescript-eslint/no-explicit-any */

export interface HttpsReply {
  status: number;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON
  json: any;
  cert: PeerCertificate;
}

/**
 * One POST over a fresh TLS connection (no keep-alive), verified as the API
 * server verifies a webhook: the chain against `ca`, the name against
 * `servername` (the Service's DNS name). A fresh connection per call means
 * every call handshakes with whatever certificate is served at that moment.
 */
export function post(port: number, path: string, body: string, tls: { ca: string; servername: string }): Promise<HttpsReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', ca: tls.ca, servername: tls.servername, agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        const cert = (res.socket as TLSSocket).getPeerCertificate();
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: text, json, cert });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function review(kind: string, operation: string, object: unknown, oldObject: unknown = null, uid = `uid-${Math.random().toString(16).slice(2)}`): object {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'spire.spiffe.io', version: 'v1alpha1', kind },
      resource: { group: 'spire.spiffe.io', version: 'v1alpha1', resource: `${kind.toLowerCase()}s` },
      name: (object as { metadata?: { name?: string } } | null)?.metadata?.name ?? '',
      operation,
      userInfo: { username: 'kubernetes-admin' },
      object,
      oldObject,
      dryRun: false,
    },
  };
}

/** Polls until `fn` returns a truthy value; fails with the last value seen. */
export async function waitFor<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 20_000, everyMs = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await fn();
    if (last) return last as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The SANs of a PEM certificate (leaf first in a chain). */
export function sans(pem: string): { uris: string[]; dns: string[]; serial: string; cert: x509.X509Certificate } {
  const cert = new x509.X509Certificate(pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/)![0]);
  const ext = cert.getExtension(x509.SubjectAlternativeNameExtension);
  const names = ext?.names.items ?? [];
  return {
    uris: names.filter((n) => n.type === 'url').map((n) => n.value),
    dns: names.filter((n) => n.type === 'dns').map((n) => n.value),
    serial: cert.serialNumber,
    cert,
  };
}

/** A CA and a leaf for `dnsName`, as cert-manager would write them into a Secret. */
export async function issueFileCert(ca: CertificateAuthority | undefined, dnsName: string, ttlSeconds = 3600): Promise<{ ca: CertificateAuthority; caPem: string; crt: string; key: string; serial: string }> {
  const authority = ca ?? (await createCertificateAuthority('cert-manager.test', 24 * 3600));
  const keys = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const publicKey = await x509.PublicKey.create(keys.publicKey);
  const leaf = await signLeaf(authority, { publicKey, subject: [{ CN: [dnsName] }], uri: 'spiffe://cert-manager.test/webhook', dnsNames: [dnsName], ttlSeconds });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return {
    ca: authority,
    caPem: authority.cert.toString('pem'),
    crt: leaf.toString('pem'),
    key: `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`,
    serial: leaf.serialNumber,
  };
}

/** A port on 127.0.0.1 held by another listener, as when a second process already serves it. */
export async function occupiedPort(): Promise<{ port: number; release(): Promise<void> }> {
  const holder = createTcpServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  return {
    port: (holder.address() as AddressInfo).port,
    release: () => new Promise<void>((resolve) => holder.close(() => resolve())),
  };
}

/**
 * A webhook serving with a SPIRE-minted certificate, as a cluster would call
 * it: an in-memory SPIRE server, a fake API server holding the
 * ValidatingWebhookConfiguration, and the caBundle written. `close()` stops
 * all of it.
 */
export async function servingWebhook(): Promise<{ webhook: Webhook; tls: { ca: string; servername: string }; close(): Promise<void> }> {
  const spire = await startTestSpire();
  const kube = await FakeKubeApiServer.start();
  kube.create(vwcObject());
  const client = new SpireClient({ socket: spire.socketPath });
  const webhook = await startWebhook({ config: testConfig(), kc: kube.kubeConfig(), spire: client, log: pino({ level: 'silent' }), checkIntervalMs: 200 });
  const close = async () => {
    await webhook.close();
    client.close();
    await kube.close();
    await spire.close();
  };
  try {
    await waitFor('the webhook to be ready', () => webhook.ready().ok);
    return { webhook, tls: { ca: await waitFor('the caBundle', () => caBundles(kube)[0]), servername: SERVICE_DNS }, close };
  } catch (err) {
    await close();
    throw err;
  }
}
