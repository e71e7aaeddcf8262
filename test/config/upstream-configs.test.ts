import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheScope, globLikeWarning, ignoredNamespaces, loadConfigFile, parseConfig } from '../../src/api/index.js';
import { readManifests } from '../../src/cli/inputs.js';
import { logSettings } from '../../src/cli/log-settings.js';
import { repoRoot } from '../support/cli.js';

const NAMES = ['openshift', 'openshift-monitoring', 'my-openshift-apps', 'openshif', 'kube-system', 'not-kube-system-x', 'kube-public', 'default', 'spire-server', 'local-path-storage', 'zero-trust-workload-identity-manager', 'ibm-system', 'ibmcloud', 'shop'];

// Which of NAMES each config's ignoreNamespaces ignores in upstream: Go's regexp.MatchString with each pattern,
// run in a session (Go 1.26) over these names.
const GO_IGNORED = {
  openshift: ['openshift', 'openshift-monitoring', 'my-openshift-apps', 'kube-system', 'not-kube-system-x', 'kube-public', 'local-path-storage'],
  chart: ['openshift-monitoring', 'my-openshift-apps', 'kube-system', 'not-kube-system-x', 'kube-public', 'local-path-storage', 'ibm-system'],
};

describe('configs that upstream loads load here, and ignore exactly the namespaces upstream ignores', () => {
  it("OpenShift's operator's config: empty logLevel and logEncoding mean the defaults, and openshift-* ignores every name containing openshift", () => {
    const { config, warnings } = loadConfigFile(join(repoRoot, 'test/fixtures/openshift-operator/controller-manager-config.yaml'));
    expect(config).toMatchObject({ trustDomain: 'apps.example.com', clusterName: 'test01', entryIDPrefix: 'test01.', clusterDomain: '', logLevel: '', logEncoding: '' });
    expect(logSettings(config, {}).settings).toEqual({ level: 'info', encoding: 'console' });
    // The one warning says what the glob-looking pattern really matches.
    expect(warnings).toEqual([`ignoreNamespaces[3]: ${globLikeWarning('openshift-*')!}`]);
    const ignored = ignoredNamespaces(config);
    expect(NAMES.filter((n) => ignored.ignores(n))).toEqual(GO_IGNORED.openshift);
  });

  it("the helm chart's config: loads without a warning, and openshift-.* leaves a namespace named just openshift alone", () => {
    const { config, warnings } = loadConfigFile(join(repoRoot, 'test/fixtures/upstream-chart/controller-manager-config.yaml'));
    expect(warnings).toEqual([]);
    expect(config).toMatchObject({ className: 'spire-server-spire', entryIDPrefix: 'example-cluster.', validatingWebhookConfigurationName: 'spire-server-spire-controller-manager-webhook', gcIntervalMs: 10_000 });
    const ignored = ignoredNamespaces(config);
    expect(NAMES.filter((n) => ignored.ignores(n))).toEqual(GO_IGNORED.chart);
  });
});

describe('every key upstream reads is honoured, or warned about by name where it cannot apply', () => {
  const base = 'trustDomain: example.org\nclusterName: c\n';

  it('cacheNamespace and cacheNamespaces scope what is read; clusterSPIFFEIDLabelSelector and filterByClassName select ClusterSPIFFEIDs', () => {
    expect(cacheScope(parseConfig(`${base}cacheNamespace: shop\n`, 'x').config)).toEqual({ namespaces: [{ namespace: 'shop' }] });
    const { config, warnings } = parseConfig(
      `${base}className: blue\nfilterByClassName: true\nclusterSPIFFEIDLabelSelector: {team: a, spire.spiffe.io/class-name: red}\ncacheNamespaces:\n  shop:\n  billing: {labelSelectors: {tier: web}, fieldSelectors: {spec.nodeName: n1}}\n`,
      'x',
    );
    expect(warnings).toEqual([]);
    // filterByClassName's label wins over the selector's, as upstream.
    expect(cacheScope(config)).toEqual({
      namespaces: [{ namespace: 'shop' }, { namespace: 'billing', labelSelector: { tier: 'web' }, fieldSelector: { 'spec.nodeName': 'n1' } }],
      clusterSPIFFEIDLabels: { team: 'a', 'spire.spiffe.io/class-name': 'blue' },
    });
    // Empty ones mean everything, as upstream's loader.
    expect(cacheScope(parseConfig(`${base}cacheNamespace: ""\ncacheNamespaces: {}\nclusterSPIFFEIDLabelSelector: {}\n`, 'x').config)).toEqual({});
  });

  it('warns, naming each, about the keys that have no effect here', () => {
    const { warnings } = parseConfig(`${base}syncPeriod: 10h\ncontroller: {groupKindConcurrency: {Pod: 5}, cacheSyncTimeout: 2m, recoverPanic: true}\n`, 'x');
    expect(warnings.map((w) => w.split(':')[0])).toEqual(['syncPeriod', 'controller.groupKindConcurrency', 'controller.cacheSyncTimeout', 'controller.recoverPanic']);
    for (const w of warnings) expect(w).toMatch(/accepted for compatibility, it has no effect/);
  });

  it.each([
    [`${base}cacheNamespace: a\ncacheNamespaces: {b: {}}`, 'cacheNamespace: cacheNamespace or cacheNamespaces can be used, but not both'],
    [`${base}cacheNamespaces: [a, b]`, 'cacheNamespaces: must be a mapping of namespace names to {labelSelectors, fieldSelectors}, got list'],
    [`${base}cacheNamespaces: {shop: {labelSelectors: {"bad key": x}}}`, 'cacheNamespaces.shop.labelSelectors["bad key"]: key: Invalid value: "bad key": name part must consist of'],
    [`${base}clusterSPIFFEIDLabelSelector: {team: "not a value"}`, 'clusterSPIFFEIDLabelSelector["team"]: Invalid value: "not a value": a valid label must be'],
    [`${base}filterByClassName: true`, 'filterByClassName: requires className to be set'],
    [`${base}syncPeriod: soon`, 'syncPeriod: time: invalid duration "soon"'],
  ])('refuses %j', (text, problem) => {
    expect(() => parseConfig(text, 'x')).toThrow(problem);
  });
});

describe('manifest mode reads from files what the live cache would hold', () => {
  it('pods and endpoints outside the cached namespaces, and ClusterSPIFFEIDs without the labels, are left out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scope-'));
    try {
      const pod = (ns: string, name: string, tier: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: ${ns}, labels: {tier: ${tier}}}\nspec: {nodeName: n1}\n`;
      const csid = (name: string, cls: string) => `apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterSPIFFEID\nmetadata: {name: ${name}, labels: {spire.spiffe.io/class-name: ${cls}}}\nspec: {spiffeIDTemplate: "spiffe://example.org/x", className: ${cls}}\n`;
      writeFileSync(join(dir, 'objects.yaml'), [pod('shop', 'a', 'web'), pod('shop', 'b', 'db'), pod('other', 'c', 'web'), csid('mine', 'blue'), csid('theirs', 'red')].join('---\n'));
      const { config } = parseConfig('trustDomain: example.org\nclusterName: c\nclassName: blue\nfilterByClassName: true\ncacheNamespaces: {shop: {labelSelectors: {tier: web}}}\n', 'x');
      const { snapshot } = await readManifests([dir], config);
      expect(snapshot.pods.map((p) => p.metadata.name)).toEqual(['a']);
      expect(snapshot.clusterSPIFFEIDs.map((o) => o.metadata.name)).toEqual(['mine']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
