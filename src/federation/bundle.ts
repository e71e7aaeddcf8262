import { createPublicKey, type JsonWebKey, X509Certificate } from 'node:crypto';
import { errorMessage } from '../api/index.js';
import type { TrustBundle } from './model.js';

interface Jwk extends JsonWebKey {
  use?: string;
  kid?: string;
  x5c?: string[];
}

/**
 * Parses a SPIFFE bundle (a JWKS with `use` x509-svid / jwt-svid keys, as
 * `spire-server bundle show -format spiffe` prints) into what SPIRE stores.
 * Throws with the key index and the reason.
 */
export function parseSpiffeBundle(json: string): TrustBundle {
  let doc: { keys?: Jwk[]; spiffe_sequence?: number; spiffe_refresh_hint?: number };
  try {
    doc = JSON.parse(json);
  } catch (err) {
    throw new Error(`not JSON: ${errorMessage(err)}`, { cause: err });
  }
  if (typeof doc !== 'object' || doc === null || !Array.isArray(doc.keys)) throw new Error('must be a SPIFFE bundle: a JSON object with a "keys" array');
  const bundle: TrustBundle = {
    x509Authorities: [],
    jwtAuthorities: [],
    sequenceNumber: Number(doc.spiffe_sequence ?? 0),
    refreshHintSeconds: Number(doc.spiffe_refresh_hint ?? 0),
  };
  doc.keys.forEach((key, i) => {
    if (key.use === 'x509-svid') {
      const [first] = key.x5c ?? [];
      if (key.x5c?.length !== 1 || !first) throw new Error(`keys[${i}]: an x509-svid key must carry exactly one x5c certificate`);
      const der = Buffer.from(first, 'base64');
      try {
        // Node's own parser (OpenSSL): @peculiar/x509 would cost every controller its ASN.1 code at start for this one check.
        new X509Certificate(der);
      } catch (err) {
        throw new Error(`keys[${i}]: x5c is not a certificate: ${errorMessage(err)}`, { cause: err });
      }
      bundle.x509Authorities.push(der);
    } else if (key.use === 'jwt-svid') {
      if (!key.kid) throw new Error(`keys[${i}]: a jwt-svid key needs a kid`);
      let publicKey: Buffer;
      try {
        publicKey = createPublicKey({ key, format: 'jwk' }).export({ type: 'spki', format: 'der' });
      } catch (err) {
        throw new Error(`keys[${i}]: not a public key: ${errorMessage(err)}`, { cause: err });
      }
      bundle.jwtAuthorities.push({ keyId: key.kid, publicKey, expiresAt: 0 });
    } else {
      throw new Error(`keys[${i}]: use must be x509-svid or jwt-svid, got ${JSON.stringify(key.use ?? null)}`);
    }
  });
  return bundle;
}

function sameBundle(a: TrustBundle, b: TrustBundle): boolean {
  const ders = (x: TrustBundle) => x.x509Authorities.map((d) => d.toString('base64')).sort().join();
  const jwts = (x: TrustBundle) => x.jwtAuthorities.map((k) => `${k.keyId}:${k.publicKey.toString('base64')}`).sort().join();
  return ders(a) === ders(b) && jwts(a) === jwts(b);
}

/**
 * Whether a declared bootstrap bundle should be written over what SPIRE
 * holds. SPIRE refreshes a federated bundle from its endpoint, so writing an
 * older declared one back would undo that: only a missing bundle, a newer
 * sequence number, or the same sequence with other keys is written.
 */
export function bundleNeedsWrite(declared: TrustBundle, stored: TrustBundle | undefined): boolean {
  if (!stored) return true;
  if (declared.sequenceNumber > stored.sequenceNumber) return true;
  return declared.sequenceNumber === stored.sequenceNumber && !sameBundle(declared, stored);
}
