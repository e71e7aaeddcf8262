/**
 * The live controller with a real SPIRE server in place of the in-memory one:
 * the scenarios whose outcome depends on how SPIRE answers (entry writes,
 * conflicts with foreign entries, the unsupported-field probe, federation).
 * Run by `npm run test:real-spire`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { probeSpireServer } from '../../src/entries/server-probe.js';
import { createCertificateAuthority } from '../../src/memspire/ca.js';
import type { EntryOut } from '../../src/spire/index.js';
import { csid, eventually, node, ns, pod } from '../live/world.js';
import { liveWorld, type LiveWorld, TD, useRealSpire } from './world.js';

const spire = useRealSpire();
let w: LiveWorld;
afterEach(async () => {
  await w?.close();
});

const SA_TEMPLATE = 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}';
const byPath = (entries: EntryOut[], path: string) => entries.find((e) => e.spiffe_id?.path === path);
const uidOf = (namespace: string, name: string) => (w.kube.get('v1', 'Pod', name, namespace) as { metadata: { uid: string } }).metadata.uid;
const nodeUid = (name: string) => (w.kube.get('v1', 'Node', name) as { metadata: { uid: string } }).metadata.uid;
const stats = (name: string) =>
  (w.kube.get('spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID', name) as { status?: { stats?: Record<string, number> } }).status?.stats;
const editCsid = (name: string, change: (spec: Record<string, unknown>) => Record<string, unknown>) => {
  const obj = w.kube.get('spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID', name) as { spec: Record<string, unknown> };
  w.kube.update({ ...obj, spec: change(obj.spec) });
};

async function cluster(): Promise<void> {
  w = await liveWorld(spire.current);
  w.kube.create(ns('team-a', { team: 'a' }));
  w.kube.create(node('node-1', { zone: 'z1' }));
}

async function spiffeBundle(td: string, sequence: number): Promise<{ json: string; der: Buffer }> {
  const der = (await createCertificateAuthority(td, 3600)).der;
  return { json: JSON.stringify({ keys: [{ use: 'x509-svid', kty: 'EC', crv: 'P-256', x5c: [der.toString('base64')] }], spiffe_sequence: sequence }), der };
}

const cftd = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterFederatedTrustDomain', metadata: { name }, spec });

describe('the live controller against a real SPIRE server', () => {
  it('creates a pod entry, updates it in place when its ClusterSPIFFEID changes, and deletes it with the pod', async () => {
    await cluster();
    w.kube.create(csid('by-sa', { spiffeIDTemplate: SA_TEMPLATE, namespaceSelector: { matchLabels: { team: 'a' } }, dnsNameTemplates: ['{{ .PodMeta.Name }}.team-a.svc'] }));
    await w.start();
    w.kube.create(pod('team-a', 'web'));
    await eventually(async () => byPath(await w.entries(), '/ns/team-a/sa/web-sa') !== undefined, 'the entry exists', 30_000);
    const created = byPath(await w.entries(), '/ns/team-a/sa/web-sa')!;
    // The default prefix is scm-, the cluster name and a dot (clusterName demo).
    expect(created.id).toMatch(/^scm-demo\./);
    expect(created.parent_id).toEqual({ trust_domain: TD, path: `/spire/agent/k8s_psat/demo/${nodeUid('node-1')}` });
    expect(created.selectors).toEqual([{ type: 'k8s', value: `pod-uid:${uidOf('team-a', 'web')}` }]);
    expect(created.dns_names).toEqual(['web.team-a.svc']);

    editCsid('by-sa', (s) => ({ ...s, dnsNameTemplates: ['web.example.com', '{{ .PodMeta.Name }}.team-a.svc'], ttl: '10m', jwtTtl: '5m', hint: 'web', admin: true }));
    await eventually(async () => byPath(await w.entries(), '/ns/team-a/sa/web-sa')?.hint === 'web', 'the entry is updated', 30_000);
    const updated = byPath(await w.entries(), '/ns/team-a/sa/web-sa')!;
    expect(updated).toMatchObject({ id: created.id, dns_names: ['web.example.com', 'web.team-a.svc'], x509_svid_ttl: 600, jwt_svid_ttl: 300, admin: true, created_at: created.created_at });
    expect(Number(updated.revision_number)).toBeGreaterThan(Number(created.revision_number));

    w.kube.delete('v1', 'Pod', 'web', 'team-a');
    await eventually(async () => (await w.entries()).length === 0, 'the entry is gone', 30_000);
  });

  it('an idle resync rewrites nothing: every field it writes reads back from SPIRE as written', async () => {
    await cluster();
    const bundle = await spiffeBundle('partner.test', 1);
    w.kube.create(cftd('partner', { trustDomain: 'partner.test', bundleEndpointURL: 'https://partner.test/bundle', bundleEndpointProfile: { type: 'https_web' }, trustDomainBundle: bundle.json }));
    w.kube.create(
      csid('full', {
        spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}',
        namespaceSelector: { matchLabels: { team: 'a' } },
        workloadSelectorTemplates: ['k8s:ns:{{ .PodMeta.Namespace }}', 'k8s:sa:{{ .PodSpec.ServiceAccountName }}'],
        dnsNameTemplates: ['{{ .PodMeta.Name }}.example.com', 'Upper_Case.example.com', '*.wild.example.com'],
        federatesWith: ['partner.test', TD],
        ttl: '1h30m',
        jwtTtl: '90s',
        hint: 'a hint',
        admin: true,
        downstream: true,
      }),
    );
    w.kube.create({
      apiVersion: 'spire.spiffe.io/v1alpha1',
      kind: 'ClusterStaticEntry',
      metadata: { name: 'static' },
      spec: { spiffeID: `spiffe://${TD}/static`, parentID: `spiffe://${TD}/spire/server`, selectors: ['unix:uid:0', 'unix:gid:0'], storeSVID: true },
    });
    const live = await w.start();
    w.kube.create(pod('team-a', 'web'));
    w.kube.create(pod('team-a', 'db'));
    // Waits for the declared entries by path: the start-up probe's entry comes and goes meanwhile.
    const declaredPaths = ['/pod/db', '/pod/web', '/static'];
    const declared = async () => (await w.entries()).filter((e) => declaredPaths.includes(e.spiffe_id?.path ?? ''));
    await eventually(async () => (await declared()).length === 3, 'three entries', 30_000);
    await eventually(async () => (await declared()).every((e) => e.federates_with.length === 2 || e.spiffe_id?.path === '/static'), 'federation complete', 30_000);
    await live.idle();
    const before = await w.entries();
    expect(byPath(before, '/pod/web')).toMatchObject({ x509_svid_ttl: 5400, jwt_svid_ttl: 90, hint: 'a hint', admin: true, downstream: true });

    // What gcInterval does, twice: a fresh list, compared field by field with what is declared.
    for (let i = 0; i < 2; i++) {
      live.resync();
      await live.idle();
    }
    const after = await w.entries();
    expect(after.map((e) => [e.id, e.revision_number])).toEqual(before.map((e) => [e.id, e.revision_number]));
    expect(stats('full')).toMatchObject({ entriesToSet: 2, entryFailures: 0, entriesWithoutFederation: 0 });

    // After updates the controller wrote (and recorded at SPIRE's revisions), an idle resync writes nothing either.
    editCsid('full', (s) => ({ ...s, hint: 'another hint', dnsNameTemplates: ['*.wild.example.com', '{{ .PodMeta.Name }}.example.com'] }));
    await eventually(async () => (await declared()).filter((e) => e.hint === 'another hint').length === 2, 'the pod entries are updated', 30_000);
    await live.idle();
    const updated = await w.entries();
    expect(byPath(updated, '/pod/web')?.dns_names).toEqual(['*.wild.example.com', 'web.example.com']);
    for (let i = 0; i < 2; i++) {
      live.resync();
      await live.idle();
    }
    expect((await w.entries()).map((e) => [e.id, e.revision_number])).toEqual(updated.map((e) => [e.id, e.revision_number]));
  });

  it("the gcInterval's drift check finds the server's entries as written, and repairs what is changed or deleted behind its back", async () => {
    w = await liveWorld(spire.current, { gcIntervalMs: 300 });
    w.kube.create(ns('team-a', { team: 'a' }));
    w.kube.create(node('node-1', { zone: 'z1' }));
    w.kube.create(csid('full', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}', dnsNameTemplates: ['{{ .PodMeta.Name }}.example.com'], hint: 'h', ttl: '1h' }));
    for (const name of ['a', 'b', 'c']) w.kube.create(pod('team-a', name));
    const live = await w.start();
    const paths = async () => (await w.entries()).map((e) => e.spiffe_id?.path).sort();
    await eventually(async () => JSON.stringify(await paths()) === JSON.stringify(['/pod/a', '/pod/b', '/pod/c']), 'three entries', 30_000);
    await live.idle();
    // Idle gcIntervals (about six) write nothing: the revisions SPIRE lists are those its answers to our writes gave.
    const before = await w.entries();
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await w.entries()).map((e) => [e.id, e.revision_number])).toEqual(before.map((e) => [e.id, e.revision_number]));

    const [changed, gone] = [byPath(before, '/pod/a')!, byPath(before, '/pod/b')!];
    await spire.current.raw.entry.BatchUpdateEntry({ entries: [{ id: changed.id, hint: 'behind our back' }], input_mask: { hint: true } });
    await spire.current.raw.entry.BatchDeleteEntry({ ids: [gone.id] });
    await eventually(async () => {
      const now = await w.entries();
      return byPath(now, '/pod/a')?.hint === 'h' && byPath(now, '/pod/b') !== undefined;
    }, 'the changed entry is as declared again and the deleted one is back', 30_000);
  });

  it('reports a conflict with a foreign entry holding the same key, and leaves that entry alone', async () => {
    await cluster();
    w.kube.create(csid('by-sa', { spiffeIDTemplate: SA_TEMPLATE, namespaceSelector: { matchLabels: { team: 'a' } } }));
    w.kube.create(pod('team-a', 'web'));
    // An entry made by hand (a server-generated ID, so not ours) with the key the pod's entry would have.
    const foreign = await spire.current.raw.entry.BatchCreateEntry({
      entries: [
        {
          spiffe_id: { trust_domain: TD, path: '/ns/team-a/sa/web-sa' },
          parent_id: { trust_domain: TD, path: `/spire/agent/k8s_psat/demo/${nodeUid('node-1')}` },
          selectors: [{ type: 'k8s', value: `pod-uid:${uidOf('team-a', 'web')}` }],
          x509_svid_ttl: 42,
        },
      ],
    });
    expect(foreign.results[0]?.status).toEqual({ code: 0, message: 'OK' });
    const held = foreign.results[0]!.entry!;
    await w.start();
    await eventually(() => stats('by-sa')?.entryFailures === 1, 'the conflict is in status', 30_000);
    expect(stats('by-sa')).toMatchObject({ podsSelected: 1, entriesToSet: 1, entryFailures: 1 });
    expect(await w.entries()).toEqual([held]);
  });

  it('the unsupported-field probe finds every field stored, and removes its probe entry', async () => {
    await cluster();
    expect(await probeSpireServer(spire.current.client, TD, 'scm-')).toEqual({ unsupported: new Set(), ignoresEntryIds: false });
    expect(await w.entries()).toEqual([]);
    // A foreign entry holding the probe's key is not deleted by it: the probe fails, naming that entry.
    const probeId = { trust_domain: TD, path: '/spire-reconciler/unsupported-fields-probe/scm-' };
    const foreign = await spire.current.raw.entry.BatchCreateEntry({ entries: [{ id: 'not-ours', parent_id: probeId, spiffe_id: probeId, selectors: [{ type: 'a', value: '1' }] }] });
    expect(foreign.results[0]?.status?.code).toBe(0);
    await expect(probeSpireServer(spire.current.client, TD, 'scm-')).rejects.toThrow(/entry not-ours holds the probe's SPIFFE ID/);
    expect((await w.entries()).map((e) => e.id)).toEqual(['not-ours']);
  });

  it('sets federation relationships with their bundles, and completes an entry once its partner bundle exists', async () => {
    await cluster();
    w.kube.create(csid('fed', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}', namespaceSelector: { matchLabels: { team: 'a' } }, federatesWith: ['b.test'] }));
    await w.start();
    w.kube.create(pod('team-a', 'web'));
    // By path: the start-up probe's entry comes and goes meanwhile.
    const web = async () => byPath(await w.entries(), '/pod/web');
    await eventually(async () => (await web()) !== undefined, 'the entry exists', 30_000);
    expect((await web())?.federates_with).toEqual([]);
    await eventually(() => stats('fed')?.entriesWithoutFederation === 1, 'the omission is in status', 30_000);

    const first = await spiffeBundle('b.test', 1);
    w.kube.create(cftd('b', { trustDomain: 'b.test', bundleEndpointURL: 'https://b.test/bundle', bundleEndpointProfile: { type: 'https_web' }, trustDomainBundle: first.json }));
    await eventually(async () => (await web())?.federates_with.join() === 'b.test', 'the entry is completed', 30_000);
    const frs = await spire.current.client.listFederationRelationships();
    expect(frs.map((fr) => [fr.trust_domain, fr.bundle_endpoint_url, fr.bundle_endpoint_profile])).toEqual([['b.test', 'https://b.test/bundle', 'https_web']]);
    expect(frs[0]?.trust_domain_bundle?.x509_authorities.map((a) => Buffer.from(a.asn1))).toEqual([first.der]);

    const obj = w.kube.get('spire.spiffe.io/v1alpha1', 'ClusterFederatedTrustDomain', 'b') as { spec: Record<string, unknown> };
    w.kube.update({ ...obj, spec: { ...obj.spec, bundleEndpointProfile: { type: 'https_spiffe', endpointSPIFFEID: 'spiffe://b.test/spire/server' } } });
    await eventually(async () => (await spire.current.client.listFederationRelationships())[0]?.bundle_endpoint_profile === 'https_spiffe', 'the profile changed', 30_000);

    // The relationship goes with its object; the bundle stays (SPIRE keeps it, and the entry still uses it).
    w.kube.delete('spire.spiffe.io/v1alpha1', 'ClusterFederatedTrustDomain', 'b');
    await eventually(async () => (await spire.current.client.listFederationRelationships()).length === 0, 'the relationship is gone', 30_000);
    expect((await web())?.federates_with).toEqual(['b.test']);
  });
});
