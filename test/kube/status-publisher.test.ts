import { describe, expect, it } from 'vitest';
import type { ServiceSource } from '../../src/kube/cluster.js';
import { StatusPublisher, type StatusObjects } from '../../src/kube/status-publisher.js';
import type { StatusKind } from '../../src/kube/status.js';

/** Objects as the cache holds them, by resource/name; the publisher reads nothing else. */
function objects(items: Record<string, object>, serviceSourceDenied?: string): StatusObjects & { items: Record<string, object> } {
  return {
    items,
    get: <T,>(resource: string, name: string) => items[`${resource}/${name}`] as T | undefined,
    serviceSource: 'endpointslices' as ServiceSource,
    serviceSourceDenied,
  };
}

function recorder() {
  const writes: { kind: StatusKind; name: string; status: object }[] = [];
  return { writes, write: (kind: StatusKind, name: string, status: object) => void writes.push({ kind, name, status }) };
}

const stats = { namespacesSelected: 1, namespacesIgnored: 0, podsSelected: 2, podEntryRenderFailures: 0, entryFailures: 0, entriesWithoutFederation: 0 };
const csid = (rv: string, status?: object) => ({ metadata: { name: 'a', resourceVersion: rv }, spec: { autoPopulateDNSNames: true }, ...(status ? { status } : {}) });

describe('StatusPublisher', () => {
  it('writes a status only when it differs from the object', () => {
    const sink = recorder();
    const objs = objects({ 'clusterstaticentries/s': { metadata: { name: 's', resourceVersion: '1' }, status: { rendered: true, masked: false, set: true } } });
    const p = new StatusPublisher(sink, objs);
    p.entries({ clusterSPIFFEIDs: {}, clusterStaticEntries: { s: { rendered: true, masked: false, set: true } } });
    expect(sink.writes).toEqual([]);
    p.entries({ clusterSPIFFEIDs: {}, clusterStaticEntries: { s: { rendered: true, masked: false, set: false } } });
    expect(sink.writes).toEqual([{ kind: 'ClusterStaticEntry', name: 's', status: { rendered: true, masked: false, set: false } }]);
  });

  it('does not write again what it wrote while the watch has not brought it back, but does once the object moved', () => {
    const sink = recorder();
    const objs = objects({ 'clusterspiffeids/a': csid('1') });
    const p = new StatusPublisher(sink, objs);
    p.entries({ clusterSPIFFEIDs: { a: stats }, clusterStaticEntries: {} });
    p.entries({ clusterSPIFFEIDs: { a: stats }, clusterStaticEntries: {} });
    expect(sink.writes).toEqual([{ kind: 'ClusterSPIFFEID', name: 'a', status: { stats } }]);
    // Someone else changed the object (a new resourceVersion) without our status: written again.
    objs.items['clusterspiffeids/a'] = csid('2');
    p.entries({ clusterSPIFFEIDs: { a: stats }, clusterStaticEntries: {} });
    expect(sink.writes).toHaveLength(2);
    // After forget (a term ended, pending writes dropped), nothing is taken for written.
    p.forget();
    p.entries({ clusterSPIFFEIDs: { a: stats }, clusterStaticEntries: {} });
    expect(sink.writes).toHaveLength(3);
  });

  it('adds the ServiceDNSNames condition while Service reads are denied, and removes it with null after', () => {
    const sink = recorder();
    const now = new Date('2026-01-02T03:04:05.678Z');
    const denied = objects({ 'clusterspiffeids/a': csid('1', { stats }) }, 'endpointslices is forbidden');
    new StatusPublisher(sink, denied, () => now).entries({ clusterSPIFFEIDs: { a: stats }, clusterStaticEntries: {} });
    expect(sink.writes[0]!.status).toEqual({
      stats,
      conditions: [{ type: 'ServiceDNSNames', status: 'True', reason: 'FromEndpoints', message: 'endpointslices is forbidden', lastTransitionTime: '2026-01-02T03:04:05Z' }],
    });
    const conditions = (sink.writes[0]!.status as { conditions: object[] }).conditions;
    const allowed = objects({ 'clusterspiffeids/a': csid('2', { stats, conditions }) });
    new StatusPublisher(sink, allowed).entries({ clusterSPIFFEIDs: { a: stats }, clusterStaticEntries: {} });
    expect(sink.writes[1]!.status).toEqual({ stats, conditions: null });
  });

  it('publishes federation relationship statuses by the same rule', () => {
    const sink = recorder();
    const objs = objects({ 'clusterfederatedtrustdomains/f': { metadata: { name: 'f', resourceVersion: '1' }, status: { ready: true } } });
    const p = new StatusPublisher(sink, objs);
    p.federation({ f: { ready: true } });
    p.federation({ g: { ready: false } });
    expect(sink.writes).toEqual([{ kind: 'ClusterFederatedTrustDomain', name: 'g', status: { ready: false } }]);
  });
});
