import { webcrypto } from 'node:crypto';
import { EC_P256, x509 } from '../x509/index.js';

export interface CertificateAuthority {
  readonly cert: x509.X509Certificate;
  readonly keys: webcrypto.CryptoKeyPair;
  readonly der: Buffer;
}

/** A self-signed server CA, as a SPIRE server without an upstream authority has. */
export async function createCertificateAuthority(trustDomain: string, ttlSeconds: number, now = Date.now()): Promise<CertificateAuthority> {
  const keys = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const notBefore = new Date(Math.floor(now / 1000) * 1000 - 10_000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: [{ C: ['US'] }, { O: ['SPIFFE'] }],
    notBefore,
    notAfter: new Date(notBefore.getTime() + 10_000 + ttlSeconds * 1000),
    keys,
    signingAlgorithm: EC_P256,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      new x509.SubjectAlternativeNameExtension([{ type: 'url', value: `spiffe://${trustDomain}` }]),
    ],
  });
  return { cert, keys, der: Buffer.from(cert.rawData) };
}

interface LeafRequest {
  publicKey: x509.PublicKey;
  subject: x509.JsonName;
  uri: string;
  dnsNames: string[];
  ttlSeconds: number;
}

/** Signs an X509-SVID leaf with SPIRE's profile (spire-semantics §5). */
export async function signLeaf(ca: CertificateAuthority, req: LeafRequest, now = Date.now()): Promise<x509.X509Certificate> {
  const nowSec = Math.floor(now / 1000);
  const notBefore = new Date((nowSec - 10) * 1000);
  const wanted = (nowSec + req.ttlSeconds) * 1000;
  const notAfter = new Date(Math.min(wanted, ca.cert.notAfter.getTime()));
  // Go's x509 writes SANs by kind: DNS names first, then URIs (seen on SPIRE v1.15.3).
  const names: x509.JsonGeneralName[] = [...req.dnsNames.map((d) => ({ type: 'dns' as const, value: d })), { type: 'url', value: req.uri }];
  return x509.X509CertificateGenerator.create({
    subject: req.subject,
    issuer: ca.cert.subjectName.toJSON(),
    notBefore,
    notAfter,
    publicKey: req.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: EC_P256,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyAgreement,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      await x509.SubjectKeyIdentifierExtension.create(req.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
      new x509.SubjectAlternativeNameExtension(names),
    ],
  });
}
