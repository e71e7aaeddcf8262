import { type CurrentEntry, type DeclaredEntry, type EntrySpec, entryKey, type Owner, podUidOf } from '../../src/entries/model.js';

export function spec(overrides: Partial<EntrySpec> = {}): EntrySpec {
  return {
    spiffeId: 'spiffe://example.org/ns/a/sa/web',
    parentId: 'spiffe://example.org/spire/agent/k8s_psat/demo/node-1',
    selectors: [{ type: 'k8s', value: 'pod-uid:p1' }],
    x509SvidTtl: 0,
    jwtSvidTtl: 0,
    federatesWith: [],
    dnsNames: [],
    admin: false,
    downstream: false,
    storeSvid: false,
    hint: '',
    ...overrides,
  };
}

export function owner(name: string, overrides: Partial<Owner> = {}): Owner {
  return { kind: 'ClusterSPIFFEID', name, uid: `uid-${name}`, creationTimestamp: '2026-01-01T00:00:00Z', ...overrides };
}

export function declared(s: EntrySpec, o: Owner = owner('a')): DeclaredEntry {
  const podUid = podUidOf(s.selectors);
  return { key: entryKey(s), spec: s, owner: o, ...(podUid !== undefined && o.kind === 'ClusterSPIFFEID' ? { podUid } : {}) };
}

export function current(id: string, s: EntrySpec): CurrentEntry {
  const podUid = podUidOf(s.selectors);
  return { id, key: entryKey(s), spec: s, ...(podUid !== undefined ? { podUid } : {}) };
}

export function pod(uid: string, path = `/ns/a/sa/${uid}`): EntrySpec {
  return spec({ spiffeId: `spiffe://example.org${path}`, selectors: [{ type: 'k8s', value: `pod-uid:${uid}` }] });
}
