/**
 * Shared set-up for the conformance tests: the default world of the
 * checklist in docs/spire-semantics.md (trust domain example.org,
 * bundles for example.org and domain1.org, none for domain2.org, and entry E0),
 * plus small helpers that keep each test about one behaviour.
 */
import { expect } from 'vitest';
import { createCertificateAuthority } from '../../src/memspire/ca.js';
import { SpireRpcError } from '../../src/spire/errors.js';
import type { Entry, EntryOut } from '../../src/spire/types.js';
import type { RawStubs } from '../support/spire.js';
import { acquireServer, TARGET_TRUST_DOMAIN } from './target.js';

/** The trust domain of the server under test (example.org unless an external server says otherwise). */
export const TD = TARGET_TRUST_DOMAIN;

/** Selectors of E0: type k8s with values that themselves contain ':'. */
export const E0_SELECTORS = [
  { type: 'k8s', value: 'ns:a' },
  { type: 'k8s', value: 'sa:b' },
];

export const E0_INPUT: Entry = {
  parent_id: { trust_domain: TD, path: '/node' },
  spiffe_id: { trust_domain: TD, path: '/w' },
  selectors: E0_SELECTORS,
  x509_svid_ttl: 60,
};

export interface World {
  socketPath: string;
  raw: RawStubs;
  /** E0 as the server returned it when it was created. */
  e0: EntryOut;
  close(): Promise<void>;
}

/** A DER CA certificate for a trust domain, good enough for any bundle. */
export async function caDer(trustDomain: string): Promise<Buffer> {
  return (await createCertificateAuthority(trustDomain, 3600)).der;
}

/**
 * A server (see target.ts) in the checklist's default state. The bundle and E0
 * are written over the socket, so E0 carries the server's own id, revision and
 * created_at.
 */
export async function startWorld(opts: { withE0?: boolean } = {}): Promise<World> {
  const server = await acquireServer();
  const { raw } = server;
  const set = await raw.bundle.BatchSetFederatedBundle({ bundle: [{ trust_domain: 'domain1.org', x509_authorities: [{ asn1: await caDer('domain1.org') }] }] });
  expect(set.results[0]?.status).toEqual(OK);
  let e0 = undefined as unknown as EntryOut;
  if (opts.withE0 !== false) {
    const res = await raw.entry.BatchCreateEntry({ entries: [E0_INPUT] });
    expect(res.results[0]?.status).toEqual(OK);
    e0 = res.results[0]?.entry as EntryOut;
  }
  return { socketPath: server.socketPath, raw, e0, close: () => server.release() };
}

/** A valid entry distinct from E0, with overrides. */
export function entry(overrides: Entry = {}): Entry {
  return {
    parent_id: { trust_domain: TD, path: '/node' },
    spiffe_id: { trust_domain: TD, path: '/other' },
    selectors: [{ type: 'k8s', value: 'ns:other' }],
    ...overrides,
  };
}

/** Awaits a call that must fail at the top level with exactly this code and message. */
export async function expectRpcError(call: Promise<unknown>, code: number, message: string | RegExp): Promise<SpireRpcError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SpireRpcError);
  const rpcErr = err as SpireRpcError;
  expect(rpcErr.code).toBe(code);
  if (typeof message === 'string') expect(rpcErr.details).toBe(message);
  else expect(rpcErr.details).toMatch(message);
  return rpcErr;
}

/** Every entry, unpaged, in the server's order. */
export async function listAll(raw: RawStubs): Promise<EntryOut[]> {
  const res = await raw.entry.ListEntries({});
  expect(res.next_page_token).toBe('');
  return res.entries;
}

export async function entryIds(raw: RawStubs): Promise<string[]> {
  return (await listAll(raw)).map((e) => e.id);
}

export { onlyId } from '../support/spire.js';

/** Strips the proto3-optional bookkeeping so entries compare by their fields. */
export function withoutAttributes(e: EntryOut): Omit<EntryOut, 'additional_attributes' | '_additional_attributes'> {
  const { additional_attributes: _a, _additional_attributes: _b, ...rest } = e;
  return rest;
}

export const OK = { code: 0, message: 'OK' };

export const nowSeconds = (): number => Date.now() / 1000;
