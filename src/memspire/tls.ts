import { webcrypto } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { EC_P256, x509 } from '../x509/index.js';
import { formatSpiffeId, parseSpiffeId } from '../spiffe/index.js';
import { type CertificateAuthority, signLeaf } from './ca.js';

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

export interface IssuedSvid {
  spiffeId: string;
  /** DER, leaf first. */
  certChain: Buffer[];
  /** PKCS#8 DER. */
  privateKey: Buffer;
  notAfter: Date;
  serialNumber: string;
}

/** An X.509 SVID for `spiffeId` from the in-memory CA, with a fresh P-256 key: what an agent or the server holds. */
export async function issueSvid(ca: CertificateAuthority, spiffeId: string, ttlSeconds: number, now = Date.now()): Promise<IssuedSvid> {
  const keys = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const leaf = await signLeaf(ca, { publicKey: keys.publicKey as unknown as x509.PublicKey, subject: [{ C: ['US'] }, { O: ['SPIRE'] }], uri: spiffeId, dnsNames: [], ttlSeconds }, now);
  return {
    spiffeId,
    certChain: [Buffer.from(leaf.rawData)],
    privateKey: Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
    notAfter: leaf.notAfter,
    serialNumber: leaf.serialNumber,
  };
}

type Provider = grpc.experimental.CertificateProvider;

/**
 * A certificate provider that never changes: the server's CA and its own
 * SVID. It answers a new listener on the next turn, not during the call:
 * grpc-js's server adds its listeners before the watcher that takes the
 * result, and would miss an answer given at once.
 */
class FixedCertificates implements Provider {
  constructor(
    private readonly ca: Buffer,
    private readonly identity: { certificate: Buffer; privateKey: Buffer },
  ) {}
  addCaCertificateListener(listener: Parameters<Provider['addCaCertificateListener']>[0]): void {
    setImmediate(() => listener({ caCertificate: this.ca }));
  }
  removeCaCertificateListener(): void {}
  addIdentityCertificateListener(listener: Parameters<Provider['addIdentityCertificateListener']>[0]): void {
    setImmediate(() => listener(this.identity));
  }
  removeIdentityCertificateListener(): void {}
}

/**
 * TLS for the TCP listener, as a SPIRE server's: it presents its own SVID
 * (`serverId`, from its CA) and asks for a client certificate without
 * requiring one (agents attest without one). A client certificate is
 * verified against the CA; one that does not verify counts as none here,
 * where SPIRE fails the handshake.
 */
export function serverCredentials(ca: CertificateAuthority, svid: IssuedSvid): grpc.ServerCredentials {
  const provider = new FixedCertificates(Buffer.from(pem('CERTIFICATE', ca.der)), {
    certificate: Buffer.from(svid.certChain.map((c) => pem('CERTIFICATE', c)).join('')),
    privateKey: Buffer.from(pem('PRIVATE KEY', svid.privateKey)),
  });
  return grpc.experimental.createCertificateProviderServerCredentials(provider, provider, false);
}

export interface Caller {
  spiffeId: string;
  serialNumber: string;
}

/** The caller's SPIFFE ID, read off the verified client certificate of a TCP call; undefined without one. */
export function callerOf(call: { getAuthContext(): { sslPeerCertificate?: { raw?: Buffer } } }): Caller | undefined {
  const cert = call.getAuthContext().sslPeerCertificate;
  if (!cert?.raw) return undefined;
  const parsed = new x509.X509Certificate(cert.raw);
  const uris = (parsed.getExtension(x509.SubjectAlternativeNameExtension)?.names.items ?? []).filter((n) => n.type === 'url');
  if (uris.length !== 1) return undefined;
  try {
    return { spiffeId: formatSpiffeId(parseSpiffeId((uris[0] as { value: string }).value)), serialNumber: parsed.serialNumber };
  } catch {
    return undefined;
  }
}
