import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type ClusterFederatedTrustDomain, type ClusterSnapshot, type ClusterStaticEntry, defaultConfig } from '../../src/api/index.js';
import { passOptions } from '../../src/cli/context.js';
import { Reconciler } from '../../src/manager/reconcile.js';
import { spireForEachTest } from '../support/spire.js';

const log = pino({ level: 'silent' });
const config = { ...defaultConfig(), trustDomain: 'example.org', clusterName: 'demo' };
const meta = (name: string) => ({ name, uid: `uid-${name}`, creationTimestamp: '2026-01-01T00:00:00Z' });
const cftd = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterFederatedTrustDomain', metadata: meta('a'), spec: { trustDomain: 'a.test', bundleEndpointURL: 'https://a.test/bundle', bundleEndpointProfile: { type: 'https_web' } } } as unknown as ClusterFederatedTrustDomain;
const staticEntry = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', metadata: meta('gateway'), spec: { spiffeID: '/gateway', parentID: '/spire/server', selectors: ['unix:uid:1000'] } } as unknown as ClusterStaticEntry;
const snapshot: ClusterSnapshot = { clusterSPIFFEIDs: [], clusterStaticEntries: [staticEntry], namespaces: [], pods: [], nodes: [], endpointSlices: [], endpoints: [] };

describe('Reconciler: one reconcile for every mode', () => {
  const t = spireForEachTest();
  const reconciler = () => new Reconciler({ config, spire: t.client, log, options: passOptions(config), logMigration: false });
  const writes = () => t.spire.server.calls.filter((c) => c.method.startsWith('Batch')).map((c) => c.method);

  it('probes, then reconciles federation, then takes the snapshot and reconciles entries', async () => {
    const steps: string[] = [];
    const out = await reconciler().once({
      federation: [cftd],
      onProbed: () => steps.push(`probed after ${writes().join(',')}`),
      onFederation: (fed) => steps.push(`federation ${fed.applied?.created}`),
      snapshot: () => {
        steps.push('snapshot');
        return { objects: snapshot };
      },
    });
    // The probe writes an entry and deletes it again.
    expect(steps).toEqual(['probed after BatchCreateEntry,BatchDeleteEntry', 'federation 1', 'snapshot']);
    expect(out.entries?.applied?.created).toBe(1);
    expect(writes()).toEqual(['BatchCreateEntry', 'BatchDeleteEntry', 'BatchCreateFederationRelationship', 'BatchCreateEntry']);
    expect(out.entries?.migration).toBeDefined();
  });

  it('a dry run without the probe writes nothing and still plans', async () => {
    const out = await reconciler().once({ federation: [cftd], probe: false, dryRun: true, snapshot: () => ({ objects: snapshot }) });
    expect(writes()).toEqual([]);
    expect(out.federation?.plan.creates).toHaveLength(1);
    expect(out.entries?.plan.creates).toHaveLength(1);
    expect(out.entries?.applied).toBeUndefined();
  });

  it('stops after federation once the term has ended, and runs no entry pass without a snapshot', async () => {
    const ended = new AbortController();
    ended.abort();
    let asked = false;
    const stopped = await reconciler().once({ federation: [cftd], signal: ended.signal, snapshot: () => ((asked = true), { objects: snapshot }) });
    expect(asked).toBe(false);
    expect(stopped.entries).toBeUndefined();
    const skipped = await reconciler().once({ federation: [], snapshot: () => undefined });
    expect(skipped.entries).toBeUndefined();
    expect(writes().filter((m) => m !== 'BatchCreateEntry' && m !== 'BatchDeleteEntry')).toEqual([]);
  });

  it('explains the migration on its first pass only', async () => {
    const r = reconciler();
    const first = await r.once({ federation: [], snapshot: () => ({ objects: snapshot }) });
    const second = await r.once({ federation: [], snapshot: () => ({ objects: snapshot }) });
    expect(first.entries?.migration).toBeDefined();
    expect(second.entries?.migration).toBeUndefined();
  });
});
