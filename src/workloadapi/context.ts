import { createPrivateKey, X509Certificate as NodeX509Certificate } from 'node:crypto';
import type { X509SVIDResponse__Output } from '../gen/X509SVIDResponse.js';
import { parseSpiffeId, parseTrustDomain } from '../spiffe/index.js';
import { x509 } from '../x509/index.js';
import { errorMessage } from '../api/errors.js';
import { splitDer } from './der.js';

/** One X.509 SVID the Workload API gave, parsed. */
export interface X509Svid {
  /** "spiffe://<trust domain>/<path>". */
  readonly spiffeId: string;
  readonly trustDomain: string;
  /** DER certificates, leaf first. */
  readonly certChain: readonly Buffer[];
  /** The leaf's private key, PKCS#8 DER. */
  readonly privateKey: Buffer;
  /** The leaf's notAfter. */
  readonly notAfter: Date;
  /** The leaf's serial number, hex, for logs. */
  readonly serialNumber: string;
  readonly hint: string;
}

/** One X.509 authority of a trust bundle. */
export interface Authority {
  readonly der: Buffer;
  readonly notAfter: Date;
}

/** What one FetchX509SVID response holds. */
export interface X509Context {
  /** In the agent's order; the first is the default identity. */
  readonly svids: readonly X509Svid[];
  /** X.509 authorities by trust domain name ("example.org"): each SVID's own and the federated ones. */
  readonly bundles: ReadonlyMap<string, readonly Authority[]>;
  /** When it arrived (Date.now()). */
  readonly receivedAt: number;
}

function parseCertificate(der: Buffer, what: string): x509.X509Certificate {
  try {
    return new x509.X509Certificate(der);
  } catch (err) {
    throw new Error(`${what} is not an X.509 certificate: ${errorMessage(err)}`, { cause: err });
  }
}

function parseAuthorities(bytes: Buffer, what: string): Authority[] {
  let ders: Buffer[];
  try {
    ders = splitDer(bytes);
  } catch (err) {
    throw new Error(`${what}: ${errorMessage(err)}`, { cause: err });
  }
  return ders.map((der, i) => ({ der, notAfter: parseCertificate(der, `${what}, certificate ${i + 1},`).notAfter }));
}

function parseSvid(svid: X509SVIDResponse__Output['svids'][number], index: number): X509Svid {
  const what = `SVID ${index + 1} (${svid.spiffe_id || 'no SPIFFE ID'})`;
  let trustDomain: string;
  try {
    trustDomain = parseSpiffeId(svid.spiffe_id).trustDomain;
  } catch (err) {
    throw new Error(`${what}: its SPIFFE ID is invalid: ${errorMessage(err)}`, { cause: err });
  }
  let chain: Buffer[];
  try {
    chain = splitDer(svid.x509_svid);
  } catch (err) {
    throw new Error(`${what}: its certificate chain: ${errorMessage(err)}`, { cause: err });
  }
  const leafDer = chain[0];
  if (!leafDer) throw new Error(`${what} has no certificate`);
  const leaf = parseCertificate(leafDer, `${what}'s leaf`);
  const uris = (leaf.getExtension(x509.SubjectAlternativeNameExtension)?.names.items ?? []).filter((n) => n.type === 'url').map((n) => n.value);
  if (uris.length !== 1 || uris[0] !== svid.spiffe_id) {
    throw new Error(`${what}: its leaf certificate names ${uris.length === 0 ? 'no URI' : uris.join(', ')}, not ${svid.spiffe_id}`);
  }
  try {
    const key = createPrivateKey({ key: svid.x509_svid_key, format: 'der', type: 'pkcs8' });
    if (!new NodeX509Certificate(leafDer).checkPrivateKey(key)) throw new Error('it does not match the leaf certificate');
  } catch (err) {
    throw new Error(`${what}: its private key cannot be used: ${errorMessage(err)}`, { cause: err });
  }
  return {
    spiffeId: svid.spiffe_id,
    trustDomain,
    certChain: chain,
    privateKey: svid.x509_svid_key,
    notAfter: leaf.notAfter,
    serialNumber: leaf.serialNumber,
    hint: svid.hint,
  };
}

/**
 * Parses a FetchX509SVID response. Throws, naming the part, when any of it
 * cannot be used: a SPIFFE ID, a chain, a key that does not match its leaf,
 * a bundle. Whether the result suits the controller (trust domain, expiry)
 * is the source's question.
 */
export function parseX509Response(res: X509SVIDResponse__Output, receivedAt = Date.now()): X509Context {
  const svids = res.svids.map(parseSvid);
  const bundles = new Map<string, Authority[]>();
  for (const [key, bytes] of Object.entries(res.federated_bundles)) {
    let td: string;
    try {
      td = parseTrustDomain(key);
    } catch (err) {
      throw new Error(`the federated bundle keyed "${key}": ${errorMessage(err)}`, { cause: err });
    }
    bundles.set(td, parseAuthorities(bytes, `the federated bundle of ${td}`));
  }
  // Each SVID carries its own trust domain's bundle; it wins over a federated entry of the same name.
  for (const [i, svid] of res.svids.entries()) {
    const td = (svids[i] as X509Svid).trustDomain;
    if (svid.bundle.length > 0) bundles.set(td, parseAuthorities(svid.bundle, `the bundle of ${td}`));
  }
  return { svids, bundles, receivedAt };
}
