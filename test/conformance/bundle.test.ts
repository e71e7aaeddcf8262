import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { x509 } from '../../src/x509/index.js';
import type { Bundle } from '../../src/spire/types.js';
import { caDer, entry, expectRpcError, OK, startWorld, TD, type World } from './support.js';

let w: World;
beforeEach(async () => {
  w = await startWorld({ withE0: false });
});
afterEach(async () => {
  await w.close();
});

async function setBundles(...bundle: Bundle[]) {
  const res = await w.raw.bundle.BatchSetFederatedBundle({ bundle });
  expect(res.results).toHaveLength(bundle.length);
  return res.results;
}

async function federatedTds(): Promise<string[]> {
  const res = await w.raw.bundle.ListFederatedBundles({});
  expect(res.next_page_token).toBe('');
  return res.bundles.map((b) => b.trust_domain);
}

describe('the Bundle service answers exactly as a real SPIRE server', () => {
  it('#58 GetBundle is the own bundle, ListFederatedBundles never lists it, and it cannot be set as federated', async () => {
    const own = await w.raw.bundle.GetBundle({});
    expect(own.trust_domain).toBe(TD);
    expect(own.x509_authorities).toHaveLength(1);
    const ca = new x509.X509Certificate(own.x509_authorities[0]!.asn1);
    expect(ca.subject).toBe(ca.issuer);
    expect(await ca.isSelfSigned()).toBe(true);

    expect(await federatedTds()).toEqual(['domain1.org']);
    for (const pageSize of [1, 2]) {
      let token = '';
      const seen: string[] = [];
      for (;;) {
        const page = await w.raw.bundle.ListFederatedBundles({ page_size: pageSize, page_token: token });
        seen.push(...page.bundles.map((b) => b.trust_domain));
        if (page.next_page_token === '') break;
        token = page.next_page_token;
      }
      expect(seen).toEqual(['domain1.org']);
    }

    const [r] = await setBundles({ trust_domain: TD, x509_authorities: [{ asn1: await caDer(TD) }] });
    expect(r?.status).toEqual({ code: 3, message: "setting a federated bundle for the server's own trust domain is not allowed" });
    expect(r?.bundle).toBeNull();
    expect(await w.raw.bundle.GetBundle({})).toEqual(own);
    expect(await federatedTds()).toEqual(['domain1.org']);
  });
});

describe('the Bundle service beyond the checklist', () => {
  it('ListFederatedBundles pages in creation order; the own bundle makes a page short, and the end is an empty page', async () => {
    const results = await setBundles(
      { trust_domain: 'b.test', x509_authorities: [{ asn1: await caDer('b.test') }] },
      { trust_domain: 'a.test', x509_authorities: [{ asn1: await caDer('a.test') }] },
    );
    expect(results.map((r) => r.status)).toEqual([OK, OK]);
    // Rows: example.org (own, created first), domain1.org, b.test, a.test.
    const p1 = await w.raw.bundle.ListFederatedBundles({ page_size: 2 });
    expect(p1.bundles.map((b) => b.trust_domain)).toEqual(['domain1.org']);
    expect(p1.next_page_token).not.toBe('');
    const p2 = await w.raw.bundle.ListFederatedBundles({ page_size: 2, page_token: p1.next_page_token });
    expect(p2.bundles.map((b) => b.trust_domain)).toEqual(['b.test', 'a.test']);
    expect(p2.next_page_token).not.toBe('');
    const p3 = await w.raw.bundle.ListFederatedBundles({ page_size: 2, page_token: p2.next_page_token });
    expect(p3).toEqual({ bundles: [], next_page_token: '' });
  });

  it('a first page of one holds only the own bundle: it is empty yet carries a token', async () => {
    const p1 = await w.raw.bundle.ListFederatedBundles({ page_size: 1 });
    expect(p1.bundles).toEqual([]);
    expect(p1.next_page_token).not.toBe('');
    const p2 = await w.raw.bundle.ListFederatedBundles({ page_size: 1, page_token: p1.next_page_token });
    expect(p2.bundles.map((b) => b.trust_domain)).toEqual(['domain1.org']);
    const err = await expectRpcError(w.raw.bundle.ListFederatedBundles({ page_size: 1, page_token: 'abc' }), 13, /^failed to list bundles/);
    expect(err.details).toContain("could not parse token 'abc'");
  });

  it('BatchSetFederatedBundle replaces a bundle entirely, keeps its list position, and honours an output mask', async () => {
    const first = await caDer('domain1.org');
    const [r] = await setBundles({ trust_domain: 'spiffe://domain1.org', x509_authorities: [{ asn1: first, tainted: true }], refresh_hint: 5, sequence_number: 9 });
    expect(r?.status).toEqual(OK);
    expect(r?.bundle).toMatchObject({ trust_domain: 'domain1.org', refresh_hint: '5', sequence_number: '9', jwt_authorities: [] });
    expect(r?.bundle?.x509_authorities.map((a) => [Buffer.from(a.asn1), a.tainted])).toEqual([[first, false]]);

    const masked = await w.raw.bundle.BatchSetFederatedBundle({
      bundle: [{ trust_domain: 'domain1.org', x509_authorities: [{ asn1: first }], sequence_number: 10 }],
      output_mask: { sequence_number: true },
    });
    expect(masked.results[0]?.status).toEqual(OK);
    expect(masked.results[0]?.bundle).toMatchObject({ trust_domain: 'domain1.org', sequence_number: '10', refresh_hint: '0', x509_authorities: [] });

    const listed = (await w.raw.bundle.ListFederatedBundles({})).bundles;
    expect(listed.map((b) => [b.trust_domain, b.refresh_hint, b.sequence_number])).toEqual([['domain1.org', '0', '10']]);
  });

  it('BatchSetFederatedBundle reports bad trust domains and authorities per item', async () => {
    const results = await setBundles(
      { trust_domain: 'Bad.test' },
      { trust_domain: 'c.test', x509_authorities: [{ asn1: Buffer.from('not a certificate') }] },
      { trust_domain: 'c.test', jwt_authorities: [{ public_key: Buffer.from('nope'), key_id: 'k' }] },
      { trust_domain: 'd.test', x509_authorities: [{ asn1: await caDer('d.test') }] },
    );
    expect(results[0]?.status).toEqual({
      code: 3,
      message: 'trust domain argument is not valid: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores',
    });
    expect(results[1]?.status?.code).toBe(3);
    expect(results[1]?.status?.message).toMatch(/^failed to convert bundle: unable to parse X\.509 authority: /);
    expect(results[2]?.status?.code).toBe(3);
    expect(results[2]?.status?.message).toMatch(/^failed to convert bundle: unable to parse JWT authority: /);
    expect(results[3]?.status).toEqual(OK);
    expect(results.map((r) => r.bundle === null)).toEqual([true, true, true, false]);
    expect(await federatedTds()).toEqual(['domain1.org', 'd.test']);
  });

  it('GetBundle honours an output mask and always returns the trust domain', async () => {
    const own = await w.raw.bundle.GetBundle({ output_mask: { refresh_hint: true } });
    expect(own).toMatchObject({ trust_domain: TD, x509_authorities: [], jwt_authorities: [], sequence_number: '0' });
  });
});

describe('BatchDeleteFederatedBundle (spire-semantics §4.4)', () => {
  it('answers per trust domain, echoing it as sent: bad names, the own trust domain and unknown ones fail; a URI form is accepted', async () => {
    const res = await w.raw.bundle.BatchDeleteFederatedBundle({ trust_domains: ['', 'Bad.test', TD, 'nope.test', 'spiffe://domain1.org'] });
    expect(res.results).toEqual([
      { status: { code: 3, message: 'trust domain argument is not valid: trust domain is missing' }, trust_domain: '' },
      {
        status: { code: 3, message: 'trust domain argument is not valid: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores' },
        trust_domain: 'Bad.test',
      },
      { status: { code: 3, message: 'removing the bundle for the server trust domain is not allowed' }, trust_domain: TD },
      { status: { code: 5, message: 'bundle not found' }, trust_domain: 'nope.test' },
      { status: OK, trust_domain: 'spiffe://domain1.org' },
    ]);
    expect(await federatedTds()).toEqual([]);
    expect((await w.raw.bundle.GetBundle({})).trust_domain).toBe(TD);
  });

  it('RESTRICT (the default) refuses a bundle entries federate with; DISSOCIATE drops it from them; DELETE deletes them', async () => {
    const created = await w.raw.entry.BatchCreateEntry({
      entries: [entry({ federates_with: ['domain1.org'] }), entry({ spiffe_id: { trust_domain: TD, path: '/b' }, federates_with: ['domain1.org'] })],
    });
    expect(created.results.map((r) => r.status)).toEqual([OK, OK]);
    const [a, b] = created.results.map((r) => r.entry!);

    const restrict = await w.raw.bundle.BatchDeleteFederatedBundle({ trust_domains: ['domain1.org'] });
    expect(restrict.results).toEqual([
      {
        status: { code: 9, message: 'failed to delete federated bundle: datastore-sql: cannot delete bundle; federated with 2 registration entries' },
        trust_domain: 'domain1.org',
      },
    ]);
    expect(await federatedTds()).toEqual(['domain1.org']);

    const dissociate = await w.raw.bundle.BatchDeleteFederatedBundle({ trust_domains: ['domain1.org'], mode: 'DISSOCIATE' });
    expect(dissociate.results[0]?.status).toEqual(OK);
    expect(await federatedTds()).toEqual([]);
    const after = await w.raw.entry.GetEntry({ id: a!.id });
    expect(after.federates_with).toEqual([]);
    expect(after.revision_number).toBe(a!.revision_number);

    // DELETE: the entries still federating with the bundle go with it.
    expect((await w.raw.bundle.BatchSetFederatedBundle({ bundle: [{ trust_domain: 'domain1.org', x509_authorities: [{ asn1: await caDer('domain1.org') }] }] })).results[0]?.status).toEqual(OK);
    const upd = await w.raw.entry.BatchUpdateEntry({ entries: [{ id: b!.id, federates_with: ['domain1.org'] }], input_mask: { federates_with: true } });
    expect(upd.results[0]?.status).toEqual(OK);
    const del = await w.raw.bundle.BatchDeleteFederatedBundle({ trust_domains: ['domain1.org'], mode: 'DELETE' });
    expect(del.results[0]?.status).toEqual(OK);
    expect((await w.raw.entry.ListEntries({})).entries.map((e) => e.id)).toEqual([a!.id]);
  });
});
