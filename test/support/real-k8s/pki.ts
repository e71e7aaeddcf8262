/**
 * The certificates and keys a throwaway control plane needs, made fresh at
 * start: one CA that signs the API server's serving certificate and the
 * admin's client certificate (the API server trusts it for clients too), and
 * the key pair that signs service-account tokens.
 */
import { KeyObject, webcrypto } from 'node:crypto';
import { EC_P256, x509 } from '../../../src/x509/index.js';

/**
 * The `kubernetes` Service's ClusterIP: the first address of the API server's
 * --service-cluster-ip-range (control-plane.ts). The kubelet gives every pod
 * KUBERNETES_SERVICE_HOST set to it, and client-go's in-cluster config checks
 * the serving certificate against that IP, so the certificate names it.
 */
export const SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
export const KUBERNETES_SERVICE_IP = '10.0.0.1';

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

async function newCa(name: string, notBefore: Date, notAfter: Date) {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name,
    notBefore,
    notAfter,
    keys,
    signingAlgorithm: EC_P256,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys };
}

/** Valid from a minute ago (clock skew between processes is nil here, but harmless) for a day. */
const validity = () => ({ notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 24 * 3600_000) });

/**
 * A CA of its own and a serving certificate it signs for `dnsNames`: what a
 * webhook served by a pod presents (the API server checks it against the
 * caBundle, for the Service's name `<service>.<namespace>.svc`).
 */
export async function createServingPki(dnsNames: string[]): Promise<{ caPem: string; certPem: string; keyPem: string }> {
  const { notBefore, notAfter } = validity();
  const ca = await newCa('CN=spire-reconciler test serving CA', notBefore, notAfter);
  const serving = await leaf(ca, `CN=${dnsNames[0]}`, x509.ExtendedKeyUsage.serverAuth, dnsNames.map((value) => ({ type: 'dns', value })), notBefore, notAfter);
  return { caPem: ca.cert.toString('pem'), ...serving };
}

export async function createControlPlanePki(): Promise<ControlPlanePki> {
  const { notBefore, notAfter } = validity();
  const ca = await newCa('CN=spire-reconciler test control plane CA', notBefore, notAfter);
  const serving = await leaf(
    ca,
    'CN=kube-apiserver',
    x509.ExtendedKeyUsage.serverAuth,
    [
      { type: 'ip', value: '127.0.0.1' },
      { type: 'ip', value: KUBERNETES_SERVICE_IP },
      { type: 'dns', value: 'localhost' },
      // What a pod may call the API server: the Service's names, short to fully qualified.
      { type: 'dns', value: 'kubernetes' },
      { type: 'dns', value: 'kubernetes.default' },
      { type: 'dns', value: 'kubernetes.default.svc' },
      { type: 'dns', value: 'kubernetes.default.svc.cluster.local' },
    ],
    notBefore,
    notAfter,
  );
  const admin = await leaf(ca, 'CN=admin, O=system:masters', x509.ExtendedKeyUsage.clientAuth, [], notBefore, notAfter);
  const saKeys = await newKeys();
  return { caPem: ca.cert.toString('pem'), serving, admin, serviceAccount: { publicKeyPem: publicPem(saKeys), privateKeyPem: privatePem(saKeys) } };
}
