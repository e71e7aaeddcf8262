import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Entry } from '../../src/spire/types.js';
import { E0_INPUT, E0_SELECTORS, entry, entryIds, listAll, nowSeconds, OK, onlyId, startWorld, TD, withoutAttributes, type World } from './support.js';

let w: World;
beforeEach(async () => {
  w = await startWorld();
});
afterEach(async () => {
  await w.close();
});

/** Creates one entry and returns its single result. */
async function createOne(e: Entry) {
  const res = await w.raw.entry.BatchCreateEntry({ entries: [e] });
  expect(res.results).toHaveLength(1);
  return res.results[0] as NonNullable<(typeof res.results)[0]>;
}

/** Asserts one create failed with exactly this status, returned no entry, and created nothing. */
async function expectCreateRejected(e: Entry, code: number, message: string | RegExp) {
  const before = await entryIds(w.raw);
  const r = await createOne(e);
  expect(r.status?.code).toBe(code);
  if (typeof message === 'string') expect(r.status?.message).toBe(message);
  else expect(r.status?.message).toMatch(message);
  expect(r.entry).toBeNull();
  expect(await entryIds(w.raw)).toEqual(before);
}

const CONVERT = 'failed to convert entry: ';
const INVALID = 'failed to create entry: datastore-validation: invalid registration entry: ';

describe('BatchCreateEntry answers exactly as a real SPIRE server', () => {
  it('#1 a valid entry without id is created with a lowercase UUIDv4, revision 0 and created_at now', async () => {
    const r = await createOne(entry());
    expect(r.status).toEqual(OK);
    const e = r.entry;
    expect(e?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(e?.revision_number).toBe('0');
    expect(Math.abs(Number(e?.created_at) - nowSeconds())).toBeLessThanOrEqual(1);
    expect(await entryIds(w.raw)).toEqual([w.e0.id, e?.id]);
  });

  it('#2 a custom id made of every allowed character class is kept as sent', async () => {
    const r = await createOne(entry({ id: 'Ab_9.-x' }));
    expect(r.status).toEqual(OK);
    expect(r.entry?.id).toBe('Ab_9.-x');
    const got = await w.raw.entry.GetEntry({ id: 'Ab_9.-x' });
    expect(got.id).toBe('Ab_9.-x');
  });

  it('#3 a 256-byte id is too long and creates nothing; a 255-byte id is accepted', async () => {
    await expectCreateRejected(entry({ id: 'a'.repeat(256) }), 3, `${INVALID}entry ID too long`);
    const r = await createOne(entry({ id: 'b'.repeat(255) }));
    expect(r.status).toEqual(OK);
    expect(r.entry?.id).toBe('b'.repeat(255));
  });

  it('#4 an id with a character outside [A-Za-z0-9._-] is rejected', async () => {
    await expectCreateRejected(entry({ id: 'a/b' }), 3, `${INVALID}entry ID contains invalid characters`);
  });

  it('#5 a similar entry with another id returns the existing entry unchanged and creates nothing', async () => {
    const r = await createOne({
      ...E0_INPUT,
      id: 'other',
      selectors: [...E0_SELECTORS].reverse(),
      x509_svid_ttl: 300,
      hint: 'another hint',
    });
    expect(r.status).toEqual({ code: 6, message: 'similar entry already exists' });
    expect(r.entry).toEqual(w.e0);
    expect(r.entry?.x509_svid_ttl).toBe(60);
    expect(await entryIds(w.raw)).toEqual([w.e0.id]);
    expect(await w.raw.entry.GetEntry({ id: w.e0.id })).toEqual(w.e0);
    await expect(w.raw.entry.GetEntry({ id: 'other' })).rejects.toMatchObject({ code: 5 });
  });

  it('#6 a strict subset or superset of E0 selectors is not similar and creates a new entry', async () => {
    const subset = await createOne({ ...E0_INPUT, selectors: [{ type: 'k8s', value: 'ns:a' }] });
    expect(subset.status).toEqual(OK);
    const superset = await createOne({ ...E0_INPUT, selectors: [...E0_SELECTORS, { type: 'k8s', value: 'pod:c' }] });
    expect(superset.status).toEqual(OK);
    const ids = await entryIds(w.raw);
    expect(ids).toHaveLength(3);
    expect(new Set(ids)).toEqual(new Set([w.e0.id, subset.entry?.id, superset.entry?.id]));
  });

  it('#7 a custom id already taken by a non-similar entry fails with ALREADY_EXISTS and no entry', async () => {
    await expectCreateRejected(entry({ id: w.e0.id }), 6, /^failed to create entry: datastore-sql: /);
    expect((await w.raw.entry.GetEntry({ id: w.e0.id })).spiffe_id).toEqual({ trust_domain: TD, path: '/w' });
  });

  it('#8 the second of two identical new entries in one batch is similar to the first', async () => {
    const res = await w.raw.entry.BatchCreateEntry({ entries: [entry(), entry()] });
    expect(res.results).toHaveLength(2);
    expect(res.results[0]?.status).toEqual(OK);
    expect(res.results[1]?.status).toEqual({ code: 6, message: 'similar entry already exists' });
    expect(res.results[1]?.entry?.id).toBe(res.results[0]?.entry?.id);
    expect(await entryIds(w.raw)).toEqual([w.e0.id, res.results[0]?.entry?.id]);
  });

  it('#9 a batch of a valid and an invalid entry answers OK with per-item results in order and keeps the valid one', async () => {
    const res = await w.raw.entry.BatchCreateEntry({ entries: [entry({ id: 'good' }), entry({ id: 'bad', selectors: [] })] });
    expect(res.results.map((r) => r.status)).toEqual([OK, { code: 3, message: `${CONVERT}selector list is empty` }]);
    expect(res.results[0]?.entry?.id).toBe('good');
    expect(res.results[1]?.entry).toBeNull();
    expect(await entryIds(w.raw)).toEqual([w.e0.id, 'good']);
  });

  it('#10 a parent ID in another trust domain is not a member', async () => {
    await expectCreateRejected(
      entry({ parent_id: { trust_domain: 'other.org', path: '/n' } }),
      3,
      `${CONVERT}invalid parent ID: "spiffe://other.org/n" is not a member of trust domain "${TD}"`,
    );
  });

  it('#11 a parent ID with an empty path is rejected', async () => {
    await expectCreateRejected(
      entry({ parent_id: { trust_domain: TD, path: '' } }),
      3,
      `${CONVERT}invalid parent ID: "spiffe://${TD}" is not a member of trust domain "${TD}"; path is empty`,
    );
  });

  it('#12 agent and server IDs under /spire are accepted as parents', async () => {
    for (const path of ['/spire/agent/k8s_psat/c/n', '/spire/server']) {
      const r = await createOne(entry({ parent_id: { trust_domain: TD, path } }));
      expect(r.status).toEqual(OK);
      expect(r.entry?.parent_id).toEqual({ trust_domain: TD, path });
    }
  });

  it('#13 a SPIFFE ID in the reserved /spire namespace is not a workload', async () => {
    await expectCreateRejected(
      entry({ spiffe_id: { trust_domain: TD, path: '/spire/x' } }),
      3,
      `${CONVERT}invalid spiffe ID: "spiffe://${TD}/spire/x" is not a workload in trust domain "${TD}"; path is in the reserved namespace`,
    );
  });

  it('#14 a missing SPIFFE ID is rejected', async () => {
    await expectCreateRejected(entry({ spiffe_id: null }), 3, `${CONVERT}invalid spiffe ID: request must specify SPIFFE ID`);
  });

  it.each([
    ['w', 'path must have a leading slash'],
    ['/a//b', 'path cannot contain empty segments'],
    ['/a/', 'path cannot have a trailing slash'],
    ['/a/../b', 'path cannot contain dot segments'],
    ['/a b', 'path segment characters are limited to letters, numbers, dots, dashes, and underscores'],
  ])('#15 the SPIFFE ID path %j is rejected: %s', async (path, reason) => {
    await expectCreateRejected(entry({ spiffe_id: { trust_domain: TD, path } }), 3, `${CONVERT}invalid spiffe ID: ${reason}`);
  });

  it('#16 an uppercase or empty SPIFFE ID trust domain is rejected', async () => {
    await expectCreateRejected(
      entry({ spiffe_id: { trust_domain: 'Example.org', path: '/w2' } }),
      3,
      `${CONVERT}invalid spiffe ID: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores`,
    );
    await expectCreateRejected(entry({ spiffe_id: { trust_domain: '', path: '/w2' } }), 3, `${CONVERT}invalid spiffe ID: trust domain is missing`);
  });

  it('#17 an empty selector list is rejected', async () => {
    await expectCreateRejected(entry({ selectors: [] }), 3, `${CONVERT}selector list is empty`);
  });

  it('#18 selectors need a type without ":" and a value; values may contain ":"', async () => {
    await expectCreateRejected(entry({ selectors: [{ type: '', value: 'x' }] }), 3, `${CONVERT}missing selector type`);
    await expectCreateRejected(entry({ selectors: [{ type: 'k8s:ns', value: 'x' }] }), 3, `${CONVERT}selector type contains ':'`);
    await expectCreateRejected(entry({ selectors: [{ type: 'k8s', value: '' }] }), 3, `${CONVERT}missing selector value`);
    const r = await createOne(entry({ selectors: [{ type: 'k8s', value: 'ns:default' }] }));
    expect(r.status).toEqual(OK);
    expect(r.entry?.selectors).toEqual([{ type: 'k8s', value: 'ns:default' }]);
  });

  it('#19 a hint over 1024 bytes is rejected; exactly 1024 bytes is accepted', async () => {
    await expectCreateRejected(entry({ hint: 'h'.repeat(1025) }), 3, `${CONVERT}hint is too long, max length is 1024 characters`);
    const r = await createOne(entry({ hint: 'h'.repeat(1024) }));
    expect(r.status).toEqual(OK);
    expect(r.entry?.hint).toBe('h'.repeat(1024));
  });

  it('#20 negative TTLs are rejected; 0 and 2147483647 are stored as sent', async () => {
    await expectCreateRejected(entry({ x509_svid_ttl: -1 }), 3, `${INVALID}X509SvidTtl is not set`);
    await expectCreateRejected(entry({ jwt_svid_ttl: -1 }), 3, `${INVALID}JwtSvidTtl is not set`);
    const zero = await createOne(entry({ id: 'zero', x509_svid_ttl: 0, jwt_svid_ttl: 0 }));
    expect(zero.status).toEqual(OK);
    const max = await createOne(entry({ id: 'max', spiffe_id: { trust_domain: TD, path: '/max' }, x509_svid_ttl: 2147483647, jwt_svid_ttl: 2147483647 }));
    expect(max.status).toEqual(OK);
    const stored = await w.raw.entry.GetEntry({ id: 'max' });
    expect([stored.x509_svid_ttl, stored.jwt_svid_ttl]).toEqual([2147483647, 2147483647]);
    const z = await w.raw.entry.GetEntry({ id: 'zero' });
    expect([z.x509_svid_ttl, z.jwt_svid_ttl]).toEqual([0, 0]);
  });

  it.each([
    ['', 'empty or only whitespace'],
    ['a.com.', 'domain ends with dot'],
    ['*.*.a.com', 'too many wildcards'],
    ['a.*.com', 'wildcard must be first label'],
    ['bücher.de', 'name must be ascii'],
  ])('#21 the DNS name %j is rejected: %s', async (name, reason) => {
    await expectCreateRejected(entry({ dns_names: [name] }), 3, `${CONVERT}invalid DNS name: ${reason}`);
  });

  it('#21 a DNS name with a label starting with "-" is an IDNA error', async () => {
    await expectCreateRejected(entry({ dns_names: ['-a.com'] }), 3, /^failed to convert entry: invalid DNS name: idna error/);
  });

  it('#22 wildcard, bare, single-label and dashed DNS names are accepted and kept in order', async () => {
    const names = ['*.a.com', 'a.com', 'localhost', 'a-b.example.com'];
    const r = await createOne(entry({ dns_names: names }));
    expect(r.status).toEqual(OK);
    // The create's answer lists them sorted; what is stored, and read back, keeps the order sent.
    expect(r.entry?.dns_names).toEqual(['*.a.com', 'a-b.example.com', 'a.com', 'localhost']);
    expect((await w.raw.entry.GetEntry({ id: r.entry?.id ?? '' })).dns_names).toEqual(names);
  });

  it('#23 a duplicate DNS name in one entry fails with ALREADY_EXISTS and creates nothing', async () => {
    await expectCreateRejected(entry({ dns_names: ['x.com', 'x.com'] }), 6, /^failed to create entry: datastore-sql: /);
  });

  it('#24 an uppercase federated trust domain is rejected', async () => {
    await expectCreateRejected(
      entry({ federates_with: ['Domain1.org'] }),
      3,
      `${CONVERT}invalid federated trust domain: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores`,
    );
  });

  it('#25 federating with a trust domain that has no bundle is INTERNAL, even when a relationship exists', async () => {
    const message = 'failed to create entry: unable to find federated bundle "spiffe://domain2.org"';
    await expectCreateRejected(entry({ federates_with: ['domain2.org'] }), 13, message);
    const fr = await w.raw.trustDomain.BatchCreateFederationRelationship({
      federation_relationships: [{ trust_domain: 'domain2.org', bundle_endpoint_url: 'https://domain2.org/b', https_web: {} }],
    });
    expect(fr.results[0]?.status).toEqual(OK);
    await expectCreateRejected(entry({ federates_with: ['domain2.org'] }), 13, message);
  });

  it('#26 a trust domain given as a URI and as a name is stored once, as a bare name', async () => {
    const r = await createOne(entry({ federates_with: ['spiffe://domain1.org', 'domain1.org'] }));
    expect(r.status).toEqual(OK);
    expect(r.entry?.federates_with).toEqual(['domain1.org']);
    expect((await w.raw.entry.GetEntry({ id: r.entry?.id ?? '' })).federates_with).toEqual(['domain1.org']);
  });

  it('#27 store_svid with selectors of two types is rejected', async () => {
    await expectCreateRejected(
      entry({ store_svid: true, selectors: [{ type: 'k8s', value: 'ns:a' }, { type: 'unix', value: 'uid:0' }] }),
      3,
      `${INVALID}selector types must be the same when store SVID is enabled`,
    );
  });

  it('#28 store_svid with disabled X.509 SVID prefetch is rejected', async () => {
    await expectCreateRejected(
      entry({ store_svid: true, additional_attributes: { disable_x509_svid_prefetch: true } }),
      3,
      'failed to create entry: datastore-validation: specifying cache behaviour is incompatible with storable SVIDs',
    );
  });

  it('#29 additional attributes with both flags false come back absent; a true flag comes back present', async () => {
    const off = await createOne(entry({ id: 'off', additional_attributes: { disable_x509_svid_prefetch: false, jwt_svid_include_jti: false } }));
    expect(off.status).toEqual(OK);
    expect(off.entry?.additional_attributes ?? null).toBeNull();
    expect((await w.raw.entry.GetEntry({ id: 'off' })).additional_attributes ?? null).toBeNull();

    const on = await createOne(
      entry({ id: 'on', spiffe_id: { trust_domain: TD, path: '/on' }, additional_attributes: { jwt_svid_include_jti: true } }),
    );
    expect(on.status).toEqual(OK);
    const want = { disable_x509_svid_prefetch: false, jwt_svid_include_jti: true };
    expect(on.entry?.additional_attributes).toEqual(want);
    expect((await w.raw.entry.GetEntry({ id: 'on' })).additional_attributes).toEqual(want);
  });

  it('#30 an empty output mask returns only the id, on success and on ALREADY_EXISTS', async () => {
    const res = await w.raw.entry.BatchCreateEntry({
      entries: [entry({ hint: 'h', dns_names: ['a.test'], additional_attributes: { jwt_svid_include_jti: true } }), E0_INPUT],
      output_mask: {},
    });
    expect(res.results.map((r) => r.status)).toEqual([OK, { code: 6, message: 'similar entry already exists' }]);
    const [created, similar] = res.results.map((r) => r.entry);
    expect(withoutAttributes(created!)).toEqual(onlyId(created!.id));
    expect(created?.additional_attributes ?? null).toBeNull();
    expect(withoutAttributes(similar!)).toEqual(onlyId(w.e0.id));
    // The mask shapes the answer only: the stored entry is complete.
    const stored = await w.raw.entry.GetEntry({ id: created!.id });
    expect(stored.hint).toBe('h');
    expect(stored.dns_names).toEqual(['a.test']);
    expect(stored.additional_attributes).toEqual({ disable_x509_svid_prefetch: false, jwt_svid_include_jti: true });
  });

  it('#61 a TTL past int32 arrives wrapped, as a negative TTL, and is refused as one', async () => {
    await expectCreateRejected(entry({ x509_svid_ttl: 3_153_600_000 }), 3, `${INVALID}X509SvidTtl is not set`);
    await expectCreateRejected(entry({ jwt_svid_ttl: 2_160_000_000 }), 3, `${INVALID}JwtSvidTtl is not set`);
  });

  it.each(['/a%2Fb', '/a?b=c', '/a#b', '/a\u0000b', '/a\tb'])('#62 the SPIFFE ID path %j has a character no path holds', async (path) => {
    await expectCreateRejected(
      entry({ spiffe_id: { trust_domain: TD, path } }),
      3,
      `${CONVERT}invalid spiffe ID: path segment characters are limited to letters, numbers, dots, dashes, and underscores`,
    );
  });

  it('#63 DNS names with a NUL, a tab, a space or punctuation inside a label are accepted and stored as sent', async () => {
    const names = ['a\u0000b.com', 'a\tb.com', 'a b.com', 'a!b.com'];
    const r = await createOne(entry({ dns_names: names }));
    expect(r.status).toEqual(OK);
    expect(r.entry?.dns_names).toEqual(names);
  });
});

describe('BatchCreateEntry beyond the checklist', () => {
  it('an output mask on create fills in exactly the selected fields', async () => {
    const r = await w.raw.entry.BatchCreateEntry({ entries: [entry({ hint: 'h', x509_svid_ttl: 7 })], output_mask: { hint: true, x509_svid_ttl: true } });
    const e = r.results[0]?.entry;
    expect(e).toEqual({ ...onlyId(e!.id), hint: 'h', x509_svid_ttl: 7 });
  });

  it('the similar entry returned for a duplicate request is the one created first', async () => {
    const all = await listAll(w.raw);
    expect(all).toHaveLength(1);
    const second = await createOne({ ...E0_INPUT, selectors: [{ type: 'k8s', value: 'ns:a' }] });
    expect(second.status).toEqual(OK);
    // Updates may make two entries similar; a later create must then name E0, the first.
    const upd = await w.raw.entry.BatchUpdateEntry({ entries: [{ id: second.entry!.id, selectors: E0_SELECTORS }], input_mask: { selectors: true } });
    expect(upd.results[0]?.status).toEqual(OK);
    const third = await createOne(E0_INPUT);
    expect(third.status?.code).toBe(6);
    expect(third.entry?.id).toBe(w.e0.id);
  });
});

describe('BatchCreateEntry follows the rest of spire-semantics §2.1–§2.3', () => {
  it('the answer to a create sorts selectors and DNS names; GetEntry, ListEntries and a similar-entry answer keep the order sent', async () => {
    const selectors = [{ type: 'k8s', value: 'z' }, { type: 'k8s', value: 'a' }, { type: 'a', value: 'q' }];
    const dns_names = ['z.com', 'b.com'];
    const res = await w.raw.entry.BatchCreateEntry({ entries: [entry({ selectors, dns_names }), entry({ selectors, dns_names })] });
    const [created, similar] = res.results;
    expect(created?.entry?.selectors).toEqual([{ type: 'a', value: 'q' }, { type: 'k8s', value: 'a' }, { type: 'k8s', value: 'z' }]);
    expect(created?.entry?.dns_names).toEqual(['b.com', 'z.com']);
    expect(similar?.status?.code).toBe(6);
    expect([similar?.entry?.selectors, similar?.entry?.dns_names]).toEqual([selectors, dns_names]);
    const id = created!.entry!.id;
    expect((await w.raw.entry.GetEntry({ id })).selectors).toEqual(selectors);
    expect((await listAll(w.raw)).find((e) => e.id === id)?.dns_names).toEqual(dns_names);
    // An update answers sorted too, even for fields it did not touch.
    const upd = await w.raw.entry.BatchUpdateEntry({ entries: [{ id, hint: 'h' }], input_mask: { hint: true } });
    expect([upd.results[0]?.entry?.selectors, upd.results[0]?.entry?.dns_names]).toEqual([created?.entry?.selectors, created?.entry?.dns_names]);
    expect((await w.raw.entry.GetEntry({ id })).dns_names).toEqual(dns_names);
  });

  it('the similar-entry check runs before the federated-bundle check', async () => {
    const r = await createOne({ ...E0_INPUT, federates_with: ['domain2.org'] });
    expect(r.status).toEqual({ code: 6, message: 'similar entry already exists' });
    expect(r.entry).toEqual(w.e0);
  });

  it('a duplicate selector in a non-similar entry fails with the SQLite wording', async () => {
    const dup = { type: 'k8s', value: 'ns:z' };
    const r = await createOne(entry({ selectors: [dup, dup] }));
    expect(r.status).toEqual({
      code: 6,
      message: 'failed to create entry: datastore-sql: UNIQUE constraint failed: selectors.registered_entry_id, selectors.type, selectors.value',
    });
    expect(r.entry).toBeNull();
    const d = await createOne(entry({ dns_names: ['x.com', 'x.com'] }));
    expect(d.status?.message).toBe('failed to create entry: datastore-sql: UNIQUE constraint failed: dns_names.registered_entry_id, dns_names.value');
    expect(await entryIds(w.raw)).toEqual([w.e0.id]);
  });

  it('a custom id that is taken returns the SQLite wording exactly', async () => {
    const r = await createOne(entry({ id: w.e0.id }));
    expect(r.status).toEqual({ code: 6, message: 'failed to create entry: datastore-sql: UNIQUE constraint failed: registered_entries.entry_id' });
  });

  it('ids are case-sensitive, and parent_id may equal spiffe_id', async () => {
    const res = await w.raw.entry.BatchCreateEntry({
      entries: [
        entry({ id: 'abc', spiffe_id: { trust_domain: TD, path: '/x1' } }),
        entry({ id: 'ABC', spiffe_id: { trust_domain: TD, path: '/x2' } }),
        entry({ id: 'self', parent_id: { trust_domain: TD, path: '/self' }, spiffe_id: { trust_domain: TD, path: '/self' } }),
      ],
    });
    expect(res.results.map((r) => r.status)).toEqual([OK, OK, OK]);
    expect(await entryIds(w.raw)).toEqual([w.e0.id, 'abc', 'ABC', 'self']);
  });

  it('federating with the own trust domain works because its bundle exists', async () => {
    const r = await createOne(entry({ federates_with: [TD, 'domain1.org'] }));
    expect(r.status).toEqual(OK);
    expect(new Set(r.entry?.federates_with)).toEqual(new Set([TD, 'domain1.org']));
  });

  it('a trust domain given as a SPIFFE ID in SPIFFEID.trust_domain is reduced to its name', async () => {
    const r = await createOne(entry({ spiffe_id: { trust_domain: `spiffe://${TD}/ignored`, path: '/td-uri' } }));
    expect(r.status).toEqual(OK);
    expect(r.entry?.spiffe_id).toEqual({ trust_domain: TD, path: '/td-uri' });
  });

  it('DNS names with uppercase and underscores are accepted and stored exactly as sent', async () => {
    const names = ['A_b.Example.com', 'xn--bcher-kva.de'];
    const r = await createOne(entry({ dns_names: names }));
    expect(r.status).toEqual(OK);
    expect(r.entry?.dns_names).toEqual(names);
  });

  it.each([
    [' ', 'empty or only whitespace'],
    ['*', 'wildcard must be first label'],
  ])('the DNS name %j is rejected: %s', async (name, reason) => {
    await expectCreateRejected(entry({ dns_names: [name] }), 3, `${CONVERT}invalid DNS name: ${reason}`);
  });

  it.each(['a..b', 'ab--cd.com', `${'a'.repeat(64)}.com`, `${'a.'.repeat(127)}ab`])('the DNS name %j is an IDNA error', async (name) => {
    await expectCreateRejected(entry({ dns_names: [name] }), 3, /^failed to convert entry: invalid DNS name: idna error/);
  });

  it.each(['xn--zz.com', 'xn--a_b.com', 'xn---a.com', 'xn--ab--c-.de', 'a.xn--'])('the punycode label in %j does not decode to a valid label: an IDNA error', async (name) => {
    await expectCreateRejected(entry({ dns_names: [name] }), 3, /^failed to convert entry: invalid DNS name: idna error/);
  });

  it('valid punycode labels are accepted; an uppercase XN-- prefix is no punycode prefix, and its "--" is refused', async () => {
    const r = await createOne(entry({ dns_names: ['xn--bcher-kva.de', 'xn--ls8h.la'] }));
    expect(r.status).toEqual(OK);
    await expectCreateRejected(entry({ dns_names: ['XN--bcher-kva.de'] }), 3, `${CONVERT}invalid DNS name: idna error\nidna: invalid label "XN--bcher-kva"`);
    await expectCreateRejected(entry({ dns_names: ['Xn--bcher-kva.de'] }), 3, `${CONVERT}invalid DNS name: idna error\nidna: invalid label "Xn--bcher-kva"`);
  });

  it('the hint limit counts bytes, not characters', async () => {
    await expectCreateRejected(entry({ hint: 'é'.repeat(513) }), 3, `${CONVERT}hint is too long, max length is 1024 characters`);
  });

  it('expires_at, admin, downstream and store_svid are stored as given, unvalidated', async () => {
    const r = await createOne(entry({ expires_at: '-5', admin: true, downstream: true, store_svid: true, jwt_svid_ttl: 30 }));
    expect(r.status).toEqual(OK);
    expect(r.entry).toMatchObject({ expires_at: '-5', admin: true, downstream: true, store_svid: true, jwt_svid_ttl: 30 });
    const big = await createOne(entry({ spiffe_id: { trust_domain: TD, path: '/big' }, expires_at: '9223372036854775807' }));
    expect(big.entry?.expires_at).toBe('9223372036854775807');
  });

  it("validation runs in SPIRE's order (docs/spire-semantics.md): the parent ID is reported before the SPIFFE ID, DNS names and selectors", async () => {
    await expectCreateRejected(
      { parent_id: { trust_domain: 'other.org', path: '/n' }, spiffe_id: null, dns_names: [''], selectors: [] },
      3,
      `${CONVERT}invalid parent ID: "spiffe://other.org/n" is not a member of trust domain "${TD}"`,
    );
    await expectCreateRejected(entry({ dns_names: [''], federates_with: ['Bad'], selectors: [] }), 3, `${CONVERT}invalid DNS name: empty or only whitespace`);
    await expectCreateRejected(entry({ federates_with: ['Bad'], selectors: [] }), 3, /^failed to convert entry: invalid federated trust domain: /);
    await expectCreateRejected(
      entry({ id: 'a/b', x509_svid_ttl: -1, store_svid: true, selectors: [{ type: 'a', value: '1' }, { type: 'b', value: '2' }] }),
      3,
      `${INVALID}selector types must be the same when store SVID is enabled`,
    );
    await expectCreateRejected(entry({ id: 'a/b', x509_svid_ttl: -1 }), 3, `${INVALID}entry ID contains invalid characters`);
  });
});
