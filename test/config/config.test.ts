import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig, ignoredNamespaces, loadConfigFile, parseConfig } from '../../src/api/index.js';

/** What helm-charts-hardened renders for spire-controller-manager, every field it emits. */
const HELM_CONFIG = `
apiVersion: spire.spiffe.io/v1alpha1
kind: ControllerManagerConfig
metadata:
  name: spire-controller-manager
  namespace: spire-server
  labels: {app.kubernetes.io/name: server}
metrics:
  bindAddress: 0.0.0.0:8082
health:
  healthProbeBindAddress: 0.0.0.0:8083
gcInterval: 10000000000
logLevel: info
logEncoding: console
leaderElection:
  leaderElect: true
  resourceName: 3f4a1b2c.spiffe.io
  resourceNamespace: spire-server
  leaseDuration: "15s"
  renewDeadline: "10s"
  retryPeriod: "2s"
validatingWebhookConfigurationName: spire-server-spire-controller-manager-webhook
entryIDPrefix: example-cluster
clusterName: example-cluster
trustDomain: example.org
ignoreNamespaces:
  - kube-system
  - kube-public
  - local-path-storage
  - openshift-.*
  - ibm-.*
spireServerSocketPath: "/tmp/spire-server/private/api.sock"
className: "spire-server-spire"
watchClassless: false
filterByClassName: false
parentIDTemplate: "spiffe://{{ .TrustDomain }}/spire/agent/k8s_psat/{{ .ClusterName }}/{{ .NodeMeta.UID }}"
reconcile:
  clusterSPIFFEIDs: true
  clusterStaticEntries: true
  clusterFederatedTrustDomains: true
`;

describe('an existing spire-controller-manager config file loads unchanged', () => {
  it('reads every field the helm chart writes, with no warning', () => {
    const { config, warnings } = parseConfig(HELM_CONFIG, 'helm.yaml');
    expect(warnings).toEqual([]);
    expect(config).toMatchObject({
      trustDomain: 'example.org',
      clusterName: 'example-cluster',
      gcIntervalMs: 10_000,
      entryIDPrefix: 'example-cluster.',
      spireServerSocketPath: '/tmp/spire-server/private/api.sock',
      className: 'spire-server-spire',
      ignoreNamespaces: ['kube-system', 'kube-public', 'local-path-storage', 'openshift-.*', 'ibm-.*'],
      metricsBindAddress: '0.0.0.0:8082',
      healthProbeBindAddress: '0.0.0.0:8083',
      leaderElection: { leaderElect: true, resourceName: '3f4a1b2c.spiffe.io', resourceNamespace: 'spire-server', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
      reconcile: { clusterSPIFFEIDs: true, clusterStaticEntries: true, clusterFederatedTrustDomains: true },
      entryScope: 'prefixed',
      policy: 'sync',
    });
  });

  it('takes Go duration strings as well as integer nanoseconds (upstream takes nanoseconds only)', () => {
    const base = 'trustDomain: example.org\nclusterName: c\n';
    expect(parseConfig(`${base}gcInterval: 1m30s\n`, 'x').config.gcIntervalMs).toBe(90_000);
    expect(parseConfig(`${base}gcInterval: 2000000000\n`, 'x').config.gcIntervalMs).toBe(2_000);
    expect(parseConfig(`${base}gcInterval: 0\n`, 'x').config.gcIntervalMs).toBe(10_000);
    expect(parseConfig(`${base}spireRpcTimeout: 5s\n`, 'x').config.spireRpcTimeoutMs).toBe(5_000);
  });

  it('relistInterval (ours): an hour unless set, 0 for never, a negative one refused', () => {
    const base = 'trustDomain: example.org\nclusterName: c\n';
    expect(parseConfig(base, 'x').config.relistIntervalMs).toBe(3_600_000);
    expect(parseConfig(`${base}relistInterval: 10m\n`, 'x').config.relistIntervalMs).toBe(600_000);
    expect(parseConfig(`${base}relistInterval: 0\n`, 'x').config.relistIntervalMs).toBe(0);
    expect(() => parseConfig(`${base}relistInterval: -1m\n`, 'x')).toThrow(/relistInterval: must be 0 \(never\) or positive/);
  });

  it('defaults as upstream, except scope and policy; an unset entry ID prefix stays unset (derived from clusterName later)', () => {
    const { config } = parseConfig('trustDomain: example.org\nclusterName: c\n', 'x');
    expect(config).toEqual({ ...defaultConfig(), trustDomain: 'example.org', clusterName: 'c' });
    expect(config.entryIDPrefix).toBeUndefined();
    expect(config.ignoreNamespaces).toEqual(['kube-system', 'kube-public', 'spire-system']);
  });

  it('takes a present reconcile block verbatim, so omitted kinds are off, as upstream', () => {
    const { config } = parseConfig('trustDomain: example.org\nclusterName: c\nreconcile:\n  clusterStaticEntries: true\n', 'x');
    expect(config.reconcile).toEqual({ clusterSPIFFEIDs: false, clusterFederatedTrustDomains: false, clusterStaticEntries: true });
  });

  it('matches ignoreNamespaces anywhere in the name, as upstream (Go regexp.MatchString)', () => {
    const ignored = ignoredNamespaces({ ...defaultConfig(), ignoreNamespaces: ['spire'] });
    expect(ignored.ignores('spire')).toBe(true);
    expect(ignored.ignores('my-spire-apps')).toBe(true);
    expect(ignored.ignores('default')).toBe(false);
  });

  it('honours webhook.port, host and certDir (upstream ignores them), and ENABLE_WEBHOOKS=false', () => {
    const base = 'trustDomain: example.org\nclusterName: c\n';
    expect(parseConfig(base, 'x').config.webhook).toEqual({ enabled: true, port: 9443, host: '' });
    expect(parseConfig(`${base}webhook: {port: 10250, certDir: /certs}\n`, 'x', { env: { ENABLE_WEBHOOKS: 'false' } }).config.webhook).toEqual({
      enabled: false,
      port: 10250,
      host: '',
      certDir: '/certs',
    });
  });

  it('expands ${VAR} and $VAR when asked (--expand-env)', () => {
    const { config } = parseConfig('trustDomain: ${TD}\nclusterName: $CLUSTER\n', 'x', { expandEnv: true, env: { TD: 'example.org', CLUSTER: 'prod' } });
    expect([config.trustDomain, config.clusterName]).toEqual(['example.org', 'prod']);
  });
});

describe('a bad config file is reported in full, each problem naming its field', () => {
  it('reports all three errors at once', () => {
    const text = 'clusterName: c\ngcInterval: 10 seconds\nentryScope: mine\n';
    let err: unknown;
    try {
      parseConfig(text, 'bad.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      'gcInterval: time: unknown unit " seconds" in duration "10 seconds"',
      'entryScope: must be one of prefixed, all, got "mine"',
      'trustDomain: is required',
    ]);
    expect((err as ConfigError).message.split('\n')[0]).toBe('bad.yaml: 3 problems:');
  });

  it('warns about an unknown field, naming it, because it may be a typo', () => {
    const { warnings } = parseConfig('trustDomain: example.org\nclusterName: c\ntrustdomain: x\nleaderElection:\n  leaderelect: true\n', 'x');
    expect(warnings).toEqual(['trustdomain: unknown field, ignored (did you mean trustDomain?)', 'leaderElection.leaderelect: unknown field, ignored (did you mean leaderElect?)']);
    expect(parseConfig('trustDomain: example.org\nclusterName: c\ngcIntervl: 1s\nwhatever: 1\n', 'x').warnings).toEqual([
      'gcIntervl: unknown field, ignored (did you mean gcInterval?)',
      'whatever: unknown field, ignored (a typo?)',
    ]);
  });

  it('keeps the warnings beside the errors: an unknown field often explains a missing one', () => {
    const err = (() => {
      try {
        parseConfig('trustDomian: example.org\nclusterName: c\n', 'x');
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('no error');
    })();
    expect(err.problems).toEqual(['trustDomain: is required']);
    expect(err.warnings).toEqual(['trustDomian: unknown field, ignored (did you mean trustDomain?)']);
  });

  it('an empty field is unset (as Go reads it), reported once; a document that is not a mapping says so without a dangling colon', () => {
    expect(() => parseConfig('trustDomain:\nclusterName: c\n', 'x')).toThrow(/^x: 1 problem:\n {2}trustDomain: is required$/);
    expect(() => parseConfig('- a\n', 'x')).toThrow(/^x: \d problems?:\n {2}the document must be a mapping, got list/);
  });

  it('--expand-env names a variable that is not set', () => {
    const { warnings } = parseConfig('trustDomain: example.org\nclusterName: ${CLUSTER}x\n', 'x', { expandEnv: true, env: {} });
    expect(warnings).toEqual(['$CLUSTER is not set: --expand-env replaced it with ""']);
  });

  it.each([
    ['trustDomain: Example.org\nclusterName: c', 'trustDomain: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores'],
    ['trustDomain: example.org\nclusterName: c\nignoreNamespaces: ["("]', 'ignoreNamespaces[0]: error parsing regexp: missing closing ): `(`'],
    ['trustDomain: example.org\nclusterName: c\nentryIDPrefix: old\nentryIDPrefixCleanup: old', 'entryIDPrefixCleanup: must differ from entryIDPrefix'],
    ['trustDomain: example.org\nclusterName: c\nwatchClassless: "yes"', 'watchClassless: must be true or false, got string'],
    ['trustDomain: example.org\nclusterName: [c]', 'clusterName: must be a string, got list'],
    ['trustDomain: example.org\nclusterName: c\nkind: Config', 'kind: must be ControllerManagerConfig, got "Config"'],
  ])('%j', (text, problem) => {
    expect(() => parseConfig(text, 'x')).toThrow(problem);
  });

  it('names the file when it cannot be read or is not YAML', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    try {
      expect(() => loadConfigFile(join(dir, 'missing.yaml'))).toThrow(`${join(dir, 'missing.yaml')}: 1 problem:\n  cannot read: ENOENT`);
      writeFileSync(join(dir, 'broken.yaml'), 'trustDomain: [unclosed\n');
      expect(() => loadConfigFile(join(dir, 'broken.yaml'))).toThrow(/broken\.yaml: 1 problem:\n {2}YAML: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the SPIRE server is reached one way: its admin socket or its TCP port over SPIFFE mTLS', () => {
  const base = 'trustDomain: example.org\nclusterName: c\n';
  const problems = (text: string) => {
    try {
      parseConfig(base + text, 'x');
    } catch (e) {
      return (e as ConfigError).problems;
    }
    return [];
  };

  it('reads the address, the Workload API socket and the server ID, with nothing set by default', () => {
    expect(defaultConfig()).toMatchObject({ spireServerAddress: '', workloadAPISocketPath: '', spireServerID: '' });
    const { config, warnings } = parseConfig(
      `${base}spireServerAddress: spire-server.spire-server.svc:8081\nworkloadAPISocketPath: unix:///spiffe-workload-api/spire-agent.sock\nspireServerID: spiffe://example.org/spire/server\n`,
      'x',
    );
    expect(warnings).toEqual([]);
    expect(config).toMatchObject({
      spireServerAddress: 'spire-server.spire-server.svc:8081',
      workloadAPISocketPath: 'unix:///spiffe-workload-api/spire-agent.sock',
      spireServerID: 'spiffe://example.org/spire/server',
    });
    expect(parseConfig(`${base}spireServerAddress: "[fd00::5]:8081"\n`, 'x').config.spireServerAddress).toBe('[fd00::5]:8081');
  });

  it('refuses a config that names both the socket and an address, and addresses that cannot be dialed', () => {
    expect(problems('spireServerSocketPath: /tmp/api.sock\nspireServerAddress: spire:8081\n')).toEqual([
      "spireServerAddress: set spireServerSocketPath (the admin socket, in the SPIRE server's pod) or spireServerAddress (its TCP port over SPIFFE mTLS, from a pod of its own), not both",
    ]);
    expect(problems('spireServerAddress: spire-server\n')).toEqual(['spireServerAddress: must be host:port (e.g. spire-server.spire-server.svc:8081, or [::1]:8081), got "spire-server"']);
    expect(problems('spireServerAddress: spire:0\n')).toEqual(['spireServerAddress: port must be 1-65535, got 0']);
    expect(problems('spireServerAddress: ::1:8081\n')).toHaveLength(1);
    expect(problems('spireServerAddress: spire:8081\nworkloadAPISocketPath: agent.sock\n')).toEqual([
      'workloadAPISocketPath: must be an absolute path or unix:///absolute/path, got "agent.sock"',
    ]);
    expect(problems('spireServerAddress: spire:8081\nspireServerID: spiffe://other.org/spire/server\n')).toEqual([
      'spireServerID: must be a SPIFFE ID in trust domain example.org (spiffe://example.org/...), got "spiffe://other.org/spire/server"',
    ]);
  });

  it('warns that the Workload API socket and server ID do nothing beside the admin socket', () => {
    expect(parseConfig(`${base}workloadAPISocketPath: /run/agent.sock\nspireServerID: spiffe://example.org/spire/server\n`, 'x').warnings).toEqual([
      'workloadAPISocketPath: has no effect without spireServerAddress (the admin socket needs no SVID)',
      'spireServerID: has no effect without spireServerAddress (the admin socket is not authenticated)',
    ]);
  });
});
