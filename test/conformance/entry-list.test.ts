import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EntryFilter, Selector } from '../../src/spire/types.js';
import { entry, entryIds, expectRpcError, OK, startWorld, TD, type World } from './support.js';

let w: World;
beforeEach(async () => {
  w = await startWorld();
});
afterEach(async () => {
  await w.close();
});

/** Creates entries /e<i> with the given overrides and returns their ids, in order. */
async function createMany(n: number, extra: (i: number) => Parameters<typeof entry>[0] = () => ({})): Promise<string[]> {
  const entries = Array.from({ length: n }, (_, i) => entry({ spiffe_id: { trust_domain: TD, path: `/e${i}` }, ...extra(i) }));
  const res = await w.raw.entry.BatchCreateEntry({ entries });
  expect(res.results.map((r) => r.status)).toEqual(entries.map(() => OK));
  return res.results.map((r) => r.entry?.id ?? '');
}

/** Walks ListEntries page by page, returning each page's ids and token. */
async function walk(pageSize: number, filter?: EntryFilter): Promise<{ ids: string[]; token: string }[]> {
  const pages: { ids: string[]; token: string }[] = [];
  let token = '';
  for (let i = 0; i < 100; i++) {
    const res = await w.raw.entry.ListEntries({ page_size: pageSize, page_token: token, ...(filter ? { filter } : {}) });
    pages.push({ ids: res.entries.map((e) => e.id), token: res.next_page_token });
    if (res.next_page_token === '') return pages;
    token = res.next_page_token;
  }
  throw new Error('paging did not end');
}

async function listIds(filter: EntryFilter): Promise<string[]> {
  const res = await w.raw.entry.ListEntries({ filter });
  return res.entries.map((e) => e.id);
}

const sel = (s: string): Selector => {
  const [type, value] = s.split(':') as [string, string];
  return { type, value };
};

describe('ListEntries pages exactly as a real SPIRE server', () => {
  it('#40 page_size 0 returns every entry in creation order with an empty token, ignoring page_token', async () => {
    const ids = [w.e0.id, ...(await createMany(3))];
    for (const page_token of ['', '2', 'abc']) {
      const res = await w.raw.entry.ListEntries({ page_size: 0, page_token });
      expect(res.entries.map((e) => e.id)).toEqual(ids);
      expect(res.next_page_token).toBe('');
    }
  });

  it('#41 a last page that returned entries still carries a token; only the following empty page ends with ""', async () => {
    const ids = [w.e0.id, ...(await createMany(2))];
    const pages = await walk(2);
    expect(pages.map((p) => p.ids)).toEqual([ids.slice(0, 2), ids.slice(2), []]);
    expect(pages[0]?.token).not.toBe('');
    expect(pages[1]?.token).not.toBe('');
    expect(pages[2]?.token).toBe('');
  });

  it('#42 updating an entry keeps its list position, and a delete between page calls causes no skip or repeat', async () => {
    const ids = [w.e0.id, ...(await createMany(4))];
    const upd = await w.raw.entry.BatchUpdateEntry({ entries: [{ id: w.e0.id, hint: 'moved?' }], input_mask: { hint: true } });
    expect(upd.results[0]?.status).toEqual(OK);
    expect(await entryIds(w.raw)).toEqual(ids);

    const first = await w.raw.entry.ListEntries({ page_size: 2 });
    expect(first.entries.map((e) => e.id)).toEqual(ids.slice(0, 2));
    // Delete one entry already seen and one not yet seen.
    const del = await w.raw.entry.BatchDeleteEntry({ ids: [ids[1] as string, ids[3] as string] });
    expect(del.results.map((r) => r.status)).toEqual([OK, OK]);
    const second = await w.raw.entry.ListEntries({ page_size: 2, page_token: first.next_page_token });
    expect(second.entries.map((e) => e.id)).toEqual([ids[2], ids[4]]);
    const third = await w.raw.entry.ListEntries({ page_size: 2, page_token: second.next_page_token });
    expect(third.entries).toEqual([]);
    expect(third.next_page_token).toBe('');
  });

  it('a walk resumed from a kept token lists what was created since at its end, updated entries in place, and no deleted one', async () => {
    // What the controller's rolling drift scan relies on (entries/drift-scan.ts): it resumes a walk one gcInterval later.
    const ids = [w.e0.id, ...(await createMany(4))];
    const first = await w.raw.entry.ListEntries({ page_size: 2 });
    expect(first.entries.map((e) => e.id)).toEqual(ids.slice(0, 2));
    const created = await w.raw.entry.BatchCreateEntry({ entries: [entry({ spiffe_id: { trust_domain: TD, path: '/late1' } }), entry({ spiffe_id: { trust_domain: TD, path: '/late2' } })] });
    const late = created.results.map((r) => r.entry?.id ?? '');
    const upd = await w.raw.entry.BatchUpdateEntry({ entries: [{ id: ids[1] as string, hint: 'behind' }, { id: ids[3] as string, hint: 'ahead' }], input_mask: { hint: true } });
    expect(upd.results.map((r) => r.status)).toEqual([OK, OK]);
    const del = await w.raw.entry.BatchDeleteEntry({ ids: [ids[2] as string] });
    expect(del.results.map((r) => r.status)).toEqual([OK]);
    const rest: { id: string; hint: string }[] = [];
    let token = first.next_page_token;
    while (token !== '') {
      const page = await w.raw.entry.ListEntries({ page_size: 2, page_token: token });
      rest.push(...page.entries.map((e) => ({ id: e.id, hint: e.hint })));
      token = page.next_page_token;
    }
    expect(rest).toEqual([
      { id: ids[3], hint: 'ahead' },
      { id: ids[4], hint: '' },
      { id: late[0], hint: '' },
      { id: late[1], hint: '' },
    ]);
    expect(await w.raw.entry.CountEntries({})).toEqual({ count: 6 });
  });

  it('#43 a page token that is not an unsigned decimal is a top-level INTERNAL', async () => {
    for (const token of ['abc', '-1', '+1']) {
      const err = await expectRpcError(w.raw.entry.ListEntries({ page_size: 1, page_token: token }), 13, /^failed to list entries/);
      expect(err.details).toContain(`could not parse token '${token}'`);
    }
  });

  it('a token past every row gives an empty page and an empty token; "0" starts from the beginning', async () => {
    const res = await w.raw.entry.ListEntries({ page_size: 5, page_token: '999999' });
    expect(res).toEqual({ entries: [], next_page_token: '' });
    const fromZero = await w.raw.entry.ListEntries({ page_size: 5, page_token: '0' });
    expect(fromZero.entries.map((e) => e.id)).toEqual([w.e0.id]);
  });
});

describe('ListEntries filters exactly as a real SPIRE server', () => {
  it('#44 empty selector and trust-domain sets and a foreign SPIFFE ID are malformed filters', async () => {
    await expectRpcError(w.raw.entry.ListEntries({ filter: { by_selectors: { selectors: [] } } }), 3, 'malformed selectors filter: empty selector set');
    await expectRpcError(
      w.raw.entry.ListEntries({ filter: { by_federates_with: { trust_domains: [] } } }),
      3,
      'malformed federates with filter: empty trust domain set',
    );
    await expectRpcError(
      w.raw.entry.ListEntries({ filter: { by_spiffe_id: { trust_domain: 'other.org', path: '/w' } } }),
      3,
      /^malformed SPIFFE ID filter: /,
    );
  });

  it('#45 selector match modes EXACT, SUPERSET, SUBSET and ANY select the right sets', async () => {
    const [e1, e2, e3] = await createMany(3, (i) => ({ selectors: [['a:1', 'b:2', 'c:3'], ['a:1', 'b:2'], ['a:1']][i]!.map(sel) }));
    const by = (match: 'MATCH_EXACT' | 'MATCH_SUPERSET' | 'MATCH_SUBSET' | 'MATCH_ANY') => listIds({ by_selectors: { selectors: [sel('a:1'), sel('b:2')], match } });
    expect(await by('MATCH_EXACT')).toEqual([e2]);
    expect(await by('MATCH_SUPERSET')).toEqual([e1, e2]);
    expect(await by('MATCH_SUBSET')).toEqual([e2, e3]);
    expect(await by('MATCH_ANY')).toEqual([e1, e2, e3]);
  });

  it('#46 by_downstream false and by_hint "" filter nothing; by_downstream true keeps downstream entries only', async () => {
    const [down, hinted] = await createMany(2, (i) => (i === 0 ? { downstream: true } : { hint: 'h' }));
    const all = [w.e0.id, down, hinted];
    expect(await listIds({ by_downstream: { value: false } })).toEqual(all);
    expect(await listIds({ by_hint: { value: '' } })).toEqual(all);
    expect(await listIds({ by_downstream: { value: true } })).toEqual([down]);
    expect(await listIds({ by_hint: { value: 'h' } })).toEqual([hinted]);
  });

  it('#47 CountEntries equals the length of the unpaged ListEntries for the same filter', async () => {
    await createMany(5, (i) => ({
      selectors: [sel(`a:${i % 2}`), sel('b:x')],
      downstream: i % 3 === 0,
      hint: i < 2 ? 'h' : '',
      federates_with: i === 4 ? ['domain1.org'] : [],
      parent_id: { trust_domain: TD, path: i % 2 ? '/node' : '/node2' },
    }));
    const filters: EntryFilter[] = [
      {},
      { by_downstream: { value: true } },
      { by_hint: { value: 'h' } },
      { by_selectors: { selectors: [sel('a:0')], match: 'MATCH_ANY' } },
      { by_selectors: { selectors: [sel('a:0'), sel('b:x')], match: 'MATCH_EXACT' } },
      { by_selectors: { selectors: [sel('b:x')], match: 'MATCH_SUPERSET' } },
      { by_federates_with: { trust_domains: ['domain1.org'], match: 'MATCH_ANY' } },
      { by_parent_id: { trust_domain: TD, path: '/node' } },
      { by_parent_id: { trust_domain: TD, path: '/node' }, by_downstream: { value: true } },
      { by_spiffe_id: { trust_domain: TD, path: '/e1' } },
    ];
    const counts: number[] = [];
    for (const filter of filters) {
      const listed = await listIds(filter);
      const counted = await w.raw.entry.CountEntries({ filter });
      expect(counted.count, JSON.stringify(filter)).toBe(listed.length);
      counts.push(counted.count);
    }
    // The filters are not trivial: they select different numbers of entries.
    expect(counts).toEqual([6, 2, 2, 3, 3, 5, 1, 3, 1, 1]);
  });
});

describe('ListEntries and CountEntries beyond the checklist', () => {
  it('CountEntries without a filter counts every entry', async () => {
    expect(await w.raw.entry.CountEntries({})).toEqual({ count: 1 });
    await createMany(3);
    expect(await w.raw.entry.CountEntries({})).toEqual({ count: 4 });
    const del = await w.raw.entry.BatchDeleteEntry({ ids: [w.e0.id] });
    expect(del.results[0]?.status).toEqual(OK);
    expect(await w.raw.entry.CountEntries({})).toEqual({ count: 3 });
  });

  it('by_spiffe_id and by_parent_id match exactly, and filters combine with AND', async () => {
    const [a, b] = await createMany(2, (i) => ({ parent_id: { trust_domain: TD, path: i ? '/node' : '/n2' } }));
    expect(await listIds({ by_spiffe_id: { trust_domain: TD, path: '/e0' } })).toEqual([a]);
    expect(await listIds({ by_parent_id: { trust_domain: TD, path: '/node' } })).toEqual([w.e0.id, b]);
    expect(await listIds({ by_parent_id: { trust_domain: TD, path: '/node' }, by_spiffe_id: { trust_domain: TD, path: '/w' } })).toEqual([w.e0.id]);
    await expectRpcError(
      w.raw.entry.ListEntries({ filter: { by_spiffe_id: { trust_domain: TD, path: '/spire/agent/x' } } }),
      3,
      `malformed SPIFFE ID filter: "spiffe://${TD}/spire/agent/x" is not a workload in trust domain "${TD}"; path is in the reserved namespace`,
    );
    await expectRpcError(
      w.raw.entry.ListEntries({ filter: { by_parent_id: { trust_domain: TD, path: '' } } }),
      3,
      `malformed parent ID filter: "spiffe://${TD}" is not a member of trust domain "${TD}"; path is empty`,
    );
  });

  it('by_federates_with matches bare or URI names and never matches entries without federates_with', async () => {
    const [one] = await createMany(1, () => ({ federates_with: ['domain1.org', TD] }));
    const fw = (trust_domains: string[], match: 'MATCH_EXACT' | 'MATCH_SUBSET' | 'MATCH_SUPERSET' | 'MATCH_ANY') =>
      listIds({ by_federates_with: { trust_domains, match } });
    expect(await fw(['spiffe://domain1.org'], 'MATCH_ANY')).toEqual([one]);
    expect(await fw(['domain1.org'], 'MATCH_SUPERSET')).toEqual([one]);
    expect(await fw(['domain1.org'], 'MATCH_EXACT')).toEqual([]);
    expect(await fw(['domain1.org', TD, 'domain1.org'], 'MATCH_EXACT')).toEqual([one]);
    expect(await fw(['domain1.org', TD, 'x.org'], 'MATCH_SUBSET')).toEqual([one]);
    expect(await fw(['x.org'], 'MATCH_SUBSET')).toEqual([]);
  });

  it('paging with an EXACT selector filter returns every match once, though pages may come up short', async () => {
    const ids = await createMany(6, (i) => ({ selectors: i % 2 ? [sel('a:1')] : [sel('a:1'), sel('b:2')] }));
    const pages = await walk(2, { by_selectors: { selectors: [sel('a:1')], match: 'MATCH_EXACT' } });
    expect(pages.flatMap((p) => p.ids)).toEqual([ids[1], ids[3], ids[5]]);
    expect(pages.at(-1)).toEqual({ ids: [], token: '' });
    for (const p of pages.slice(0, -1)) expect(p.ids.length).toBeGreaterThan(0);
  });

  it('ListEntries honours an output mask', async () => {
    const res = await w.raw.entry.ListEntries({ output_mask: { spiffe_id: true } });
    expect(res.entries).toHaveLength(1);
    expect(res.entries[0]).toMatchObject({ id: w.e0.id, spiffe_id: { trust_domain: TD, path: '/w' }, parent_id: null, selectors: [], x509_svid_ttl: 0 });
  });

  it("a page masked to revision_number holds each entry's id and revision, and an update moves the revision", async () => {
    // What the drift scan reads first of each page (entries/drift-scan.ts).
    const [id] = await createMany(1);
    const masked = async () => (await w.raw.entry.ListEntries({ page_size: 10, output_mask: { revision_number: true } })).entries.map((e) => ({ id: e.id, revision: e.revision_number, spiffe_id: e.spiffe_id, selectors: e.selectors }));
    const before = await masked();
    expect(before).toEqual([
      { id: w.e0.id, revision: expect.any(String), spiffe_id: null, selectors: [] },
      { id, revision: expect.any(String), spiffe_id: null, selectors: [] },
    ]);
    const upd = await w.raw.entry.BatchUpdateEntry({ entries: [{ id: id!, hint: 'moved' }], input_mask: { hint: true } });
    expect(upd.results[0]?.status).toEqual(OK);
    const after = await masked();
    expect(after[0]).toEqual(before[0]);
    expect(BigInt(after[1]!.revision)).toBeGreaterThan(BigInt(before[1]!.revision));
  });
});

describe('ListEntries filter errors follow spire-semantics §2.7', () => {
  it('bad selectors and trust domains in filters are reported with their cause', async () => {
    await expectRpcError(
      w.raw.entry.ListEntries({ filter: { by_selectors: { selectors: [{ type: '', value: 'x' }] } } }),
      3,
      'malformed selectors filter: missing selector type',
    );
    await expectRpcError(
      w.raw.entry.ListEntries({ filter: { by_selectors: { selectors: [{ type: 'k8s', value: '' }] } } }),
      3,
      'malformed selectors filter: missing selector value',
    );
    await expectRpcError(
      w.raw.entry.CountEntries({ filter: { by_federates_with: { trust_domains: ['Bad'] } } }),
      3,
      'malformed federates with filter: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores',
    );
  });
});

describe('page tokens are parsed as SPIRE parses them (strconv.ParseUint(token, 10, 32))', () => {
  it('the largest 32-bit token is an empty last page; one more does not parse', async () => {
    const last = await w.raw.entry.ListEntries({ page_size: 1, page_token: '4294967295' });
    expect(last).toEqual({ entries: [], next_page_token: '' });
    const err = await expectRpcError(w.raw.entry.ListEntries({ page_size: 1, page_token: '4294967296' }), 13, /^failed to list entries/);
    expect(err.details).toContain("could not parse token '4294967296'");
    const leadingZeros = await w.raw.entry.ListEntries({ page_size: 1, page_token: '000' });
    expect(leadingZeros.entries.map((e) => e.id)).toEqual([w.e0.id]);
  });
});
