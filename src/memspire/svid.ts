import { x509 } from '../x509/index.js';
import { type CertificateAuthority, signLeaf } from './ca.js';
import { dnsNameProblem, parseSpiffeId, workloadProblem } from '../spiffe/index.js';
import { Code, RpcFailure } from './status.js';
import { errorMessage } from '../api/errors.js';

interface MintedSvid {
  trustDomain: string;
  path: string;
  certDer: Buffer;
  expiresAt: number;
}

const invalid = (message: string): never => {
  throw new RpcFailure(Code.INVALID_ARGUMENT, message);
};

/** `*.a.com` covers `x.a.com` (one label deeper), not `a.com` nor `y.x.a.com`. */
function wildcardOverlap(names: string[]): string | undefined {
  const wildcardBases = new Set(names.filter((n) => n.startsWith('*.')).map((n) => n.slice(2)));
  for (const n of names) {
    if (n.startsWith('*.')) continue;
    const dot = n.indexOf('.');
    if (dot !== -1 && wildcardBases.has(n.slice(dot + 1))) return n;
  }
  return undefined;
}

/** MintX509SVID with SPIRE's checks in SPIRE's order (spire-semantics §5). */
export async function mintX509Svid(
  ca: CertificateAuthority,
  trustDomain: string,
  csrDer: Buffer,
  ttl: number,
  defaultTtlSeconds: number,
): Promise<MintedSvid> {
  if (csrDer.length === 0) invalid('missing CSR');
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(csrDer);
  } catch (err) {
    return invalid(`malformed CSR: ${errorMessage(err)}`);
  }
  let verified = false;
  try {
    verified = await csr.verify();
  } catch (err) {
    invalid(`failed to verify CSR signature: ${errorMessage(err)}`);
  }
  if (!verified) invalid('failed to verify CSR signature: signature does not match');

  const san = csr.extensions.find((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension);
  const names = san?.names.items ?? [];
  const uris = names.filter((n) => n.type === 'url').map((n) => n.value);
  const dnsNames = names.filter((n) => n.type === 'dns').map((n) => n.value);
  if (uris.length === 0) invalid('CSR URI SAN is required');
  if (uris.length > 1) invalid('only one URI SAN is expected');
  const uri = uris[0] as string;
  let id;
  try {
    id = parseSpiffeId(uri);
  } catch (err) {
    return invalid(`CSR URI SAN is invalid: ${errorMessage(err)}`);
  }
  const problem = workloadProblem(id, trustDomain);
  if (problem) invalid(`CSR URI SAN is invalid: ${problem}`);
  for (const name of dnsNames) {
    const dnsProblem = dnsNameProblem(name);
    if (dnsProblem) invalid(`CSR DNS name is invalid: ${dnsProblem}`);
  }
  const overlapping = wildcardOverlap(dnsNames);
  if (overlapping) {
    invalid(
      `CSR DNS name contains a wildcard that covers another non-wildcard name: name "${overlapping}" overlaps with an existing wildcard name in the list: wildcard overlap`,
    );
  }

  let subject: x509.JsonName = csr.subjectName.toJSON();
  if (subject.length === 0) subject = [{ C: ['US'] }, { O: ['SPIRE'] }];
  if (dnsNames.length > 0) {
    subject = subject.filter((rdn) => !('CN' in rdn));
    subject.push({ CN: [dnsNames[0] as string] });
  }
  try {
    const leaf = await signLeaf(ca, {
      publicKey: csr.publicKey,
      subject,
      uri,
      dnsNames,
      ttlSeconds: ttl > 0 ? ttl : defaultTtlSeconds,
    });
    return {
      trustDomain: id.trustDomain,
      path: id.path,
      certDer: Buffer.from(leaf.rawData),
      expiresAt: Math.floor(leaf.notAfter.getTime() / 1000),
    };
  } catch (err) {
    throw new RpcFailure(Code.INTERNAL, `failed to sign X509-SVID: ${errorMessage(err)}`);
  }
}
