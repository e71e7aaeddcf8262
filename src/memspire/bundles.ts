import { createPublicKey } from 'node:crypto';
import { x509 } from '../x509/index.js';
import { parseTrustDomain } from '../spiffe/index.js';
import type { Bundle, BundleMaskOut, BundleOut } from '../spire/types.js';
import { Code, fail, ItemFailure, type ItemStatus, OK, spireStatus } from './status.js';
import { type Page, RowTable } from './table.js';
import { errorMessage } from '../api/errors.js';

export interface StoredBundle {
  trustDomain: string;
  x509Authorities: Buffer[];
  jwtAuthorities: { publicKey: Buffer; keyId: string; expiresAt: string }[];
  refreshHint: string;
  sequenceNumber: string;
}

/**
 * Converts an API bundle, throwing the cause text SPIRE would report
 * (spire-semantics §4.3). Tainted flags and WIT authorities are not kept.
 */
export function convertBundle(b: BundleOut, trustDomain: string): StoredBundle {
  const x509Authorities: Buffer[] = [];
  for (const auth of b.x509_authorities) {
    try {
      new x509.X509Certificate(auth.asn1);
    } catch (err) {
      throw new Error(`unable to parse X.509 authority: ${errorMessage(err)}`, { cause: err });
    }
    x509Authorities.push(Buffer.from(auth.asn1));
  }
  const jwtAuthorities: StoredBundle['jwtAuthorities'] = [];
  for (const key of b.jwt_authorities) {
    try {
      createPublicKey({ key: key.public_key, format: 'der', type: 'spki' });
    } catch (err) {
      throw new Error(`unable to parse JWT authority: ${errorMessage(err)}`, { cause: err });
    }
    if (key.key_id === '') throw new Error('unable to parse JWT authority: missing key ID');
    jwtAuthorities.push({ publicKey: Buffer.from(key.public_key), keyId: key.key_id, expiresAt: key.expires_at });
  }
  return {
    trustDomain,
    x509Authorities,
    jwtAuthorities,
    refreshHint: String(b.refresh_hint),
    sequenceNumber: String(b.sequence_number),
  };
}

export function bundleToProto(b: StoredBundle, mask: BundleMaskOut | null): Bundle {
  const out: Bundle = { trust_domain: b.trustDomain };
  if (!mask || mask.x509_authorities) out.x509_authorities = b.x509Authorities.map((asn1) => ({ asn1, tainted: false }));
  if (!mask || mask.jwt_authorities) {
    out.jwt_authorities = b.jwtAuthorities.map((k) => ({ public_key: k.publicKey, key_id: k.keyId, expires_at: k.expiresAt, tainted: false }));
  }
  if (!mask || mask.refresh_hint) out.refresh_hint = b.refreshHint;
  if (!mask || mask.sequence_number) out.sequence_number = b.sequenceNumber;
  return out;
}

/** What a bundle delete needs to know and do about the entries federating with it. */
interface FederatingEntries {
  federatingWith(td: string): number;
  deleteFederatingWith(td: string): void;
  dissociate(td: string): void;
}

type BundleDeleteMode = 'RESTRICT' | 'DELETE' | 'DISSOCIATE';

interface BundleResult {
  status: ItemStatus;
  bundle?: Bundle;
}

/** Trust bundles: the server's own and every federated one, in one table. */
export class BundleStore {
  private readonly table = new RowTable<StoredBundle>();
  private readonly byTd = new Map<string, { row: number; bundle: StoredBundle }>();

  constructor(readonly ownTrustDomain: string) {}

  has(td: string): boolean {
    return this.byTd.has(td);
  }

  get(td: string): StoredBundle | undefined {
    return this.byTd.get(td)?.bundle;
  }

  /** Replaces the stored bundle for its trust domain (no merging), or adds it. */
  put(bundle: StoredBundle): void {
    const current = this.byTd.get(bundle.trustDomain);
    if (!current) {
      this.byTd.set(bundle.trustDomain, { row: this.table.insert(bundle), bundle });
    } else {
      this.table.replace(current.row, bundle);
      current.bundle = bundle;
    }
  }

  remove(td: string): boolean {
    const current = this.byTd.get(td);
    if (!current) return false;
    this.table.delete(current.row);
    this.byTd.delete(td);
    return true;
  }

  /** The own bundle is dropped after the page is read, so pages can come up short. */
  listFederated(pageSize: number, token: string): Page<StoredBundle> {
    const page = this.table.page(pageSize, token, 'bundles', () => true);
    return { items: page.items.filter((b) => b.trustDomain !== this.ownTrustDomain), nextPageToken: page.nextPageToken };
  }

  /** BatchSetFederatedBundle for one bundle. */
  set(b: BundleOut, mask: BundleMaskOut | null): BundleResult {
    try {
      let td: string;
      try {
        td = parseTrustDomain(b.trust_domain);
      } catch (err) {
        return fail(Code.INVALID_ARGUMENT, `trust domain argument is not valid: ${errorMessage(err)}`);
      }
      if (td === this.ownTrustDomain) {
        fail(Code.INVALID_ARGUMENT, "setting a federated bundle for the server's own trust domain is not allowed");
      }
      let stored: StoredBundle;
      try {
        stored = convertBundle(b, td);
      } catch (err) {
        return fail(Code.INVALID_ARGUMENT, 'failed to convert bundle', errorMessage(err));
      }
      this.put(stored);
      return { status: OK, bundle: bundleToProto(stored, mask) };
    } catch (err) {
      if (err instanceof ItemFailure) return { status: err.status };
      throw err;
    }
  }

  /**
   * BatchDeleteFederatedBundle for one trust domain (spire-semantics §4.4). The
   * result echoes the trust domain as sent. Entries federating with it make a
   * RESTRICT delete fail; DELETE deletes them and DISSOCIATE drops the trust
   * domain from them (their revisions stay: only the association rows go).
   */
  deleteFederated(input: string, mode: BundleDeleteMode, entries: FederatingEntries): { status: ItemStatus; trust_domain: string } {
    const result = (status: ItemStatus) => ({ status, trust_domain: input });
    let td: string;
    try {
      td = parseTrustDomain(input);
    } catch (err) {
      return result(spireStatus(Code.INVALID_ARGUMENT, 'trust domain argument is not valid', errorMessage(err)));
    }
    if (td === this.ownTrustDomain) return result(spireStatus(Code.INVALID_ARGUMENT, 'removing the bundle for the server trust domain is not allowed'));
    if (!this.has(td)) return result(spireStatus(Code.NOT_FOUND, 'bundle not found'));
    const federating = entries.federatingWith(td);
    if (federating > 0) {
      if (mode === 'RESTRICT') {
        return result(
          spireStatus(Code.FAILED_PRECONDITION, 'failed to delete federated bundle', `datastore-sql: cannot delete bundle; federated with ${federating} registration entries`),
        );
      }
      if (mode === 'DELETE') entries.deleteFederatingWith(td);
      else entries.dissociate(td);
    }
    this.remove(td);
    return result(OK);
  }
}
