import { describe, expect, it } from 'vitest';
import { changedFields, ENTRY_FIELDS, type EntrySpec, fromSpire, toSpire, UPDATE_MASK } from '../../src/entries/index.js';
import type { EntryOut } from '../../src/spire/index.js';

const spec: EntrySpec = {
  spiffeId: 'spiffe://example.org/w',
  parentId: 'spiffe://example.org/n',
  selectors: [{ type: 'k8s', value: 'pod-uid:u1' }],
  x509SvidTtl: 3600,
  jwtSvidTtl: 300,
  federatesWith: ['a.test', 'b.test'],
  dnsNames: ['w.example', 'w'],
  admin: true,
  downstream: true,
  storeSvid: true,
  hint: 'h',
};
/** A value different from the spec's, for each compared field. */
const other: Record<string, unknown> = { x509SvidTtl: 60, jwtSvidTtl: 61, federatesWith: ['c.test'], dnsNames: ['w', 'w.example'], admin: false, downstream: false, storeSvid: false, hint: 'g' };

describe('the table of entry fields drives comparison, the wire form and the update mask', () => {
  it('round-trips every field through the wire form', () => {
    const back = fromSpire(toSpire(spec, 'id1') as unknown as EntryOut);
    expect(back.spec).toEqual(spec);
    expect(back.podUid).toBe('u1');
  });

  it('reports each compared field that differs, in table order; a reordered set is no change, a reordered list is', () => {
    for (const r of ENTRY_FIELDS) expect(changedFields(spec, { ...spec, [r.field]: other[r.field] })).toEqual([r.field]);
    expect(changedFields(spec, { ...spec, federatesWith: ['b.test', 'a.test'] })).toEqual([]);
    expect(changedFields(spec, { ...spec, x509SvidTtl: 1, hint: 'x', admin: false })).toEqual(['x509SvidTtl', 'admin', 'hint']);
    expect(changedFields(spec, { ...spec, hint: 'x', jwtSvidTtl: 1 }, new Set(['hint', 'jwtSvidTtl']))).toEqual([]);
  });

  it('updates write exactly the compared fields', () => {
    expect(Object.keys(UPDATE_MASK).sort()).toEqual(ENTRY_FIELDS.map((r) => r.wire).sort());
  });
});
