import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Entry, EntryMask } from '../../src/spire/types.js';
import { E0_INPUT, E0_SELECTORS, entry, entryIds, expectRpcError, listAll, OK, onlyId, startWorld, TD, withoutAttributes, type World } from './support.js';

let w: World;
beforeEach(async () => {
  w = await startWorld();
});
afterEach(async () => {
  await w.close();
});

async function updateOne(e: Entry, inputMask?: EntryMask, outputMask?: EntryMask) {
  const res = await w.raw.entry.BatchUpdateEntry({
    entries: [e],
    ...(inputMask ? { input_mask: inputMask } : {}),
    ...(outputMask ? { output_mask: outputMask } : {}),
  });
  expect(res.results).toHaveLength(1);
  return res.results[0] as NonNullable<(typeof res.results)[0]>;
}

/** E0 as a full update request: every field it has, so a no-mask update changes nothing. */
function e0Full(overrides: Entry = {}): Entry {
  return { ...E0_INPUT, id: w.e0.id, ...overrides };
}

describe('GetEntry answers exactly as a real SPIRE server', () => {
  it('#31 an empty id is "missing ID" and an unknown id is "entry not found"', async () => {
    await expectRpcError(w.raw.entry.GetEntry({ id: '' }), 3, 'missing ID');
    await expectRpcError(w.raw.entry.GetEntry({ id: 'nope' }), 5, 'entry not found');
    expect(await w.raw.entry.GetEntry({ id: w.e0.id })).toEqual(w.e0);
  });
});

describe('BatchUpdateEntry answers exactly as a real SPIRE server', () => {
  it('#32 an unknown or empty id is NOT_FOUND with no cause and no entry', async () => {
    const res = await w.raw.entry.BatchUpdateEntry({ entries: [e0Full({ id: 'nope' }), e0Full({ id: '' })] });
    expect(res.results.map((r) => r.status)).toEqual([
      { code: 5, message: 'failed to update entry' },
      { code: 5, message: 'failed to update entry' },
    ]);
    expect(res.results.map((r) => r.entry)).toEqual([null, null]);
    expect(await listAll(w.raw)).toEqual([w.e0]);
  });

  it('#33 every update bumps the revision, even one that changes nothing; created_at stays and a sent revision is ignored', async () => {
    const first = await updateOne(e0Full({ revision_number: 99, created_at: 5 }));
    expect(first.status).toEqual(OK);
    expect(first.entry?.revision_number).toBe('1');
    expect(first.entry?.created_at).toBe(w.e0.created_at);
    const second = await updateOne(e0Full({ revision_number: 99 }));
    expect(second.status).toEqual(OK);
    expect(second.entry?.revision_number).toBe('2');
    const stored = await w.raw.entry.GetEntry({ id: w.e0.id });
    expect(stored).toEqual({ ...w.e0, revision_number: '2' });
  });

  it('#34 with input_mask {hint} only the hint changes, and the other fields may be omitted', async () => {
    const r = await updateOne({ id: w.e0.id, hint: 'new hint' }, { hint: true });
    expect(r.status).toEqual(OK);
    const want = { ...w.e0, hint: 'new hint', revision_number: '1' };
    expect(r.entry).toEqual(want);
    expect(await w.raw.entry.GetEntry({ id: w.e0.id })).toEqual(want);
  });

  it('#35 without input_mask, omitted dns_names and hint are cleared', async () => {
    const seeded = await updateOne({ id: w.e0.id, hint: 'h', dns_names: ['a.test'] }, { hint: true, dns_names: true });
    expect(seeded.entry?.dns_names).toEqual(['a.test']);
    const r = await updateOne(e0Full());
    expect(r.status).toEqual(OK);
    expect(r.entry?.hint).toBe('');
    expect(r.entry?.dns_names).toEqual([]);
    const stored = await w.raw.entry.GetEntry({ id: w.e0.id });
    expect(stored).toEqual({ ...w.e0, revision_number: '2' });
  });

  it('#36 input_mask {selectors} with no selectors is rejected and changes nothing', async () => {
    const r = await updateOne({ id: w.e0.id, selectors: [] }, { selectors: true });
    expect(r.status).toEqual({ code: 3, message: 'failed to convert entry: selector list is empty' });
    expect(r.entry).toBeNull();
    expect(await w.raw.entry.GetEntry({ id: w.e0.id })).toEqual(w.e0);
  });

  it('#37 an update may make an entry similar to E0, and both entries then exist', async () => {
    const other = (await w.raw.entry.BatchCreateEntry({ entries: [entry({ id: 'other' })] })).results[0];
    expect(other?.status).toEqual(OK);
    const r = await updateOne({ ...E0_INPUT, id: 'other', selectors: [...E0_SELECTORS].reverse() });
    expect(r.status).toEqual(OK);
    expect(r.entry?.spiffe_id).toEqual({ trust_domain: TD, path: '/w' });
    expect(await entryIds(w.raw)).toEqual([w.e0.id, 'other']);
    expect(await w.raw.entry.GetEntry({ id: w.e0.id })).toEqual(w.e0);
  });

  it('#38 federating with a trust domain without a bundle is INTERNAL and leaves the entry and its revision unchanged', async () => {
    const r = await updateOne({ id: w.e0.id, federates_with: ['domain2.org'] }, { federates_with: true });
    expect(r.status).toEqual({ code: 13, message: 'failed to update entry: unable to find federated bundle "spiffe://domain2.org"' });
    expect(r.entry).toBeNull();
    expect(await w.raw.entry.GetEntry({ id: w.e0.id })).toEqual(w.e0);
  });
});

describe('BatchDeleteEntry answers exactly as a real SPIRE server', () => {
  it('#39 each id gets its own result in order; a second delete of the same id in one batch is NOT_FOUND', async () => {
    const res = await w.raw.entry.BatchDeleteEntry({ ids: ['', 'nope', w.e0.id, w.e0.id] });
    expect(res.results).toEqual([
      { status: { code: 3, message: 'missing entry ID' }, id: '' },
      { status: { code: 5, message: 'entry not found' }, id: 'nope' },
      { status: OK, id: w.e0.id },
      { status: { code: 5, message: 'entry not found' }, id: w.e0.id },
    ]);
    expect(await listAll(w.raw)).toEqual([]);
  });
});

describe('BatchUpdateEntry beyond the checklist', () => {
  it('an output mask on update fills in exactly the selected fields, with the id always', async () => {
    const r = await updateOne({ id: w.e0.id, hint: 'masked' }, { hint: true }, { revision_number: true, hint: true });
    expect(r.status).toEqual(OK);
    expect(withoutAttributes(r.entry!)).toEqual({ ...onlyId(w.e0.id), revision_number: '1', hint: 'masked' });
    expect(r.entry?.additional_attributes ?? null).toBeNull();
  });

  it('an all-false output mask on update returns only the id', async () => {
    const r = await updateOne({ id: w.e0.id, hint: 'x' }, { hint: true }, {});
    expect(r.status).toEqual(OK);
    expect(withoutAttributes(r.entry!)).toEqual(onlyId(w.e0.id));
    expect((await w.raw.entry.GetEntry({ id: w.e0.id })).hint).toBe('x');
  });

  it('a failed item in a batch does not stop later items, which see earlier effects', async () => {
    const res = await w.raw.entry.BatchUpdateEntry({
      entries: [
        { id: w.e0.id, hint: 'one' },
        { id: 'nope', hint: 'two' },
        { id: w.e0.id, x509_svid_ttl: 90 },
      ],
      input_mask: { hint: true, x509_svid_ttl: true },
    });
    expect(res.results.map((r) => r.status?.code)).toEqual([0, 5, 0]);
    // The mask applies to all items: the third item also writes its (empty) hint.
    expect(res.results[2]?.entry).toMatchObject({ hint: '', x509_svid_ttl: 90, revision_number: '2' });
  });

  it('a negative TTL on update fails validation before the lookup', async () => {
    const r = await updateOne({ id: 'nope', x509_svid_ttl: -1 }, { x509_svid_ttl: true });
    expect(r.status).toEqual({ code: 3, message: 'failed to update entry: datastore-validation: invalid registration entry: X509SvidTtl is not set' });
  });

  it('deleting an entry does not touch its children', async () => {
    const parent = await w.raw.entry.BatchCreateEntry({
      entries: [entry({ id: 'child', parent_id: { trust_domain: TD, path: '/w' } })],
    });
    expect(parent.results[0]?.status).toEqual(OK);
    const del = await w.raw.entry.BatchDeleteEntry({ ids: [w.e0.id] });
    expect(del.results[0]?.status).toEqual(OK);
    expect(await entryIds(w.raw)).toEqual(['child']);
  });
});

describe('BatchUpdateEntry follows the rest of spire-semantics §2.4', () => {
  it('conversion errors are reported before the id is looked up', async () => {
    const r = await updateOne({ id: 'nope', selectors: [{ type: 'a:b', value: 'x' }] }, { selectors: true });
    expect(r.status).toEqual({ code: 3, message: "failed to convert entry: selector type contains ':'" });
  });

  it('fields whose mask bit is false are neither validated nor written', async () => {
    const r = await updateOne(
      { id: w.e0.id, spiffe_id: { trust_domain: 'other.org', path: '/x' }, selectors: [], dns_names: ['bad.'], x509_svid_ttl: -1, hint: 'ok' },
      { hint: true },
    );
    expect(r.status).toEqual(OK);
    expect(r.entry).toEqual({ ...w.e0, hint: 'ok', revision_number: '1' });
  });

  it('the revision_number and created_at bits do nothing', async () => {
    const r = await updateOne({ id: w.e0.id, revision_number: 50, created_at: 7 }, { revision_number: true, created_at: true });
    expect(r.status).toEqual(OK);
    expect(r.entry).toEqual({ ...w.e0, revision_number: '1' });
  });

  it('store_svid with mixed selector types is rejected only when selectors are part of the update', async () => {
    const mixed = [{ type: 'k8s', value: 'ns:a' }, { type: 'unix', value: 'uid:0' }];
    const withSelectors = await updateOne({ id: w.e0.id, store_svid: true, selectors: mixed }, { store_svid: true, selectors: true });
    expect(withSelectors.status).toEqual({
      code: 3,
      message: 'failed to update entry: datastore-validation: invalid registration entry: selector types must be the same when store SVID is enabled',
    });
    expect(await w.raw.entry.GetEntry({ id: w.e0.id })).toEqual(w.e0);
    // E0's selectors share one type, so only the mixed-type case above is an error; masked-out selectors skip D2.
    const second = (await w.raw.entry.BatchCreateEntry({ entries: [entry({ id: 'mixed', selectors: mixed })] })).results[0];
    expect(second?.status).toEqual(OK);
    const storeOnly = await updateOne({ id: 'mixed', store_svid: true }, { store_svid: true });
    expect(storeOnly.status).toEqual(OK);
    expect(storeOnly.entry?.store_svid).toBe(true);
  });

  it('store_svid with disabled prefetch is allowed on update (D1 is create-only)', async () => {
    const r = await updateOne(
      { id: w.e0.id, store_svid: true, additional_attributes: { disable_x509_svid_prefetch: true } },
      { store_svid: true, additional_attributes: true },
    );
    expect(r.status).toEqual(OK);
    expect(r.entry?.additional_attributes).toEqual({ disable_x509_svid_prefetch: true, jwt_svid_include_jti: false });
  });

  it('duplicate selectors or DNS names in an update are ALREADY_EXISTS and change nothing', async () => {
    const dupSel = await updateOne({ id: w.e0.id, selectors: [E0_SELECTORS[0]!, E0_SELECTORS[0]!] }, { selectors: true });
    expect(dupSel.status).toEqual({
      code: 6,
      message: 'failed to update entry: datastore-sql: UNIQUE constraint failed: selectors.registered_entry_id, selectors.type, selectors.value',
    });
    const dupDns = await updateOne({ id: w.e0.id, dns_names: ['a.test', 'a.test'] }, { dns_names: true });
    expect(dupDns.status).toEqual({ code: 6, message: 'failed to update entry: datastore-sql: UNIQUE constraint failed: dns_names.registered_entry_id, dns_names.value' });
    expect(await w.raw.entry.GetEntry({ id: w.e0.id })).toEqual(w.e0);
  });

  it('an update can change the SPIFFE ID, parent and selectors but never the id', async () => {
    const r = await updateOne({
      id: w.e0.id,
      parent_id: { trust_domain: TD, path: '/spire/agent/x' },
      spiffe_id: { trust_domain: TD, path: '/moved' },
      selectors: [{ type: 'unix', value: 'uid:1' }],
      federates_with: ['spiffe://domain1.org'],
      additional_attributes: { jwt_svid_include_jti: true },
    });
    expect(r.status).toEqual(OK);
    expect(r.entry).toMatchObject({
      id: w.e0.id,
      parent_id: { trust_domain: TD, path: '/spire/agent/x' },
      spiffe_id: { trust_domain: TD, path: '/moved' },
      selectors: [{ type: 'unix', value: 'uid:1' }],
      federates_with: ['domain1.org'],
      x509_svid_ttl: 0,
      additional_attributes: { disable_x509_svid_prefetch: false, jwt_svid_include_jti: true },
      revision_number: '1',
      created_at: w.e0.created_at,
    });
    expect(await w.raw.entry.GetEntry({ id: w.e0.id })).toEqual(r.entry);
  });

  it('GetEntry honours an output mask', async () => {
    const got = await w.raw.entry.GetEntry({ id: w.e0.id, output_mask: { x509_svid_ttl: true } });
    expect(withoutAttributes(got)).toEqual({ ...onlyId(w.e0.id), x509_svid_ttl: 60 });
  });
});
