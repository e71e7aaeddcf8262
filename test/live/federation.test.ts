import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ControllerConfig } from '../../src/api/index.js';
import { createCertificateAuthority } from '../../src/memspire/ca.js';
import { csid, eventually, node, ns, pod, startWorld, type World } from './world.js';

async function spiffeBundle(td: string, sequence: number): Promise<{ json: string; der: Buffer }> {
  const der = (await createCertificateAuthority(td, 3600)).der;
  return { json: JSON.stringify({ keys: [{ use: 'x509-svid', kty: 'EC', crv: 'P-256', x5c: [der.toString('base64')] }], spiffe_sequence: sequence }), der };
}

const cftd = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterFederatedTrustDomain', metadata: { name }, spec });

interface Fr {
  trustDomain: string;
  bundleEndpointUrl: string;
  profile: { kind: string; endpointSpiffeId?: string };
}

describe('ClusterFederatedTrustDomains become SPIRE federation relationships', () => {
  let w: World;
  const fr = (td: string): Fr | undefined => {
    const found = w.spire.server.relationships.list(0, '', null).items.find((r) => r.trust_domain === td);
    if (!found) return undefined;
    const profile = found.https_spiffe ? { kind: 'https_spiffe', endpointSpiffeId: found.https_spiffe.endpoint_spiffe_id ?? '' } : { kind: 'https_web' };
    return { trustDomain: found.trust_domain ?? '', bundleEndpointUrl: found.bundle_endpoint_url ?? '', profile };
  };
  const status = (name: string) => (w.kube.get('spire.spiffe.io/v1alpha1', 'ClusterFederatedTrustDomain', name) as { status?: Record<string, unknown> }).status;
  const edit = (name: string, change: (spec: Record<string, unknown>) => Record<string, unknown>) => {
    const obj = w.kube.get('spire.spiffe.io/v1alpha1', 'ClusterFederatedTrustDomain', name) as { spec: Record<string, unknown> };
    w.kube.update({ ...obj, spec: change(obj.spec) });
  };

  const start = async (over: Partial<ControllerConfig> = {}) => {
    w = await startWorld(over);
    w.kube.create(ns('default'));
    w.kube.create(node('node-1'));
    await w.start();
  };
  afterEach(async () => {
    await w.close();
  });

  describe('under policy sync', () => {
    beforeEach(async () => {
      await start();
    });

    it('creates, updates URL, profile and bundle, reports status, and deletes with the object', async () => {
      const first = await spiffeBundle('a.test', 1);
      w.kube.create(cftd('a', { trustDomain: 'a.test', bundleEndpointURL: 'https://a.test/bundle', bundleEndpointProfile: { type: 'https_web' }, trustDomainBundle: first.json }));
      await eventually(() => fr('a.test') !== undefined, 'the relationship exists');
      expect(fr('a.test')).toEqual({ trustDomain: 'a.test', bundleEndpointUrl: 'https://a.test/bundle', profile: { kind: 'https_web' } });
      expect(w.spire.server.bundles.get('a.test')?.x509Authorities).toEqual([first.der]);
      await eventually(() => status('a')?.set === true, 'the status says it is set');
      expect(status('a')).toEqual({ set: true, bundleAvailable: true, lastError: '' });

      edit('a', (s) => ({ ...s, bundleEndpointURL: 'https://a.test/v2' }));
      await eventually(() => fr('a.test')?.bundleEndpointUrl === 'https://a.test/v2', 'the URL changed');

      edit('a', (s) => ({ ...s, bundleEndpointProfile: { type: 'https_spiffe', endpointSPIFFEID: 'spiffe://a.test/spire/server' } }));
      await eventually(() => fr('a.test')?.profile.kind === 'https_spiffe', 'the profile changed');
      expect(fr('a.test')?.profile).toEqual({ kind: 'https_spiffe', endpointSpiffeId: 'spiffe://a.test/spire/server' });

      // Upstream never sends an edited bundle; a newer sequence number reaches SPIRE here.
      const second = await spiffeBundle('a.test', 2);
      edit('a', (s) => ({ ...s, trustDomainBundle: second.json }));
      await eventually(() => w.spire.server.bundles.get('a.test')?.x509Authorities[0]?.equals(second.der) === true, 'the bundle changed');

      w.kube.delete('spire.spiffe.io/v1alpha1', 'ClusterFederatedTrustDomain', 'a');
      await eventually(() => fr('a.test') === undefined, 'the relationship is gone');
    });

    it('does not write an older declared bundle over a newer one SPIRE refreshed from the endpoint', async () => {
      const declared = await spiffeBundle('a.test', 3);
      w.kube.create(cftd('a', { trustDomain: 'a.test', bundleEndpointURL: 'https://a.test/bundle', bundleEndpointProfile: { type: 'https_web' }, trustDomainBundle: declared.json }));
      await eventually(() => fr('a.test') !== undefined, 'the relationship exists');
      const refreshed = await spiffeBundle('a.test', 9);
      w.spire.server.seed({ federatedBundles: [{ trust_domain: 'a.test', x509_authorities: [{ asn1: refreshed.der }], sequence_number: '9' }] });
      edit('a', (s) => ({ ...s, bundleEndpointURL: 'https://a.test/v2' }));
      await eventually(() => fr('a.test')?.bundleEndpointUrl === 'https://a.test/v2', 'the URL changed');
      expect(w.spire.server.bundles.get('a.test')?.x509Authorities).toEqual([refreshed.der]);
    });

    it('gives a trust domain to the oldest object and reports the conflict on the others', async () => {
      w.kube.create(cftd('old', { trustDomain: 'a.test', bundleEndpointURL: 'https://old.a.test', bundleEndpointProfile: { type: 'https_web' } }));
      await eventually(() => fr('a.test') !== undefined, 'the first relationship');
      // creationTimestamp has whole seconds: make the second object younger, not a UID coin toss.
      await new Promise((r) => setTimeout(r, 1100));
      w.kube.create(cftd('new', { trustDomain: 'a.test', bundleEndpointURL: 'https://new.a.test', bundleEndpointProfile: { type: 'https_web' } }));
      await eventually(() => status('new')?.lastError !== undefined && status('old')?.set === true, 'both statuses written');
      expect(fr('a.test')?.bundleEndpointUrl).toBe('https://old.a.test');
      expect(status('new')).toEqual({ set: false, bundleAvailable: false, lastError: 'trust domain a.test is already declared by ClusterFederatedTrustDomain/old (older)' });
      // The same words as an Event on the object that lost, as the status and `plan` say it.
      const events = () => w.kube.list('v1', 'Event', 'default') as { reason: string; message: string; involvedObject: { name: string } }[];
      await eventually(() => events().some((e) => e.reason === 'TrustDomainConflict'), 'the event is recorded');
      expect(events().find((e) => e.reason === 'TrustDomainConflict')).toMatchObject({
        message: 'trust domain a.test is already declared by ClusterFederatedTrustDomain/old (older)',
        involvedObject: { name: 'new' },
      });
    });

    it('leaves a relationship it did not set (e.g. from server.conf) alone', async () => {
      w.spire.server.seed({ federationRelationships: [{ trust_domain: 'static.test', bundle_endpoint_url: 'https://static.test', https_web: {} }] });
      w.kube.create(cftd('a', { trustDomain: 'a.test', bundleEndpointURL: 'https://a.test', bundleEndpointProfile: { type: 'https_web' } }));
      await eventually(() => fr('a.test') !== undefined, 'ours exists');
      await w.controllers[0]!.live.idle();
      expect(fr('static.test')).toBeDefined();
    });
  });

  it('under policy upsert-only, never deletes a relationship', async () => {
    await start({ policy: 'upsert-only' });
    w.kube.create(cftd('a', { trustDomain: 'a.test', bundleEndpointURL: 'https://a.test', bundleEndpointProfile: { type: 'https_web' } }));
    await eventually(() => fr('a.test') !== undefined, 'the relationship exists');
    w.kube.delete('spire.spiffe.io/v1alpha1', 'ClusterFederatedTrustDomain', 'a');
    const live = w.controllers[0]!.live;
    const passes = live.passes();
    await eventually(() => live.passes() > passes, 'a pass after the delete');
    await live.idle();
    expect(fr('a.test')).toBeDefined();
  });
});

describe('an entry federating with a trust domain SPIRE has no bundle for yet (federatesWithMissingBundle: skip)', () => {
  let w: World;
  afterEach(async () => {
    await w.close();
  });

  it('is created without it, reported, and completed once the bundle appears', async () => {
    w = await startWorld();
    w.kube.create(ns('default'));
    w.kube.create(node('node-1'));
    w.kube.create(csid('fed', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}', federatesWith: ['b.test'] }));
    await w.start();
    w.kube.create(pod('default', 'web'));
    await eventually(() => w.spire.server.entries.size === 1, 'the entry exists');
    expect(w.spire.server.entries.all()[0]?.federatesWith).toEqual([]);
    await eventually(() => {
      const o = w.kube.get('spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID', 'fed') as { status?: { stats?: { entriesWithoutFederation?: number } } };
      return o.status?.stats?.entriesWithoutFederation === 1;
    }, 'the omission is in status');
    // Events are posted off the pass, in no set order with the status write.
    await eventually(() => (w.kube.list('v1', 'Event', 'default') as { reason: string }[]).some((e) => e.reason === 'FederatesWithIncomplete'), 'the event is recorded');

    const bundle = await spiffeBundle('b.test', 1);
    w.kube.create(cftd('b', { trustDomain: 'b.test', bundleEndpointURL: 'https://b.test', bundleEndpointProfile: { type: 'https_web' }, trustDomainBundle: bundle.json }));
    await eventually(() => w.spire.server.entries.all()[0]?.federatesWith.join() === 'b.test', 'the entry is completed');
  });
});
