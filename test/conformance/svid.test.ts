import { webcrypto } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EC_P256, x509 } from '../../src/x509/index.js';
import type { RawStubs } from '../support/spire.js';
import { expectRpcError, startWorld, TD, type World } from './support.js';
import { TARGET_DEFAULT_X509_SVID_TTL } from './target.js';

let spire: World;
beforeEach(async () => {
  spire = await startWorld({ withE0: false });
});
afterEach(async () => {
  await spire.close();
});

/** SPIRE backdates NotBefore by 10 s, so the default lifetime is the default TTL plus 10 s. */
const DEFAULT_LIFETIME = TARGET_DEFAULT_X509_SVID_TTL + 10;

type SanName = { type: 'url' | 'dns' | 'ip' | 'email'; value: string };

async function csr(sans: SanName[] | undefined, name = 'CN=requested,O=Acme'): Promise<{ der: Buffer; keys: webcrypto.CryptoKeyPair }> {
  const keys = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const req = await x509.Pkcs10CertificateRequestGenerator.create({
    name,
    keys,
    signingAlgorithm: EC_P256,
    extensions: sans ? [new x509.SubjectAlternativeNameExtension(sans)] : [],
  });
  return { der: Buffer.from(req.rawData), keys };
}

const uri = (value: string): SanName => ({ type: 'url', value });
const dns = (value: string): SanName => ({ type: 'dns', value });

async function bundleCa(raw: RawStubs): Promise<x509.X509Certificate[]> {
  const own = await raw.bundle.GetBundle({});
  return own.x509_authorities.map((a) => new x509.X509Certificate(a.asn1));
}

function sanNames(cert: x509.X509Certificate): { type: string; value: string }[] {
  const ext = cert.getExtension(x509.SubjectAlternativeNameExtension);
  return (ext?.names.items ?? []).map((n) => ({ type: n.type, value: n.value }));
}

const seconds = (d: Date): number => d.getTime() / 1000;

describe('MintX509SVID answers exactly as a real SPIRE server', () => {
  it('#59 a CSR for a workload is signed by the bundle CA with SPIRE\'s identity, names and default lifetime', async () => {
    const { der, keys } = await csr([uri(`spiffe://${TD}/w`), dns('a.test'), dns('b.test')]);
    const res = await spire.raw.svid.MintX509SVID({ csr: der, ttl: 0 });
    const svid = res.svid;
    expect(svid?.id).toEqual({ trust_domain: TD, path: '/w' });
    expect(svid?.hint).toBe('');
    expect(svid?.cert_chain).toHaveLength(1);

    const leaf = new x509.X509Certificate(svid!.cert_chain[0]!);
    // In Go's order: DNS names, then the URI.
    expect(sanNames(leaf)).toEqual([
      { type: 'dns', value: 'a.test' },
      { type: 'dns', value: 'b.test' },
      { type: 'url', value: `spiffe://${TD}/w` },
    ]);
    expect(leaf.subjectName.getField('CN')).toEqual(['a.test']);
    expect(leaf.subjectName.getField('O')).toEqual(['Acme']);
    expect(seconds(leaf.notAfter) - seconds(leaf.notBefore)).toBe(DEFAULT_LIFETIME);
    expect(Number(svid?.expires_at)).toBe(seconds(leaf.notAfter));

    const cas = await bundleCa(spire.raw);
    expect(cas).toHaveLength(1);
    const ca = cas[0]!;
    expect(leaf.issuer).toBe(ca.subject);
    expect(await leaf.verify({ publicKey: ca.publicKey, signatureOnly: true })).toBe(true);
    // The leaf certifies the CSR's own key.
    const csrKey = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey));
    expect(Buffer.from(leaf.publicKey.rawData)).toEqual(csrKey);
  });

  it('#60 an empty CSR is "missing CSR"', async () => {
    await expectRpcError(spire.raw.svid.MintX509SVID({ csr: Buffer.alloc(0) }), 3, 'missing CSR');
  });

  it('#60 a CSR without a URI SAN is rejected, with or without other SANs', async () => {
    await expectRpcError(spire.raw.svid.MintX509SVID({ csr: (await csr([dns('a.test')])).der }), 3, 'CSR URI SAN is required');
    await expectRpcError(spire.raw.svid.MintX509SVID({ csr: (await csr(undefined)).der }), 3, 'CSR URI SAN is required');
  });

  it('#60 a CSR with two URI SANs is rejected', async () => {
    const { der } = await csr([uri(`spiffe://${TD}/a`), uri(`spiffe://${TD}/b`)]);
    await expectRpcError(spire.raw.svid.MintX509SVID({ csr: der }), 3, 'only one URI SAN is expected');
  });

  it('#60 a URI SAN in another trust domain is not a member', async () => {
    const { der } = await csr([uri('spiffe://another.org/w')]);
    await expectRpcError(
      spire.raw.svid.MintX509SVID({ csr: der }),
      3,
      `CSR URI SAN is invalid: "spiffe://another.org/w" is not a member of trust domain "${TD}"`,
    );
  });

  it('#60 a URI SAN with an empty path is not a workload', async () => {
    const { der } = await csr([uri(`spiffe://${TD}`)]);
    await expectRpcError(
      spire.raw.svid.MintX509SVID({ csr: der }),
      3,
      `CSR URI SAN is invalid: "spiffe://${TD}" is not a workload in trust domain "${TD}"; path is empty`,
    );
  });

  it('#60 a wildcard DNS SAN that covers another DNS SAN is rejected', async () => {
    const { der } = await csr([uri(`spiffe://${TD}/w`), dns('*.a.com'), dns('x.a.com')]);
    const err = await expectRpcError(spire.raw.svid.MintX509SVID({ csr: der }), 3, /^CSR DNS name contains a wildcard that covers another non-wildcard name: /);
    expect(err.details).toBe(
      'CSR DNS name contains a wildcard that covers another non-wildcard name: name "x.a.com" overlaps with an existing wildcard name in the list: wildcard overlap',
    );
  });
});

describe('MintX509SVID beyond the checklist', () => {
  it('a positive ttl sets the lifetime, and a wildcard next to its own base name is fine', async () => {
    const { der } = await csr([uri(`spiffe://${TD}/w`), dns('a.com'), dns('*.a.com')]);
    const res = await spire.raw.svid.MintX509SVID({ csr: der, ttl: 120 });
    const leaf = new x509.X509Certificate(res.svid!.cert_chain[0]!);
    expect(seconds(leaf.notAfter) - seconds(leaf.notBefore)).toBe(130);
    expect(leaf.subjectName.getField('CN')).toEqual(['a.com']);
  });

  it('a negative ttl means the server default, like 0', async () => {
    const { der } = await csr([uri(`spiffe://${TD}/w`)]);
    const res = await spire.raw.svid.MintX509SVID({ csr: der, ttl: -5 });
    const leaf = new x509.X509Certificate(res.svid!.cert_chain[0]!);
    expect(seconds(leaf.notAfter) - seconds(leaf.notBefore)).toBe(DEFAULT_LIFETIME);
  });

  it('the leaf carries SPIRE\'s X509-SVID extensions and only the URI and DNS SANs', async () => {
    const { der } = await csr([uri(`spiffe://${TD}/w`), { type: 'ip', value: '10.0.0.1' }, { type: 'email', value: 'x@a.test' }]);
    const res = await spire.raw.svid.MintX509SVID({ csr: der });
    const leaf = new x509.X509Certificate(res.svid!.cert_chain[0]!);
    expect(sanNames(leaf)).toEqual([{ type: 'url', value: `spiffe://${TD}/w` }]);
    // Without DNS SANs the CSR subject is kept as sent.
    expect(leaf.subjectName.getField('CN')).toEqual(['requested']);
    expect(leaf.subjectName.getField('O')).toEqual(['Acme']);
    expect(leaf.getExtension(x509.BasicConstraintsExtension)?.ca).toBe(false);
    const ku = leaf.getExtension(x509.KeyUsagesExtension)?.usages ?? 0;
    expect(ku).toBe(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyAgreement);
    expect(leaf.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]);
    const [ca] = await bundleCa(spire.raw);
    const caSki = ca!.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
    expect(caSki).toBeTruthy();
    expect(leaf.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId).toBe(caSki);
    expect(leaf.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId).toBeTruthy();
  });

  it('an empty CSR subject becomes C=US, O=SPIRE', async () => {
    const { der } = await csr([uri(`spiffe://${TD}/w`)], '');
    const res = await spire.raw.svid.MintX509SVID({ csr: der });
    const leaf = new x509.X509Certificate(res.svid!.cert_chain[0]!);
    expect(leaf.subjectName.getField('C')).toEqual(['US']);
    expect(leaf.subjectName.getField('O')).toEqual(['SPIRE']);
  });

  it('a reserved-namespace URI SAN, a bad DNS SAN, garbage and a bad signature are rejected', async () => {
    await expectRpcError(
      spire.raw.svid.MintX509SVID({ csr: (await csr([uri(`spiffe://${TD}/spire/agent/x`)])).der }),
      3,
      `CSR URI SAN is invalid: "spiffe://${TD}/spire/agent/x" is not a workload in trust domain "${TD}"; path is in the reserved namespace`,
    );
    await expectRpcError(
      spire.raw.svid.MintX509SVID({ csr: (await csr([uri(`spiffe://${TD}/w`), dns('a.com.')])).der }),
      3,
      'CSR DNS name is invalid: domain ends with dot',
    );
    await expectRpcError(spire.raw.svid.MintX509SVID({ csr: Buffer.from('garbage') }), 3, /^malformed CSR: /);
    const { der } = await csr([uri(`spiffe://${TD}/w`)]);
    // The last byte belongs to the ECDSA signature's s value: the DER stays valid, the signature does not.
    der.writeUInt8(der.readUInt8(der.length - 1) ^ 0x01, der.length - 1);
    await expectRpcError(spire.raw.svid.MintX509SVID({ csr: der }), 3, /^failed to verify CSR signature: /);
  });

  it('the lifetime is capped at the CA certificate\'s NotAfter', async () => {
    const [ca] = await bundleCa(spire.raw);
    // A TTL a day past the CA's own end: whatever the server's ca_ttl, the leaf must stop with the CA.
    const ttl = Math.ceil((ca!.notAfter.getTime() - Date.now()) / 1000) + 86_400;
    const { der } = await csr([uri(`spiffe://${TD}/w`)]);
    const res = await spire.raw.svid.MintX509SVID({ csr: der, ttl });
    const leaf = new x509.X509Certificate(res.svid!.cert_chain[0]!);
    expect(leaf.notAfter.getTime()).toBe(ca!.notAfter.getTime());
    expect(Number(res.svid?.expires_at)).toBe(seconds(ca!.notAfter));
  });
});
