import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ClusterFederatedTrustDomain } from '../../src/api/index.js';
import { runOnce } from '../../src/cli/one-pass.js';
import { bundleNeedsWrite, type CurrentRelationship, parseSpiffeBundle, planFederation, type TrustBundle } from '../../src/federation/index.js';
import { createCertificateAuthority } from '../../src/memspire/ca.js';
import { startTestSpire } from '../support/spire.js';

const cftd = (name: string, spec: Partial<ClusterFederatedTrustDomain['spec']>, created = '2026-01-01T00:00:00Z'): ClusterFederatedTrustDomain => ({
  metadata: { name, uid: `uid-${name}`, creationTimestamp: created },
  spec: { trustDomain: 'a.test', bundleEndpointURL: 'https://a.test/bundle', bundleEndpointProfile: { type: 'https_web' }, ...spec },
});
const current = (td: string, url = `https://${td}/bundle`): CurrentRelationship => ({ trustDomain: td, bundleEndpointUrl: url, profile: { type: 'https_web' } });
const base = { ownTrustDomain: 'example.org', className: '', watchClassless: false, scope: 'prefixed' as const, knownOurs: new Set<string>(), policy: 'sync' as const };
const bundle = (seq: number, ders: string[]): TrustBundle => ({ x509Authorities: ders.map((d) => Buffer.from(d)), jwtAuthorities: [], sequenceNumber: seq, refreshHintSeconds: 0 });

describe('SPIFFE bundles in trustDomainBundle are read as SPIRE stores them', () => {
  it('reads x509-svid and jwt-svid keys', async () => {
    const der = (await createCertificateAuthority('a.test', 3600)).der;
    const jwk = { kty: 'EC', crv: 'P-256', x: 'MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4', y: '4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM' };
    const b = parseSpiffeBundle(JSON.stringify({ keys: [{ use: 'x509-svid', x5c: [der.toString('base64')] }, { use: 'jwt-svid', kid: 'k1', ...jwk }], spiffe_sequence: 4, spiffe_refresh_hint: 60 }));
    expect(b.x509Authorities).toEqual([der]);
    expect(b.jwtAuthorities.map((k) => k.keyId)).toEqual(['k1']);
    expect([b.sequenceNumber, b.refreshHintSeconds]).toEqual([4, 60]);
  });

  it.each([
    ['{', /^not JSON: /],
    ['{"keys": 3}', /^must be a SPIFFE bundle: a JSON object with a "keys" array$/],
    ['{"keys": [{"use": "x509-svid", "x5c": []}]}', /^keys\[0\]: an x509-svid key must carry exactly one x5c certificate$/],
    ['{"keys": [{"use": "x509-svid", "x5c": ["AAAA"]}]}', /^keys\[0\]: x5c is not a certificate: /],
    ['{"keys": [{"use": "jwt-svid", "kty": "EC"}]}', /^keys\[0\]: a jwt-svid key needs a kid$/],
    ['{"keys": [{"use": "sig"}]}', /^keys\[0\]: use must be x509-svid or jwt-svid, got "sig"$/],
  ])('%s is refused with the key and the reason', (json, message) => {
    expect(() => parseSpiffeBundle(json)).toThrow(message);
  });
});

describe('a declared bundle is written only when it is news to SPIRE', () => {
  it.each([
    ['SPIRE holds none', bundle(1, ['a']), undefined, true],
    ['the declared sequence is newer', bundle(3, ['b']), bundle(2, ['a']), true],
    ['same sequence, other keys', bundle(2, ['b']), bundle(2, ['a']), true],
    ['same sequence, same keys', bundle(2, ['a']), bundle(2, ['a']), false],
    ['SPIRE refreshed to a newer sequence', bundle(2, ['b']), bundle(7, ['c']), false],
  ])('%s: %s', (_case, declared, stored, write) => {
    expect(bundleNeedsWrite(declared, stored)).toBe(write);
  });
});

describe('relationships are planned per trust domain, within scope and policy', () => {
  it('creates the missing, updates the changed, and deletes only what is known to be ours', () => {
    const plan = planFederation({
      ...base,
      objects: [cftd('a', {}), cftd('b', { trustDomain: 'b.test', bundleEndpointURL: 'https://b.test/new' })],
      current: [current('b.test', 'https://b.test/old'), current('ours.test'), current('static.test')],
      knownOurs: new Set(['ours.test']),
    });
    expect(plan.creates.map((c) => c.trustDomain)).toEqual(['a.test']);
    expect(plan.updates.map((u) => [u.relationship.trustDomain, u.changed])).toEqual([['b.test', ['bundleEndpointURL']]]);
    expect(plan.deletes.map((d) => d.trustDomain)).toEqual(['ours.test']);
    expect(plan.kept).toEqual([{ trustDomain: 'static.test', detail: 'not known to be set by this controller (entryScope: prefixed)' }]);
  });

  it('under entryScope all, deletes every undeclared relationship (upstream)', () => {
    const plan = planFederation({ ...base, scope: 'all', objects: [], current: [current('static.test')] });
    expect(plan.deletes.map((d) => d.trustDomain)).toEqual(['static.test']);
  });

  it('deletes nothing while an object is invalid, and says why', () => {
    const plan = planFederation({ ...base, scope: 'all', objects: [cftd('bad', { bundleEndpointURL: 'http://a.test' })], current: [current('x.test')] });
    expect(plan.invalid.map((i) => [i.owner.name, i.problems])).toEqual([['bad', [{ field: 'spec.bundleEndpointURL', message: 'scheme must be https' }]]]);
    expect(plan.deletes).toEqual([]);
  });

  it("refuses the server's own trust domain", () => {
    const plan = planFederation({ ...base, objects: [cftd('self', { trustDomain: 'example.org' })], current: [] });
    expect(plan.invalid[0]?.problems).toEqual([{ field: 'spec.trustDomain', message: '"example.org" is the SPIRE server\'s own trust domain' }]);
    expect(plan.creates).toEqual([]);
  });

  it('carries the trustDomainBundle it checked into the relationship, or refuses the object naming the key', async () => {
    const der = (await createCertificateAuthority('a.test', 3600)).der;
    const json = JSON.stringify({ keys: [{ use: 'x509-svid', x5c: [der.toString('base64')] }], spiffe_sequence: 2 });
    const plan = planFederation({
      ...base,
      objects: [cftd('a', { trustDomainBundle: json }), cftd('b', { trustDomain: 'b.test', trustDomainBundle: '{"keys": [{"use": "sig"}]}' })],
      current: [],
    });
    expect(plan.creates.map((c) => [c.trustDomain, c.bundle])).toEqual([['a.test', parseSpiffeBundle(json)]]);
    expect(plan.invalid.map((i) => [i.owner.name, i.problems])).toEqual([['b', [{ field: 'spec.trustDomainBundle', message: 'keys[0]: use must be x509-svid or jwt-svid, got "sig"' }]]]);
  });

  it('only handles objects of its class', () => {
    const plan = planFederation({ ...base, className: 'blue', objects: [cftd('a', {}), cftd('b', { trustDomain: 'b.test', className: 'blue' })], current: [] });
    expect(plan.creates.map((c) => c.trustDomain)).toEqual(['b.test']);
  });
});

describe('`plan` shows relationship changes too', () => {
  it('lists the relationship a reconcile would create, and writes nothing', async () => {
    const spire = await startTestSpire();
    const dir = mkdtempSync(join(tmpdir(), 'fedplan-'));
    try {
      mkdirSync(join(dir, 'm'));
      writeFileSync(
        join(dir, 'm', 'f.yaml'),
        'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterFederatedTrustDomain\nmetadata: {name: a}\nspec: {trustDomain: a.test, bundleEndpointURL: "https://a.test/bundle", bundleEndpointProfile: {type: https_web}}\n',
      );
      let out = '';
      await runOnce(
        { manifests: [join(dir, 'm')], socket: spire.socketPath, trustDomain: 'example.org', clusterName: 'c', output: 'json' },
        { apply: false, log: pino({ level: 'silent' }), print: (s) => (out += s) },
      );
      const json = JSON.parse(out) as { federation: { create: unknown[] }; status: { clusterFederatedTrustDomains: unknown } };
      expect(json.federation.create).toEqual([{ trustDomain: 'a.test', bundleEndpointURL: 'https://a.test/bundle', bundleEndpointProfile: { type: 'https_web' } }]);
      expect(json.status.clusterFederatedTrustDomains).toEqual({ a: { set: true, bundleAvailable: false, lastError: '' } });
      expect(spire.server.relationships.size).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await spire.close();
    }
  });
});
