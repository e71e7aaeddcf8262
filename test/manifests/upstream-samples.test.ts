import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/api/index.js';
import { validatePaths } from '../../src/cli/validate.js';
import { createCertificateAuthority } from '../../src/memspire/ca.js';
import { loadManifests } from '../../src/manifests/index.js';

const csid = (name: string, spec: string) => `apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterSPIFFEID\nmetadata: {name: ${name}}\nspec:\n${spec}`;

/** The manifests quoted from spire-controller-manager's repository and docs (upstream-behaviour.md section 3.1). */
const SAMPLES: Record<string, string> = {
  'greeter-server-id.yaml': csid(
    'greeter-server-id',
    '  spiffeIDTemplate: spiffe://cluster1.demo/greeter-server\n  podSelector: {matchLabels: {spire.spiffe.io/spiffeid: greeter-server}}\n  federatesWith: ["cluster2.demo"]\n',
  ),
  'greeter-client-id.yaml': csid(
    'greeter-client-id',
    '  spiffeIDTemplate: spiffe://cluster2.demo/greeter-client\n  podSelector: {matchLabels: {spire.spiffe.io/spiffeid: greeter-client}}\n  federatesWith: ["cluster1.demo"]\n',
  ),
  'static-entry.yaml': [
    'apiVersion: spire.spiffe.io/v1alpha1',
    'kind: ClusterStaticEntry',
    'metadata: {name: static-entry}',
    'spec:',
    '  spiffeID: spiffe://cluster1.demo/static-spiffe-id',
    '  parentID: spiffe://cluster1.demo/static-parent-id',
    '  selectors: ["static:one", "static:two"]',
    '  federatesWith: ["cluster1.demo"]',
    '  x509SVIDTTL: "2h"',
    '  jwtSVIDTTL: "6m"',
    '  dnsNames: ["static-dns"]',
    '  hint: "static-hint-2"',
    '  admin: true',
    '  downstream: true',
    '  storeSVID: true',
  ].join('\n'),
  'migration-clusterspiffeid.yaml': csid(
    'migration',
    '  spiffeIDTemplate: "spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}"\n  autoPopulateDNSNames: true\n  podSelector: {matchLabels: {spiffe.io/spiffe-id: "true"}}\n',
  ),
  'migration-faq.yaml': [
    csid(
      'label-based',
      '  spiffeIDTemplate: "spiffe://{{ .TrustDomain }}/{{ index .PodMeta.Labels \\"spiffe.io/spiffe-id\\" }}"\n  podSelector:\n    matchExpressions: [{key: "spiffe.io/spiffe-id", operator: "Exists"}]\n',
    ),
    csid(
      'federated',
      '  spiffeIDTemplate: "spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}"\n  federatesWith: ["example.io", "example.ai"]\n  dnsNameTemplates: ["{{ .PodMeta.Name }}", "my-custom-dns-name"]\n',
    ),
  ].join('\n---\n'),
  'docs-clusterspiffeid.yaml': [
    csid('backend', '  spiffeIDTemplate: "spiffe://domain.test/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}"\n  namespaceSelector: {matchLabels: {backend: "true"}}\n'),
    csid(
      'banking',
      '  spiffeIDTemplate: "spiffe://domain.test/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}"\n  podSelector: {matchLabels: {banking: "true"}}\n  federatesWith: ["auditing"]\n  dnsNameTemplates: ["{{ .PodMeta.Name }}.{{ .PodMeta.Namespace }}.{{ .ClusterDomain }}"]\n',
    ),
  ].join('\n---\n'),
  'docs-cftd-web.yaml':
    'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterFederatedTrustDomain\nmetadata: {name: backend}\nspec:\n  trustDomain: backend\n  bundleEndpointURL: https://backend.test/bundle\n  bundleEndpointProfile: {type: https_web}\n',
};

const CONFIGS: Record<string, string> = {
  demo: 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\nmetrics: {bindAddress: 127.0.0.1:8082}\nhealth: {healthProbeBindAddress: 0.0.0.0:8083}\nleaderElection: {leaderElect: true, resourceName: 98c9c988.spiffe.io, resourceNamespace: spire-system}\nclusterName: cluster1\nlogLevel: info\ntrustDomain: cluster1.demo\nignoreNamespaces: [kube-system, kube-public, spire-system, local-path-storage]\n',
  static:
    'apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\nmetadata: {name: config}\nmetrics: {bindAddress: 0.0.0.0:8082}\nhealth: {healthProbeBindAddress: 0.0.0.0:8083}\nentryIDPrefix: scm\nclassName: scm\nclusterName: scm\nclusterDomain: local\ntrustDomain: example.org\nwatchClassless: true\nstaticManifestPath: /etc/spire/server/main/manifests\nspireServerSocketPath: "/tmp/spire-server/private/api.sock"\nlogLevel: info\n',
};

describe("every manifest and config spire-controller-manager's own repository and docs show is accepted", () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'upstream-samples-'));
    for (const [file, text] of Object.entries(SAMPLES)) writeFileSync(join(dir, file), text);
    // The https_spiffe example carries an inline JWKS bundle with an x509-svid key.
    const der = (await createCertificateAuthority('backend', 3600)).der.toString('base64');
    const bundle = JSON.stringify({ keys: [{ use: 'x509-svid', kty: 'EC', crv: 'P-256', x5c: [der] }], spiffe_sequence: 1 });
    writeFileSync(
      join(dir, 'docs-cftd-spiffe.yaml'),
      `apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterFederatedTrustDomain\nmetadata: {name: backend-spiffe}\nspec:\n  trustDomain: backend\n  bundleEndpointURL: https://backend.test/bundle\n  bundleEndpointProfile: {type: https_spiffe, endpointSPIFFEID: spiffe://backend/bundle-endpoint-server}\n  trustDomainBundle: '${bundle}'\n`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the CRD schemas accept them all, with no warning', async () => {
    const set = await loadManifests([dir]);
    expect(set.problems).toEqual([]);
    expect([set.clusterSPIFFEIDs.length, set.clusterStaticEntries.length, set.clusterFederatedTrustDomains.length]).toEqual([7, 1, 2]);
  });

  it('validate finds nothing wrong in them', async () => {
    expect(await validatePaths([dir])).toEqual({ lines: [], errors: 0 });
  });

  it.each(Object.entries(CONFIGS))('the %s config loads with no error or warning', (_name, text) => {
    expect(parseConfig(text, 'x').warnings).toEqual([]);
  });
});
