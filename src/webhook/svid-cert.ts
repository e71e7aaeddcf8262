/**
 * The serving certificate as an X509-SVID: what to mint and when. Pure apart
 * from the mint itself, so the rotation rules can be tested with a clock.
 */
import { webcrypto } from 'node:crypto';
import type { SpireClient } from '../spire/index.js';
import { EC_P256, x509 } from '../x509/index.js';
import { pemEncode } from './pem.js';
import type { ServingCertificate } from './types.js';

/** Upstream's identity, so SPIRE policies written for spire-controller-manager keep matching. */
const WEBHOOK_SPIFFE_PATH = '/spire-controller-manager-webhook';

/** Upstream requests 24 h; the server may shorten it (its CA's lifetime caps every SVID). */
export const DEFAULT_SVID_TTL_SECONDS = 24 * 3600;

export interface MintedCertificate extends ServingCertificate {
  spiffeId: string;
  dnsNames: string[];
  /** When we received it, by the manager's clock: the start of its lifetime for rotation. */
  mintedAt: number;
}

type MintReason = 'initializing' | 'has expired' | 'expires soon' | 'stale DNS names';

/**
 * Half-way through a certificate's life. Measured from when we received it,
 * not from its NotBefore: SPIRE back-dates NotBefore by 10 s, which for a
 * short-lived SVID would put the half-life point in the past at once.
 */
export function rotationTime(cert: MintedCertificate): number {
  return cert.mintedAt + (cert.notAfter.getTime() - cert.mintedAt) / 2;
}

/** Why a new certificate is needed now, or undefined if the current one is good. */
export function mintReason(cert: MintedCertificate | undefined, dnsNames: readonly string[], now: number): MintReason | undefined {
  if (!cert) return 'initializing';
  if (now >= cert.notAfter.getTime()) return 'has expired';
  if (now >= rotationTime(cert)) return 'expires soon';
  if (cert.dnsNames.length !== dnsNames.length || cert.dnsNames.some((n, i) => n !== dnsNames[i])) return 'stale DNS names';
  return undefined;
}

/** Mints a fresh key and SVID for `spiffe://<td>/spire-controller-manager-webhook` with these DNS SANs. */
export async function mintServingCertificate(spire: SpireClient, trustDomain: string, dnsNames: readonly string[], ttlSeconds: number, now: number): Promise<MintedCertificate> {
  const spiffeId = `spiffe://${trustDomain}${WEBHOOK_SPIFFE_PATH}`;
  // A new key per mint: a key that leaked with an old certificate is worthless after rotation.
  const keys = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    keys,
    signingAlgorithm: EC_P256,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'url', value: spiffeId }, ...dnsNames.map((d) => ({ type: 'dns' as const, value: d }))])],
  });
  const svid = await spire.mintX509Svid(new Uint8Array(csr.rawData), ttlSeconds);
  if (svid.spiffeId !== spiffeId) throw new Error(`SPIRE minted ${svid.spiffeId}, asked for ${spiffeId}`);
  if (svid.certChain.length === 0) throw new Error('SPIRE minted an SVID with an empty certificate chain');
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    certPem: pemEncode('CERTIFICATE', svid.certChain),
    keyPem: pemEncode('PRIVATE KEY', [pkcs8]),
    notAfter: new Date(svid.expiresAt * 1000),
    spiffeId,
    dnsNames: [...dnsNames],
    mintedAt: now,
  };
}
