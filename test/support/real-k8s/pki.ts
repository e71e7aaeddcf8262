/**
 * The certificates and keys a throwaway control plane needs, made fresh at
 * start: one CA that signs the API server's serving certificate and the
 * admin's client certificate (the API server trusts it for clients too), and
 * the key pair that signs service-account tokens.
 */
import { KeyObject, webcrypto } from 'node:crypto';
import { EC_P256, x509 } from '../../../src/x509/index.js';

export interface ControlPlanePki {
  caPem: string;
  serving: { certPem: string; keyPem: string };
  /** CN=admin in group system:masters: every permission, bypassing RBAC. */
  admin: { certPem: string; keyPem: string };
  serviceAccount: { publicKeyPem: string; privateKeyPem: string };
}

type Keys = webcrypto.CryptoKeyPair;

const newKeys = (): Promise<Keys> => webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']) as Promise<Keys>;
const privatePem = (keys: Keys): string => KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
const publicPem = (keys: Keys): string => KeyObject.from(keys.publicKey).export({ type: 'spki', format: 'pem' }).toString();

async function leaf(ca: { cert: x509.X509Certificate; keys: Keys }, subject: string, usage: x509.ExtendedKeyUsage, sans: x509.JsonGeneralName[], notBefore: Date, notAfter: Date) {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create({
    subject,
    issuer: ca.cert.subject,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: EC_P256,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([usage]),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
      ...(sans.length > 0 ? [new x509.SubjectAlternativeNameExtension(sans)] : []),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: privatePem(keys) };
}

/** Everything valid from a minute ago (clock skew between processes is nil here, but harmless) for a day. */
export async function createControlPlanePki(): Promise<ControlPlanePki> {
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 24 * 3600_000);
  const caKeys = await newKeys();
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=spire-reconciler test control plane CA',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: EC_P256,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const ca = { cert: caCert, keys: caKeys };
  const serving = await leaf(
    ca,
    'CN=kube-apiserver',
    x509.ExtendedKeyUsage.serverAuth,
    [
      { type: 'ip', value: '127.0.0.1' },
      { type: 'dns', value: 'localhost' },
      { type: 'dns', value: 'kubernetes.default.svc' },
    ],
    notBefore,
    notAfter,
  );
  const admin = await leaf(ca, 'CN=admin, O=system:masters', x509.ExtendedKeyUsage.clientAuth, [], notBefore, notAfter);
  const saKeys = await newKeys();
  return { caPem: caCert.toString('pem'), serving, admin, serviceAccount: { publicKeyPem: publicPem(saKeys), privateKeyPem: privatePem(saKeys) } };
}
