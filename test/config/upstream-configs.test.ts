import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { globLikeWarning, ignoredNamespaces, loadConfigFile } from '../../src/api/index.js';
import { logSettings } from '../../src/cli/logging.js';
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
