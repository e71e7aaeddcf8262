import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bundle, FederationRelationship, FederationRelationshipOut } from '../../src/spire/types.js';
import { caDer, entry, expectRpcError, OK, startWorld, TD, type World } from './support.js';

let w: World;
beforeEach(async () => {
  w = await startWorld({ withE0: false });
});
afterEach(async () => {
  await w.close();
});

const A_TEST: FederationRelationship = { trust_domain: 'a.test', bundle_endpoint_url: 'https://a.test/b', https_web: {} };

async function createFr(fr: FederationRelationship) {
  const res = await w.raw.trustDomain.BatchCreateFederationRelationship({ federation_relationships: [fr] });
  expect(res.results).toHaveLength(1);
  return res.results[0] as NonNullable<(typeof res.results)[0]>;
}

async function updateFr(fr: FederationRelationship, inputMask?: Parameters<typeof w.raw.trustDomain.BatchUpdateFederationRelationship>[0]['input_mask']) {
  const res = await w.raw.trustDomain.BatchUpdateFederationRelationship({
    federation_relationships: [fr],
    ...(inputMask !== undefined ? { input_mask: inputMask } : {}),
  });
  expect(res.results).toHaveLength(1);
  return res.results[0] as NonNullable<(typeof res.results)[0]>;
}

async function listFrs(): Promise<FederationRelationshipOut[]> {
  const res = await w.raw.trustDomain.ListFederationRelationships({});
  expect(res.next_page_token).toBe('');
  return res.federation_relationships;
}

async function federatedBundleTds(): Promise<string[]> {
  const res = await w.raw.bundle.ListFederatedBundles({});
  return res.bundles.map((b) => b.trust_domain);
}

async function bundleFor(td: string): Promise<Bundle> {
  return { trust_domain: td, x509_authorities: [{ asn1: await caDer(td) }], refresh_hint: 30, sequence_number: 4 };
}

/** The stored form of an https_web FR as the wire returns it. */
function webFr(trust_domain: string, bundle_endpoint_url: string): Partial<FederationRelationshipOut> {
  return { trust_domain, bundle_endpoint_url, https_web: {}, bundle_endpoint_profile: 'https_web' };
}

const CONVERT = 'failed to convert federation relationship: ';

/** Asserts a create failed with exactly this status, with no relationship, and nothing stored. */
async function expectCreateRejected(fr: FederationRelationship, code: number, message: string) {
  const r = await createFr(fr);
  expect(r.status).toEqual({ code, message });
  expect(r.federation_relationship).toBeNull();
  expect(await listFrs()).toEqual([]);
}

describe('BatchCreateFederationRelationship answers exactly as a real SPIRE server', () => {
  it('#48 a valid https_web relationship is echoed without a trust_domain_bundle', async () => {
    const r = await createFr(A_TEST);
    expect(r.status).toEqual(OK);
    expect(r.federation_relationship).toMatchObject(webFr('a.test', 'https://a.test/b'));
    expect(r.federation_relationship?.trust_domain_bundle).toBeNull();
    expect(await listFrs()).toEqual([r.federation_relationship]);
  });

  it('#49 a second relationship for the same trust domain is INTERNAL, as the SQL constraint reports it', async () => {
    expect((await createFr(A_TEST)).status).toEqual(OK);
    const r = await createFr({ ...A_TEST, bundle_endpoint_url: 'https://a.test/other' });
    expect(r.status).toEqual({
      code: 13,
      message: 'failed to create federation relationship: datastore-sql: UNIQUE constraint failed: federated_trust_domains.trust_domain',
    });
    expect(r.federation_relationship).toBeNull();
    expect((await listFrs()).map((fr) => fr.bundle_endpoint_url)).toEqual(['https://a.test/b']);
  });

  it('#50 a relationship for the server trust domain is rejected', async () => {
    await expectCreateRejected({ ...A_TEST, trust_domain: TD }, 3, 'unable to create federation relationship for server trust domain');
  });

  it.each([
    ['http://a.test', 'bundle endpoint URL must use the https scheme'],
    ['https://u@a.test', 'bundle endpoint URL must not contain user info'],
    ['https:///x', 'bundle endpoint URL must specify the host'],
  ])('#51 the bundle endpoint URL %j is rejected: %s', async (url, reason) => {
    await expectCreateRejected({ ...A_TEST, bundle_endpoint_url: url }, 3, `${CONVERT}${reason}`);
  });

  it('#52 an https_spiffe profile needs an endpoint ID, and some profile is required', async () => {
    await expectCreateRejected(
      { trust_domain: 'a.test', bundle_endpoint_url: 'https://a.test/b', https_spiffe: { endpoint_spiffe_id: '' } },
      3,
      `${CONVERT}failed to parse endpoint SPIFFE ID: cannot be empty`,
    );
    await expectCreateRejected(
      { trust_domain: 'a.test', bundle_endpoint_url: 'https://a.test/b' },
      3,
      `${CONVERT}unsupported bundle endpoint profile type: <nil>`,
    );
  });

  it('#53 a trust_domain_bundle for another trust domain is rejected and stores no bundle', async () => {
    await expectCreateRejected(
      { ...A_TEST, trust_domain: 'b.test', trust_domain_bundle: await bundleFor('a.test') },
      3,
      `${CONVERT}trust domain bundle ("a.test") must match the trust domain of the federation relationship ("b.test")`,
    );
    expect(await federatedBundleTds()).toEqual(['domain1.org']);
  });

  it('#54 a trust_domain_bundle is stored: listed, usable by entries and returned with the relationship', async () => {
    const bundle = await bundleFor('a.test');
    const r = await createFr({ ...A_TEST, trust_domain_bundle: bundle });
    expect(r.status).toEqual(OK);
    expect(r.federation_relationship?.trust_domain_bundle?.trust_domain).toBe('a.test');

    const listed = (await w.raw.bundle.ListFederatedBundles({})).bundles;
    expect(listed.map((b) => b.trust_domain)).toEqual(['domain1.org', 'a.test']);
    expect(listed[1]?.x509_authorities.map((a) => Buffer.from(a.asn1))).toEqual([bundle.x509_authorities?.[0]?.asn1]);

    const created = await w.raw.entry.BatchCreateEntry({ entries: [entry({ federates_with: ['a.test'] })] });
    expect(created.results[0]?.status).toEqual(OK);
    expect(created.results[0]?.entry?.federates_with).toEqual(['a.test']);

    const frs = await listFrs();
    expect(frs).toHaveLength(1);
    expect(frs[0]?.trust_domain_bundle).toEqual(listed[1]);
  });
});

describe('BatchUpdateFederationRelationship answers exactly as a real SPIRE server', () => {
  it('#55 an unknown trust domain is INTERNAL "record not found"', async () => {
    const r = await updateFr({ ...A_TEST, trust_domain: 'nope.test' });
    expect(r.status).toEqual({
      code: 13,
      message: 'failed to update federation relationship: unable to fetch federation relationship: record not found',
    });
    expect(r.federation_relationship).toBeNull();
    expect(await listFrs()).toEqual([]);
  });

  it('#56 an empty input mask changes nothing and returns the stored relationship, but the whole message is still validated', async () => {
    const bundle = await bundleFor('a.test');
    expect((await createFr({ ...A_TEST, trust_domain_bundle: bundle })).status).toEqual(OK);
    const before = await listFrs();
    const other = { trust_domain: 'a.test', bundle_endpoint_url: 'https://changed.test/x', https_spiffe: { endpoint_spiffe_id: 'spiffe://a.test/ep' } };
    const r = await updateFr(other, {});
    expect(r.status).toEqual(OK);
    expect(r.federation_relationship).toMatchObject(webFr('a.test', 'https://a.test/b'));
    expect(r.federation_relationship?.trust_domain_bundle).toEqual(before[0]?.trust_domain_bundle);
    expect(r.federation_relationship?.trust_domain_bundle?.x509_authorities.map((a) => Buffer.from(a.asn1))).toEqual([
      bundle.x509_authorities?.[0]?.asn1,
    ]);
    expect(await listFrs()).toEqual(before);

    const bad = await updateFr({ ...other, bundle_endpoint_url: 'http://x' }, {});
    expect(bad.status).toEqual({ code: 3, message: `${CONVERT}bundle endpoint URL must use the https scheme` });
    expect(bad.federation_relationship).toBeNull();
    expect(await listFrs()).toEqual(before);
  });
});

describe('BatchDeleteFederationRelationship answers exactly as a real SPIRE server', () => {
  it('#57 each trust domain gets its own result; deleting a relationship keeps its bundle', async () => {
    expect((await createFr({ ...A_TEST, trust_domain_bundle: await bundleFor('a.test') })).status).toEqual(OK);
    const res = await w.raw.trustDomain.BatchDeleteFederationRelationship({ trust_domains: ['', 'nope.test', 'spiffe://a.test'] });
    expect(res.results).toEqual([
      { status: { code: 3, message: 'missing trust domain' }, trust_domain: '' },
      { status: { code: 5, message: 'federation relationship not found' }, trust_domain: 'nope.test' },
      { status: OK, trust_domain: 'a.test' },
    ]);
    expect(await listFrs()).toEqual([]);
    expect(await federatedBundleTds()).toEqual(['domain1.org', 'a.test']);
  });
});

describe('federation relationships beyond the checklist', () => {
  it('ListFederationRelationships pages by creation order, with a final empty page', async () => {
    for (const td of ['c.test', 'a.test', 'b.test']) {
      expect((await createFr({ ...A_TEST, trust_domain: td, bundle_endpoint_url: `https://${td}/` })).status).toEqual(OK);
    }
    const p1 = await w.raw.trustDomain.ListFederationRelationships({ page_size: 2 });
    expect(p1.federation_relationships.map((f) => f.trust_domain)).toEqual(['c.test', 'a.test']);
    expect(p1.next_page_token).not.toBe('');
    const p2 = await w.raw.trustDomain.ListFederationRelationships({ page_size: 2, page_token: p1.next_page_token });
    expect(p2.federation_relationships.map((f) => f.trust_domain)).toEqual(['b.test']);
    expect(p2.next_page_token).not.toBe('');
    const p3 = await w.raw.trustDomain.ListFederationRelationships({ page_size: 2, page_token: p2.next_page_token });
    expect(p3).toEqual({ federation_relationships: [], next_page_token: '' });
    const unpaged = await w.raw.trustDomain.ListFederationRelationships({ page_size: 0, page_token: 'ignored' });
    expect(unpaged.federation_relationships.map((f) => f.trust_domain)).toEqual(['c.test', 'a.test', 'b.test']);
    expect(unpaged.next_page_token).toBe('');
  });

  it('ListFederationRelationships rejects a bad token and survives a delete between pages', async () => {
    for (const td of ['a.test', 'b.test', 'c.test']) expect((await createFr({ ...A_TEST, trust_domain: td })).status).toEqual(OK);
    const err = await expectRpcError(w.raw.trustDomain.ListFederationRelationships({ page_size: 1, page_token: 'x1' }), 13, /^failed to list federation relationships/);
    expect(err.details).toContain("could not parse token 'x1'");
    const p1 = await w.raw.trustDomain.ListFederationRelationships({ page_size: 1 });
    const del = await w.raw.trustDomain.BatchDeleteFederationRelationship({ trust_domains: ['b.test'] });
    expect(del.results[0]?.status).toEqual(OK);
    const p2 = await w.raw.trustDomain.ListFederationRelationships({ page_size: 1, page_token: p1.next_page_token });
    expect(p2.federation_relationships.map((f) => f.trust_domain)).toEqual(['c.test']);
  });

  it('ListFederationRelationships honours an output mask, always keeping trust_domain', async () => {
    expect((await createFr({ ...A_TEST, trust_domain_bundle: await bundleFor('a.test') })).status).toEqual(OK);
    const res = await w.raw.trustDomain.ListFederationRelationships({ output_mask: { bundle_endpoint_url: true } });
    expect(res.federation_relationships).toHaveLength(1);
    const fr = res.federation_relationships[0];
    expect(fr?.trust_domain).toBe('a.test');
    expect(fr?.bundle_endpoint_url).toBe('https://a.test/b');
    expect(fr?.bundle_endpoint_profile).toBeUndefined();
    expect(fr?.trust_domain_bundle).toBeNull();
  });

  it('a relationship created for a trust domain that already has a bundle does not echo that bundle, but lists it', async () => {
    const r = await createFr({ ...A_TEST, trust_domain: 'spiffe://domain1.org', bundle_endpoint_url: 'HTTPS://domain1.org/b' });
    expect(r.status).toEqual(OK);
    expect(r.federation_relationship).toMatchObject(webFr('domain1.org', 'https://domain1.org/b'));
    expect(r.federation_relationship?.trust_domain_bundle).toBeNull();
    expect((await listFrs())[0]?.trust_domain_bundle?.trust_domain).toBe('domain1.org');
  });

  it('an update without input mask writes the URL, profile and bundle, and reads the bundle back', async () => {
    expect((await createFr(A_TEST)).status).toEqual(OK);
    const bundle = await bundleFor('a.test');
    const r = await updateFr({ trust_domain: 'a.test', bundle_endpoint_url: 'https://a.test/new', https_spiffe: { endpoint_spiffe_id: 'spiffe://a.test/ep' }, trust_domain_bundle: bundle });
    expect(r.status).toEqual(OK);
    expect(r.federation_relationship).toMatchObject({
      trust_domain: 'a.test',
      bundle_endpoint_url: 'https://a.test/new',
      https_spiffe: { endpoint_spiffe_id: 'spiffe://a.test/ep' },
      bundle_endpoint_profile: 'https_spiffe',
      trust_domain_bundle: { trust_domain: 'a.test', refresh_hint: '30', sequence_number: '4' },
    });
    expect(await listFrs()).toEqual([r.federation_relationship]);
  });

  it('GetFederationRelationship returns a stored relationship with its bundle, and NOT_FOUND otherwise', async () => {
    expect((await createFr({ ...A_TEST, trust_domain_bundle: await bundleFor('a.test') })).status).toEqual(OK);
    const got = await w.raw.trustDomain.GetFederationRelationship({ trust_domain: 'a.test' });
    expect(got).toEqual((await listFrs())[0]);
    expect(got.trust_domain_bundle?.trust_domain).toBe('a.test');
    await expectRpcError(w.raw.trustDomain.GetFederationRelationship({ trust_domain: 'nope.test' }), 5, 'federation relationship does not exist');
    await expectRpcError(
      w.raw.trustDomain.GetFederationRelationship({ trust_domain: 'https://a.test' }),
      3,
      'failed to parse trust domain: scheme is missing or invalid',
    );
  });
});

describe('federation relationships follow the rest of spire-semantics §3', () => {
  it('an update for the server trust domain is "record not found"', async () => {
    const r = await updateFr({ ...A_TEST, trust_domain: TD });
    expect(r.status).toEqual({
      code: 13,
      message: 'failed to update federation relationship: unable to fetch federation relationship: record not found',
    });
  });

  it('a delete of an unparsable trust domain echoes the raw input', async () => {
    const res = await w.raw.trustDomain.BatchDeleteFederationRelationship({ trust_domains: ['Bad.test'] });
    expect(res.results).toEqual([
      {
        status: { code: 3, message: 'failed to parse trust domain: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores' },
        trust_domain: 'Bad.test',
      },
    ]);
  });

  it('an https_spiffe relationship is created even when the endpoint trust domain has no bundle, and creates no bundle', async () => {
    const r = await createFr({ trust_domain: 'b.test', bundle_endpoint_url: 'https://b.test', https_spiffe: { endpoint_spiffe_id: 'spiffe://c.test' } });
    expect(r.status).toEqual(OK);
    expect(r.federation_relationship).toMatchObject({
      trust_domain: 'b.test',
      https_spiffe: { endpoint_spiffe_id: 'spiffe://c.test' },
      bundle_endpoint_profile: 'https_spiffe',
      trust_domain_bundle: null,
    });
    expect(await federatedBundleTds()).toEqual(['domain1.org']);
  });

  it('conversion checks the trust domain first, then the URL, then the profile', async () => {
    await expectCreateRejected(
      { trust_domain: '', bundle_endpoint_url: 'http://x' },
      3,
      `${CONVERT}failed to parse trust domain: trust domain is missing`,
    );
    await expectCreateRejected({ trust_domain: 'a.test', bundle_endpoint_url: 'ftp://u@' }, 3, `${CONVERT}bundle endpoint URL must use the https scheme`);
    await expectCreateRejected(
      { trust_domain: 'a.test', bundle_endpoint_url: 'https://a.test', https_spiffe: { endpoint_spiffe_id: 'a.test' } },
      3,
      `${CONVERT}failed to parse endpoint SPIFFE ID: scheme is missing or invalid`,
    );
  });

  it('an update with only the trust_domain_bundle bit replaces the bundle and keeps the URL and profile', async () => {
    expect((await createFr(A_TEST)).status).toEqual(OK);
    const bundle = await bundleFor('a.test');
    const r = await updateFr({ trust_domain: 'a.test', bundle_endpoint_url: 'https://ignored.test', https_web: {}, trust_domain_bundle: bundle }, { trust_domain_bundle: true });
    expect(r.status).toEqual(OK);
    expect(r.federation_relationship).toMatchObject(webFr('a.test', 'https://a.test/b'));
    expect(r.federation_relationship?.trust_domain_bundle?.sequence_number).toBe('4');
    expect(await federatedBundleTds()).toEqual(['domain1.org', 'a.test']);
  });

  it('a create result honours the output mask', async () => {
    const r = (
      await w.raw.trustDomain.BatchCreateFederationRelationship({
        federation_relationships: [{ ...A_TEST, trust_domain_bundle: await bundleFor('a.test') }],
        output_mask: { bundle_endpoint_profile: true },
      })
    ).results[0];
    expect(r?.status).toEqual(OK);
    expect(r?.federation_relationship).toMatchObject({ trust_domain: 'a.test', bundle_endpoint_url: '', https_web: {}, trust_domain_bundle: null });
  });
});

describe('bundle endpoint URLs are checked and stored as SPIRE does (spire-semantics §3.2)', () => {
  it.each([
    ['https://a.test/\n', 'parse "https://a.test/\\n": net/url: invalid control character in URL'],
    [':a.test', 'parse ":a.test": missing protocol scheme'],
  ])('the URL %j does not parse', async (url, cause) => {
    await expectCreateRejected({ ...A_TEST, bundle_endpoint_url: url }, 3, `${CONVERT}failed to parse bundle endpoint URL: ${cause}`);
  });

  it('stores the URL with its scheme lowercased', async () => {
    const r = await createFr({ ...A_TEST, bundle_endpoint_url: 'HTTPS://a.test/b' });
    expect(r.status).toEqual(OK);
    expect(r.federation_relationship?.bundle_endpoint_url).toBe('https://a.test/b');
    expect((await listFrs())[0]?.bundle_endpoint_url).toBe('https://a.test/b');
  });

  it('an opaque https URL has no host', async () => {
    await expectCreateRejected({ ...A_TEST, bundle_endpoint_url: 'https:a.test' }, 3, `${CONVERT}bundle endpoint URL must specify the host`);
  });
});
