import { describe, expect, it } from 'vitest';
import { changeMatters, type ClusterSnapshot, type ClusterSPIFFEID, type ClusterStaticEntry, defaultConfig, entriesOff, federationOn, podEntriesOn, switchedSnapshot } from '../../src/api/index.js';

const config = (reconcile: Partial<ReturnType<typeof defaultConfig>['reconcile']>) => {
  const c = defaultConfig();
  c.reconcile = { ...c.reconcile, ...reconcile };
  return c;
};
const objects = {
  clusterSPIFFEIDs: [{ metadata: { name: 'c' } } as ClusterSPIFFEID],
  clusterStaticEntries: [{ metadata: { name: 's' } } as ClusterStaticEntry],
  namespaces: [],
  pods: [],
  nodes: [],
  endpointSlices: [],
  endpoints: [],
} as ClusterSnapshot;

describe('the reconcile.* switches, read in one place', () => {
  it('all on by default', () => {
    const c = defaultConfig();
    expect([federationOn(c), podEntriesOn(c), entriesOff(c)]).toEqual([true, true, undefined]);
    expect(switchedSnapshot(c, objects)).toEqual(objects);
    expect(changeMatters(c, 'pods')).toBe(true);
  });

  it('a kind switched off declares nothing; with ClusterSPIFFEIDs off, pods, namespaces, nodes and services do not matter', () => {
    const c = config({ clusterSPIFFEIDs: false });
    expect(switchedSnapshot(c, objects).clusterSPIFFEIDs).toEqual([]);
    expect(switchedSnapshot(c, objects).clusterStaticEntries).toHaveLength(1);
    expect(podEntriesOn(c)).toBe(false);
    for (const r of ['pods', 'namespaces', 'nodes', 'endpointslices', 'endpoints']) expect(changeMatters(c, r)).toBe(false);
    expect(changeMatters(c, 'clusterstaticentries')).toBe(true);
    expect(entriesOff(c)).toBeUndefined();
  });

  it('both entry kinds off: no entry reconciler, said why', () => {
    expect(entriesOff(config({ clusterSPIFFEIDs: false, clusterStaticEntries: false }))).toBe('reconcile.clusterSPIFFEIDs and reconcile.clusterStaticEntries are both off');
    expect(federationOn(config({ clusterFederatedTrustDomains: false }))).toBe(false);
  });
});
