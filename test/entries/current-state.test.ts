import { describe, expect, it } from 'vitest';
import { CurrentState } from '../../src/entries/index.js';
import type { EntryOut } from '../../src/spire/index.js';

const raw = (id: string, revision: string, path = `/w/${id}`): EntryOut => ({
  id,
  spiffe_id: { trust_domain: 'example.org', path },
  parent_id: { trust_domain: 'example.org', path: '/node' },
  selectors: [{ type: 'k8s', value: `pod-uid:${id}` }],
  x509_svid_ttl: 0,
  federates_with: [],
  admin: false,
  downstream: false,
  expires_at: '0',
  dns_names: [],
  revision_number: revision,
  store_svid: false,
  jwt_svid_ttl: 0,
  hint: '',
  created_at: '0',
});

describe('the in-memory SPIRE state reuses what a resync finds unchanged', () => {
  it('keeps the converted entry when the revision is the same, and converts it again when it changed', () => {
    const state = new CurrentState(10_000);
    const [a1, b1] = state.replaceFromList([raw('a', '0'), raw('b', '0')]);
    const [a2, b2] = state.replaceFromList([raw('a', '0'), raw('b', '1', '/w/b-renamed')]);
    expect(a2).toBe(a1);
    expect(b2).not.toBe(b1);
    expect(b2?.spec.spiffeId).toBe('spiffe://example.org/w/b-renamed');
    expect(state.related(['b'], []).map((e) => e.spec.spiffeId)).toEqual(['spiffe://example.org/w/b-renamed']);
  });

  it('converts again an entry this controller wrote since the last list', () => {
    const state = new CurrentState(10_000);
    const [a1] = state.replaceFromList([raw('a', '0')]);
    state.record(
      { creates: [], updates: [{ id: 'a', key: a1!.key, spec: { ...a1!.spec, hint: 'new' }, current: a1!.spec, changed: ['hint'], owner: { kind: 'ClusterSPIFFEID', name: 'x', uid: 'x', creationTimestamp: '' } }], deletes: [], conflicts: [], kept: [], keys: new Map() },
      { created: 0, updated: 1, deleted: 0, failures: [], failedKeys: new Set(), heldBack: [] },
    );
    const [a2] = state.replaceFromList([raw('a', '0')]);
    expect(a2).not.toBe(a1);
    expect(a2?.spec.hint).toBe('');
  });
});
