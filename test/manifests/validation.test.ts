import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/index.js';
import { CSID_HEADER, csid, writeTree } from './tree.js';

/** helm-charts-hardened's default ClusterSPIFFEID as the chart renders it, plus its commented dnsNameTemplates example. */
const HELM_DEFAULT = `apiVersion: spire.spiffe.io/v1alpha1
kind: ClusterSPIFFEID
metadata:
  name: spire-server-spire-default
  labels:
    spire.spiffe.io/class-name: spire-server-spire
spec:
  className: spire-server-spire
  spiffeIDTemplate: spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}
  podSelector: {}
  namespaceSelector:
    matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values: [spire-server, spire-system]
  dnsNameTemplates:
  - '{{ index .PodMeta.Labels "app.kubernetes.io/name" }}.{{ .PodMeta.Namespace }}.svc.cluster.local'
  fallback: true
  hint: default
`;

/** The chart's oidc-discovery-provider ID, and the other ClusterSPIFFEID fields, read back with status. */
const EVERY_CSID_FIELD = `apiVersion: spire.spiffe.io/v1alpha1
kind: ClusterSPIFFEID
metadata:
  name: every-field
  creationTimestamp: "2024-05-01T10:00:00Z"
  generation: 3
  resourceVersion: "123"
  uid: 7d1f8c0e-0000-4000-8000-000000000001
spec:
  spiffeIDTemplate: "spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}"
  namespaceSelector:
    matchLabels: {backend: "true"}
  podSelector:
    matchLabels:
      app.kubernetes.io/name: oidc
    matchExpressions:
    - {key: spiffe.io/spiffe-id, operator: Exists}
  ttl: 1h
  jwtTtl: 5m
  dnsNameTemplates: ["oidc-discovery.{{ .TrustDomain }}"]
  workloadSelectorTemplates: ["k8s:ns:{{ .PodMeta.Namespace }}", "unix:uid:33"]
  federatesWith: ["example.io", "example.ai"]
  admin: false
  downstream: false
  autoPopulateDNSNames: true
  className: scm
  fallback: false
  hint: oidc
status:
  stats:
    namespacesSelected: 3
    namespacesIgnored: 1
    podsSelected: 4
    podEntryRenderFailures: 0
    entriesMasked: 0
    entriesToSet: 4
    entryFailures: 0
`;

/** spire-controller-manager's demo static entry: every field. */
const DEMO_STATIC_ENTRY = `apiVersion: spire.spiffe.io/v1alpha1
kind: ClusterStaticEntry
metadata:
  name: static-entry
spec:
  spiffeID: spiffe://cluster1.demo/static-spiffe-id
  parentID: spiffe://cluster1.demo/static-parent-id
  selectors: ["static:one", "static:two"]
  federatesWith: ["cluster1.demo"]
  x509SVIDTTL: "2h"
  jwtSVIDTTL: "6m"
  dnsNames: ["static-dns"]
  hint: "static-hint-2"
  admin: true
  downstream: true
  storeSVID: true
  className: scm
status:
  rendered: true
  masked: false
  set: false
`;

const DOCS_FEDERATION = `apiVersion: spire.spiffe.io/v1alpha1
kind: ClusterFederatedTrustDomain
metadata:
  name: backend
spec:
  trustDomain: backend
  bundleEndpointURL: https://backend.test/bundle
  bundleEndpointProfile:
    type: https_web
---
apiVersion: spire.spiffe.io/v1alpha1
kind: ClusterFederatedTrustDomain
metadata:
  name: backend-spiffe
spec:
  className: scm
  trustDomain: backend
  bundleEndpointURL: https://backend.test:8443
  bundleEndpointProfile:
    type: https_spiffe
    endpointSPIFFEID: spiffe://backend/bundle-endpoint-server
  trustDomainBundle: |-
    {"keys": [{"use": "jwt-svid", "kty": "EC", "kid": "k1", "crv": "P-256", "x": "AA", "y": "AA"}]}
`;

describe('objects that upstream accepts load without a problem', () => {
  it.each([
    ['the helm chart default ClusterSPIFFEID', HELM_DEFAULT, 'clusterSPIFFEIDs'],
    ['a ClusterSPIFFEID with every field and a status', EVERY_CSID_FIELD, 'clusterSPIFFEIDs'],
    ['the demo ClusterStaticEntry with every field and a status', DEMO_STATIC_ENTRY, 'clusterStaticEntries'],
    ['the documented ClusterFederatedTrustDomains', DOCS_FEDERATION, 'clusterFederatedTrustDomains'],
  ] as const)('%s', async (_name, text, bucket) => {
    const root = await writeTree({ 'm.yaml': text });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set[bucket].length).toBeGreaterThan(0);
  });

  it('keeps the spec as written', async () => {
    const root = await writeTree({ 'm.yaml': HELM_DEFAULT });
    const [id] = (await loadManifests([root])).clusterSPIFFEIDs;
    expect(id?.spec).toEqual({
      className: 'spire-server-spire',
      spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}',
      podSelector: {},
      namespaceSelector: {
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['spire-server', 'spire-system'] }],
      },
      dnsNameTemplates: ['{{ index .PodMeta.Labels "app.kubernetes.io/name" }}.{{ .PodMeta.Namespace }}.svc.cluster.local'],
      fallback: true,
      hint: 'default',
    });
  });

  it('treats an empty value (null) as an absent field, as the API server does', async () => {
    const root = await writeTree({
      'm.yaml': `${CSID_HEADER}metadata:\n  name: nulls\n  creationTimestamp: null\nspec:\n  spiffeIDTemplate: spiffe://example.org/x\n  podSelector:\n  ttl: ~\n`,
    });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set.clusterSPIFFEIDs[0]?.spec).toEqual({ spiffeIDTemplate: 'spiffe://example.org/x' });
    expect(set.clusterSPIFFEIDs[0]?.metadata.creationTimestamp).toBeUndefined();
  });

  it('accepts any trust domain containing one allowed character, as upstream\'s unanchored pattern does', async () => {
    const root = await writeTree({ 'm.yaml': DOCS_FEDERATION.replace('trustDomain: backend\n', 'trustDomain: Not A Valid TD!\n') });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set.clusterFederatedTrustDomains).toHaveLength(2);
  });
});

describe('an object that breaks its CRD schema is reported and skipped', () => {
  it('names file, document, kind/name and field of a wrong type', async () => {
    const root = await writeTree({
      'ok.yaml': csid('ok'),
      'bad.yaml': `${csid('first')}---\n${csid('typed', '  dnsNameTemplates: ["a", 7]\n  admin: "true"\n')}`,
    });
    const set = await loadManifests([root]);
    const file = path.join(root, 'bad.yaml');
    expect(set.problems).toEqual([
      { file, document: 1, severity: 'error', kind: 'ClusterSPIFFEID', name: 'typed', field: 'spec.admin', message: 'must be boolean' },
      {
        file,
        document: 1,
        severity: 'error',
        kind: 'ClusterSPIFFEID',
        name: 'typed',
        field: 'spec.dnsNameTemplates[1]',
        message: 'must be string',
      },
    ]);
    expect(set.clusterSPIFFEIDs.map((o) => o.metadata.name)).toEqual(['first', 'ok']);
  });

  it('reports every missing required field', async () => {
    const root = await writeTree({
      'm.yaml': `apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterStaticEntry\nmetadata: {name: se}\nspec:\n  spiffeID: spiffe://example.org/x\n`,
    });
    const set = await loadManifests([root]);
    expect(set.problems.map((p) => [p.severity, p.kind, p.name, p.field, p.message])).toEqual([
      ['error', 'ClusterStaticEntry', 'se', 'spec.parentID', 'is required'],
      ['error', 'ClusterStaticEntry', 'se', 'spec.selectors', 'is required'],
    ]);
    expect(set.clusterStaticEntries).toEqual([]);
  });

  it('reports a missing spec', async () => {
    const root = await writeTree({ 'm.yaml': `${CSID_HEADER}metadata: {name: nospec}\n` });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([expect.objectContaining({ name: 'nospec', field: 'spec', message: 'is required' })]);
    expect(set.clusterSPIFFEIDs).toEqual([]);
  });

  it('lists the allowed values of an enum', async () => {
    const root = await writeTree({ 'm.yaml': DOCS_FEDERATION.replace('type: https_web', 'type: https') });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([
      expect.objectContaining({
        document: 0,
        kind: 'ClusterFederatedTrustDomain',
        name: 'backend',
        field: 'spec.bundleEndpointProfile.type',
        message: 'must be one of: https_spiffe, https_web',
      }),
    ]);
    expect(set.clusterFederatedTrustDomains.map((o) => o.metadata.name)).toEqual(['backend-spiffe']);
  });

  it('quotes map keys that contain dots in the field path', async () => {
    const root = await writeTree({ 'm.yaml': `${csid('sel')}  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: 5\n` });
    const set = await loadManifests([root]);
    expect(set.problems.map((p) => p.field)).toEqual(['spec.podSelector.matchLabels["app.kubernetes.io/name"]']);
  });

  it('checks list items (matchExpressions need key and operator)', async () => {
    const root = await writeTree({ 'm.yaml': `${csid('sel')}  namespaceSelector:\n    matchExpressions:\n    - values: [a]\n` });
    const set = await loadManifests([root]);
    expect(set.problems.map((p) => `${p.field}: ${p.message}`)).toEqual([
      'spec.namespaceSelector.matchExpressions[0].key: is required',
      'spec.namespaceSelector.matchExpressions[0].operator: is required',
    ]);
  });
});

describe('an unknown field is reported, ignored, and the object kept', () => {
  it('at the top, in spec, and inside a selector', async () => {
    const root = await writeTree({
      'm.yaml': `${csid('typo', '  spiffeIdTemplate: typo\n  namespaceSelector:\n    matchNames: [a, b]\n')}extra: 1\n`,
    });
    const set = await loadManifests([root]);
    expect(set.problems.map((p) => [p.document, p.severity, p.kind, p.name, p.field, p.message])).toEqual([
      [0, 'warning', 'ClusterSPIFFEID', 'typo', 'extra', 'unknown field (ignored)'],
      // The nearest known key, as for config keys: case differences and small typos.
      [0, 'warning', 'ClusterSPIFFEID', 'typo', 'spec.spiffeIdTemplate', 'unknown field, ignored (did you mean spiffeIDTemplate?)'],
      [0, 'warning', 'ClusterSPIFFEID', 'typo', 'spec.namespaceSelector.matchNames', 'unknown field, ignored (did you mean matchLabels?)'],
    ]);
    // Pruned as the API server would: the selector is now empty, i.e. it selects every namespace.
    expect(set.clusterSPIFFEIDs).toHaveLength(1);
    expect(set.clusterSPIFFEIDs[0]?.spec).toEqual({ spiffeIDTemplate: 'spiffe://example.org/typo', namespaceSelector: {} });
    expect(set.clusterSPIFFEIDs[0]).not.toHaveProperty('extra');
  });

  it('names the nearest known key at every depth, of every kind', async () => {
    const root = await writeTree({
      'm.yaml': [
        csid('one', '  spiffeIDTemplat: x\n  podSelector:\n    matchLabel: {a: b}\n'),
        'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterStaticEntry\nmetadata: {name: two}\nspec:\n  spiffeID: spiffe://example.org/a\n  parentID: spiffe://example.org/b\n  selectors: [unix:uid:1]\n  dnsName: [a.example]\n',
        'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterFederatedTrustDomain\nmetadata: {name: three}\nspec:\n  trustDomain: partner.example\n  bundleEndpointURL: https://partner.example/b\n  bundleEndpointProfile: {type: https_web}\n  bundleEndpointUrl: https://x\n',
      ].join('---\n'),
    });
    const set = await loadManifests([root]);
    expect(set.problems.map((p) => `${p.kind}/${p.name}: ${p.field}: ${p.message}`)).toEqual([
      'ClusterSPIFFEID/one: spec.spiffeIDTemplat: unknown field, ignored (did you mean spiffeIDTemplate?)',
      'ClusterSPIFFEID/one: spec.podSelector.matchLabel: unknown field, ignored (did you mean matchLabels?)',
      'ClusterStaticEntry/two: spec.dnsName: unknown field, ignored (did you mean dnsNames?)',
      'ClusterFederatedTrustDomain/three: spec.bundleEndpointUrl: unknown field, ignored (did you mean bundleEndpointURL?)',
    ]);
  });

  it('but not for fields inside metadata', async () => {
    const root = await writeTree({
      'm.yaml': DOCS_FEDERATION.replace('name: backend-spiffe\n', 'name: backend-spiffe\n  finalizers: [x]\n  ownerReferences: []\n'),
    });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set.clusterFederatedTrustDomains[1]?.metadata.finalizers).toEqual(['x']);
  });
});

describe('a status written in a file is ignored, as the API server ignores it on create', () => {
  it('drops it, even when it would not pass the schema', async () => {
    const root = await writeTree({ 'm.yaml': DEMO_STATIC_ENTRY.replace('  set: false\n', '  set: "no idea"\n  extra: 1\n') });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set.clusterStaticEntries).toHaveLength(1);
    expect(set.clusterStaticEntries[0]).not.toHaveProperty('status');
  });
});

describe('metadata is checked for every kind', () => {
  it('rejects a Kubernetes object without a name', async () => {
    const root = await writeTree({
      'm.yaml': `apiVersion: v1\nkind: Namespace\nmetadata: {labels: {a: b}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {namespace: x}\n---\napiVersion: v1\nkind: Node\n`,
    });
    const set = await loadManifests([root]);
    expect(set.problems.map((p) => [p.document, p.kind, p.field, p.message])).toEqual([
      [0, 'Namespace', 'metadata.name', 'is required'],
      [1, 'Pod', 'metadata.name', 'is required'],
      [2, 'Node', 'metadata', 'is required'],
    ]);
    expect(set.namespaces).toEqual([]);
    expect(set.pods).toEqual([]);
    expect(set.nodes).toEqual([]);
  });

  it("loads our kinds without metadata or a name, as upstream's static loader does, named after their file", async () => {
    // Upstream's loader test's static entry: no metadata at all.
    const entry = 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterStaticEntry\nspec:\n  parentID: spiffe://example.org/server\n  spiffeID: spiffe://example.org/test\n  selectors:\n  - test:123\n';
    const ftd = 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterFederatedTrustDomain\nspec:\n  bundleEndpointProfile:\n    type: https_web\n  bundleEndpointURL: https://example.org\n  trustDomain: example.org\n';
    const root = await writeTree({ 'e-one.yaml': entry, 'f-one.yaml': ftd, 'more.yaml': `${CSID_HEADER}metadata: {labels: {a: b}}\nspec: {spiffeIDTemplate: x}\n---\n${entry}` });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set.clusterStaticEntries.map((o) => [o.metadata.name, o.metadata.uid])).toEqual([
      ['e-one.yaml', 'manifest:ClusterStaticEntry/e-one.yaml'],
      ['more.yaml#1', 'manifest:ClusterStaticEntry/more.yaml#1'],
    ]);
    expect(set.clusterFederatedTrustDomains.map((o) => o.metadata.name)).toEqual(['f-one.yaml']);
    expect(set.clusterSPIFFEIDs.map((o) => [o.metadata.name, o.metadata.labels])).toEqual([['more.yaml', { a: 'b' }]]);
  });

  it('rejects a label value that is not a string', async () => {
    const root = await writeTree({ 'm.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns1\n  labels:\n    tier: 1\n' });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([
      expect.objectContaining({ kind: 'Namespace', name: 'ns1', field: 'metadata.labels.tier', message: 'must be string' }),
    ]);
    expect(set.namespaces).toEqual([]);
  });

  it('gives objects without a UID a stable synthetic one, and no creation time', async () => {
    const root = await writeTree({
      'm.yaml': `${csid('web')}---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: other, uid: real-uid}\n`,
    });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set.clusterSPIFFEIDs[0]?.metadata.uid).toBe('manifest:ClusterSPIFFEID/web');
    expect(set.clusterSPIFFEIDs[0]?.metadata.creationTimestamp).toBeUndefined();
    // A pod without a namespace is in `default`, as kubectl would put it.
    expect(set.pods.map((p) => [p.metadata.namespace, p.metadata.uid])).toEqual([
      ['default', 'manifest:Pod/default/p'],
      ['other', 'real-uid'],
    ]);
    const again = await loadManifests([root]);
    expect(again.clusterSPIFFEIDs[0]?.metadata.uid).toBe('manifest:ClusterSPIFFEID/web');
  });

  it('strips managedFields from our own kinds too', async () => {
    const root = await writeTree({
      'm.yaml': `${CSID_HEADER}metadata:\n  name: m\n  managedFields:\n  - manager: kubectl\n    operation: Apply\nspec: {spiffeIDTemplate: x}\n`,
    });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set.clusterSPIFFEIDs[0]?.metadata).toEqual({ name: 'm', uid: 'manifest:ClusterSPIFFEID/m' });
  });

  it('reports a second object of the same kind and name, keeping the first', async () => {
    const root = await writeTree({ 'a.yaml': csid('same'), 'b.yaml': csid('same', '  hint: second\n') });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([
      expect.objectContaining({
        file: path.join(root, 'b.yaml'),
        kind: 'ClusterSPIFFEID',
        name: 'same',
        severity: 'error',
        message: `duplicate of the object in ${path.join(root, 'a.yaml')} doc 0; skipped`,
      }),
    ]);
    expect(set.clusterSPIFFEIDs).toHaveLength(1);
    expect(set.clusterSPIFFEIDs[0]?.spec.hint).toBeUndefined();
  });
});

describe('documents that are not ours are skipped, documents that are nothing are reported', () => {
  it('skips other kinds and versions silently', async () => {
    const root = await writeTree({
      'm.yaml': [
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n',
        'apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\ntrustDomain: example.org\n',
        'apiVersion: spire.spiffe.io/v1beta1\nkind: ClusterSPIFFEID\nmetadata: {name: future}\nspec: {}\n',
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n',
      ].join('---\n'),
    });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set.clusterSPIFFEIDs).toEqual([]);
  });

  it('reports a document without apiVersion or kind, or that is not an object', async () => {
    const root = await writeTree({ 'm.yaml': 'metadata: {name: x}\nspec: {}\n---\njust a string\n---\n- a\n- list\n---\nkind: Pod\n' });
    const set = await loadManifests([root]);
    expect(set.problems.map((p) => [p.document, p.field, p.message])).toEqual([
      [0, 'apiVersion', 'is required'],
      [0, 'kind', 'is required'],
      [1, undefined, 'not an object'],
      [2, undefined, 'not an object'],
      [3, 'apiVersion', 'is required'],
    ]);
  });
});
