/**
 * Every key of the config file, each once: where it is in the file, how it
 * is read and checked, its default, upstream's side of it and its note in
 * docs/configuration.md. The settings' type, their defaults, the file's
 * reader and the settings a file makes are derived from this table
 * (config-table.ts); so is the docs' table of keys (scripts/config-doc.ts,
 * checked by test/config/config-doc.test.ts).
 *
 * A setting is named as the code reads it (`relistIntervalMs`) and says
 * `file` where the file names it otherwise (`relistInterval`). A key that
 * makes no setting of its own is named by its place in the file.
 */
import {
  cacheNamespaces,
  duration,
  emptyOr,
  integer,
  labelSet,
  lowercase,
  namespacePatterns,
  oneOf,
  text,
  textList,
  trueOrFalse,
} from './config-readers.js';
import { block, computed, deliberatelyNot, fileOnlyKey, noEffect, optionalSetting, ours, SAME, setting, type SettingsOf, upstreamShows } from './config-table.js';
import { DEFAULT_WEBHOOK_TLS } from './tls-profile.js';

/**
 * relistInterval's default, an hour: how long a cache may stay wrong after an
 * etcd restore made without --bump-revision and --mark-compacted, against
 * what a relist of every informer costs (at 100,000 pods 4 to 7 CPU-s of
 * ours, 5 to 7 of the API server's, and 150 to 300 MiB for the seconds the old
 * cache serves beside the new list: docs/reliability.md, "After an etcd
 * restore", has the figures). Hourly, that is under 0.2% of a core.
 */
export const RELIST_INTERVAL_DEFAULT_MS = 3_600_000;

/**
 * gcEntriesPerInterval's default: SPIRE's entries whose revisions each
 * gcInterval compares. Read as IDs and revisions in pages of 1,000, they
 * cost the controller 5 to 10 CPU-µs each (more in a larger heap), so at
 * the chart's 10 s an idle cluster of any size costs about 2% of a core, and
 * every entry is compared every gcInterval up to 19,999 entries, every 6 at
 * 100,000, every 16 at 300,000 (docs/reliability.md, "Drift on the SPIRE
 * server"; docs/performance.md, "Idle").
 */
const GC_ENTRIES_PER_INTERVAL_DEFAULT = 20_000;

/** Upstream's default parentIDTemplate: the agent k8s_psat attests on the pod's node. */
export const DEFAULT_PARENT_ID_TEMPLATE = 'spiffe://{{ .TrustDomain }}/spire/agent/k8s_psat/{{ .ClusterName }}/{{ .NodeMeta.UID }}';

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const TRUST_DOMAIN = /^[a-z0-9._-]+$/;

/** Upstream appends "." to an entry ID prefix that lacks one; so do we, so that its IDs stay ours. */
const withDot = (prefix: string) => (prefix !== '' && !prefix.endsWith('.') ? `${prefix}.` : prefix);

/** An empty value means unset, as upstream's loader reads it. */
const unlessEmpty = <T extends string | object>(value: T): T | undefined => {
  const empty = typeof value === 'string' ? value === '' : Object.keys(value).length === 0;
  return empty ? undefined : value;
};

const mustBePositive = (ms: number) => (ms > 0 ? undefined : 'must be positive');
const mustNotBeEmpty = (s: string) => (s !== '' ? undefined : 'must not be empty');

const selectionDoc = 'see [selection](entries.md#selection)';
const manifestModeDoc = '[manifest mode](manifest-mode.md)';
const logDoc =
  '`""` means unset, as upstream (OpenShift\'s operator writes it empty); the zap flags beat it ([commands.md](commands.md#spire-controller-managers-command-line))';
const classFilterDoc = "as upstream's (its pull request #710, which the chart's image carries)";
const renderCacheHasNoEffect = 'rendering is incremental and cached already';

export const CONFIG_KEYS = {
  trustDomain: setting({
    read: text,
    check: (td) => (td === '' || TRUST_DOMAIN.test(td) ? undefined : 'trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores'),
    required: true,
    default: '',
    upstream: SAME,
    doc: '',
  }),
  clusterName: setting({ read: text, required: true, default: '', upstream: SAME, doc: '' }),
  /** '' means auto-detect (live mode). */
  clusterDomain: setting({
    read: text,
    default: '',
    shown: 'detected in live mode',
    upstream: upstreamShows('detected'),
    doc:
      "both take the canonical name of `kubernetes.default.svc` through the pod's DNS search list ([live-mode.md](live-mode.md#how-it-works)); " +
      'not detected, it stays `""`. `plan`, `reconcile --once` and `explain` detect it too',
  }),
  ignoreNamespaces: setting({
    read: namespacePatterns,
    default: ['kube-system', 'kube-public', 'spire-system'],
    upstream: SAME,
    doc:
      "Go regular expressions (RE2 syntax, compiled by re2js, a port of Go's `regexp`), each matched **anywhere** in the name, as upstream: " +
      '`spire` also ignores `spire-server` and `my-spire-apps`. A pattern that looks like a glob (`openshift-*`) is warned about at start and by ' +
      '`validate`, saying what it really matches (there: every name containing `openshift`)',
  }),
  validatingWebhookConfigurationName: setting({
    read: text,
    check: mustNotBeEmpty,
    default: 'spire-controller-manager-webhook',
    upstream: SAME,
    doc: 'the ValidatingWebhookConfiguration whose Services name the webhook\'s certificate and whose caBundles it keeps; see [webhook.md](webhook.md)',
  }),
  gcIntervalMs: setting({
    file: 'gcInterval',
    read: duration,
    // As upstream, which forces a non-positive interval to its default.
    interpret: (ms) => (ms > 0 ? ms : undefined),
    default: 10_000,
    upstream: SAME,
    doc:
      'a Go duration (`10s`, `1m30s`) or integer nanoseconds as upstream writes it; 0 or less is `10s`, as upstream. Upstream lists every SPIRE ' +
      'entry every `gcInterval`; ours checks them for drift made behind its back (a count, then `gcEntriesPerInterval` of them), lists them all ' +
      'only when it finds some, and repairs it within a bound of gcIntervals: [reliability.md](reliability.md#drift-on-the-spire-server). ' +
      'Kubernetes changes need no resync: they are followed as they come',
  }),
  gcEntriesPerInterval: setting({
    read: integer,
    check: (n) => (n >= 0 ? undefined : 'must be 0 (every entry) or positive'),
    default: GC_ENTRIES_PER_INTERVAL_DEFAULT,
    upstream: ours('(every entry)'),
    doc:
      "how many of SPIRE's entries each `gcInterval` lists (IDs and revisions, in pages of 1,000) to compare with what the controller holds, " +
      'after a CountEntries that finds entries deleted or added behind our back, or an emptied datastore, at once; `0` lists every entry ' +
      'whole every `gcInterval`, as upstream. An entry changed behind our back is repaired within about (entries ÷ this) gcIntervals: ' +
      '[reliability.md](reliability.md#drift-on-the-spire-server)',
  }),
  spireServerSocketPath: setting({ read: text, default: '/spire-server/api.sock', upstream: SAME, doc: '' }),
  spireServerAddress: setting({
    read: text,
    default: '',
    shown: 'unset: the admin socket',
    upstream: ours(),
    doc:
      'the SPIRE server\'s TCP (agent-facing) port, `host:port` (`spire-server.spire-server.svc:8081`, `[fd00::5]:8081`), dialed with SPIFFE mTLS ' +
      'from a Deployment of its own: [standalone.md](standalone.md). Refused beside a `spireServerSocketPath` the file sets',
  }),
  workloadAPISocketPath: setting({
    read: text,
    default: '',
    shown: '`SPIFFE_ENDPOINT_SOCKET`',
    upstream: ours(),
    doc:
      "the SPIRE agent's Workload API socket (`unix:///path` or `/path`), where the controller takes its X.509 SVID and the trust bundle; " +
      'used with `spireServerAddress` only',
  }),
  spireServerID: setting({
    read: text,
    default: '',
    shown: '`spiffe://<trustDomain>/spire/server`',
    upstream: ours(),
    doc: 'the SPIFFE ID the SPIRE server must present on `spireServerAddress`; used with it only',
  }),
  spireRpcTimeoutMs: setting({
    file: 'spireRpcTimeout',
    read: duration,
    check: mustBePositive,
    default: 30_000,
    upstream: ours('(no deadline)'),
    doc: 'deadline of every SPIRE call',
  }),
  relistIntervalMs: setting({
    file: 'relistInterval',
    read: duration,
    check: (ms) => (ms >= 0 ? undefined : 'must be 0 (never) or positive'),
    default: RELIST_INTERVAL_DEFAULT_MS,
    upstream: ours('(never)'),
    doc:
      'every informer lists afresh this long after its last list, whatever its watch says; `0` never. The one repair for an etcd restored ' +
      'without `--bump-revision` and `--mark-compacted`, whose new history the watches go on in, missing the restore; one relist at 100,000 pods ' +
      "costs 4 to 7 CPU-s of ours, 5 to 7 of the API server's, and 150 to 300 MiB for the seconds the old cache serves beside the new list: " +
      '[reliability.md](reliability.md#after-an-etcd-restore)',
  }),
  logLevel: setting({ read: emptyOr(lowercase(oneOf(LOG_LEVELS))), default: 'info', upstream: SAME, doc: logDoc }),
  logEncoding: setting({ read: emptyOr(oneOf(['console', 'json'])), default: 'console', upstream: SAME, doc: logDoc }),
  /** 0 leaves the client's own limit, 16 MiB (spire/client.ts). */
  grpcMaxCallRecvMsgSize: setting({
    file: 'grpc.maxCallRecvMsgSize',
    read: integer,
    default: 0,
    shown: '16 MiB',
    upstream: deliberatelyNot("gRPC's 4 MiB"),
    doc:
      "larger on purpose: an answer over 4 MiB (a page of 200 entries with many DNS names, a federated bundle with many authorities) fails upstream's " +
      'pass, and again on every retry; 16 MiB holds 200 entries of 80 KiB. A value you set is used as given',
  }),
  className: setting({ read: text, default: '', upstream: SAME, doc: selectionDoc }),
  watchClassless: setting({ read: trueOrFalse, default: false, upstream: SAME, doc: selectionDoc }),
  parentIDTemplate: setting({ read: text, default: DEFAULT_PARENT_ID_TEMPLATE, upstream: SAME, doc: '' }),
  reconcile: block(
    {
      clusterSPIFFEIDs: setting({
        read: trueOrFalse,
        default: true,
        upstream: upstreamShows('`true` (`false` with `staticManifestPath`)'),
        doc:
          'a `reconcile` block the file gives is taken verbatim, as upstream: a kind it omits is off. With `staticManifestPath`, ours reconciles ' +
          'ClusterSPIFFEIDs too, over the pods the files hold ([manifest mode](manifest-mode.md)), where upstream has no pods to read and refuses ' +
          '`clusterSPIFFEIDs: true`',
      }),
      clusterFederatedTrustDomains: setting({ read: trueOrFalse, default: true, upstream: SAME, doc: 'off if a given `reconcile` block omits it, as upstream' }),
      clusterStaticEntries: setting({ read: trueOrFalse, default: true, upstream: SAME, doc: 'off if a given `reconcile` block omits it, as upstream' }),
    },
    { verbatim: true },
  ),
  /** As configured (with upstream's `.` appended); unset means derived from clusterName (entries/ownership.ts). */
  entryIDPrefix: optionalSetting({
    read: text,
    interpret: withDot,
    shown: '`scm-<clusterName>.`',
    upstream: deliberatelyNot('none'),
    doc:
      "with upstream's default (no prefix) every entry on the SPIRE server is taken as its own, hand-made ones and other clusters' included, " +
      'and deleted when nothing declares it; the helm chart sets the cluster name. A configured prefix gets a `.` appended if it lacks one, ' +
      'as upstream (so `scm-` configured is `scm-.`). Entries of the earlier defaults stay ours while it is unset: see ' +
      '[upgrading from an earlier spire-reconciler](migration.md#upgrading-from-an-earlier-spire-reconciler) and ' +
      '[shared SPIRE servers](ownership.md#shared-spire-servers)',
  }),
  entryIDPrefixCleanup: optionalSetting({
    read: text,
    interpret: withDot,
    upstream: SAME,
    doc: 'see [ownership](ownership.md) and [migration](migration.md#entry-ids); `""` means server-generated IDs',
  }),
  entryScope: setting({ read: oneOf(['prefixed', 'all']), default: 'prefixed', upstream: ours(), doc: 'or `all`; see [ownership](ownership.md)' }),
  policy: setting({
    read: oneOf(['sync', 'upsert-only', 'create-only']),
    default: 'sync',
    upstream: ours(),
    doc: 'or `upsert-only` (never deletes), `create-only`',
  }),
  /**
   * `skip`: an entry whose federatesWith names a trust domain SPIRE has no
   * bundle for is set without it, and completed when the bundle appears.
   * `fail`: upstream's behaviour, the entry is refused until then.
   */
  federatesWithMissingBundle: setting({
    read: oneOf(['skip', 'fail']),
    default: 'skip',
    upstream: ours('(`fail`)'),
    doc: "or `fail` (upstream's behaviour); see [federation](federation.md#resilient-federateswith)",
  }),
  staticManifestPath: optionalSetting({ read: text, upstream: SAME, doc: manifestModeDoc }),
  expandEnvStaticManifests: setting({ read: trueOrFalse, default: false, upstream: SAME, doc: manifestModeDoc }),
  enableEntryRenderCache: noEffect({ why: renderCacheHasNoEffect, upstream: upstreamShows('`false`') }),
  entryRenderCacheSize: noEffect({ why: renderCacheHasNoEffect, upstream: upstreamShows('300000') }),
  syncPeriod: noEffect({
    why: 'it has no effect: every gcInterval a full pass reads every cached object, which is what a resync would trigger',
    read: duration,
    upstream: upstreamShows('`10h`'),
    doc: "It tunes controller-runtime's resync",
  }),
  leaderElection: block({
    leaderElect: setting({ read: trueOrFalse, default: false, upstream: SAME, doc: '' }),
    resourceLock: fileOnlyKey({ read: oneOf(['leases']), shown: '`leases`', upstream: SAME, doc: 'the only lock taken' }),
    resourceName: setting({
      read: text,
      default: 'spire-controller-manager-leader-election',
      upstream: deliberatelyNot('none'),
      doc:
        'upstream refuses `leaderElect: true` without a name (controller-runtime: `LeaderElectionID must be configured`); ours takes the Lease ' +
        'under this one. The chart names its Lease `<hash>.spiffe.io`',
    }),
    resourceNamespace: setting({
      read: text,
      default: '',
      shown: "the pod's namespace",
      upstream: SAME,
      doc: "outside a cluster ours uses the kubeconfig context's, else `default`; upstream refuses to start there",
    }),
    leaseDurationMs: setting({ file: 'leaseDuration', read: duration, default: 15_000, upstream: SAME, doc: '' }),
    renewDeadlineMs: setting({ file: 'renewDeadline', read: duration, default: 10_000, upstream: SAME, doc: '' }),
    retryPeriodMs: setting({ file: 'retryPeriod', read: duration, default: 2_000, upstream: SAME, doc: '' }),
  }),
  cacheNamespace: fileOnlyKey({
    read: text,
    shown: 'every namespace',
    upstream: SAME,
    doc: 'one namespace, as `cacheNamespaces` naming it alone; both set is an error, as upstream',
  }),
  /** `cacheNamespace` or `cacheNamespaces`: pods and endpoints are read from these namespaces only (see cache-scope.ts). */
  cacheNamespaces: optionalSetting({
    read: cacheNamespaces,
    interpret: unlessEmpty,
    shown: 'every namespace',
    upstream: SAME,
    doc:
      "as upstream's manager cache: pods and EndpointSlices/Endpoints are read only from these namespaces (a namespaced list and watch each, " +
      'which namespaced RBAC allows), each narrowed by its `labelSelectors` and (pods only) `fieldSelectors`; namespaces, nodes and our CRDs are ' +
      'read whole. Manifest mode filters the files\' objects the same way (field selectors on `metadata.name`, `metadata.namespace`, ' +
      '`spec.nodeName`, `spec.serviceAccountName`, `status.phase`; others are named in a warning)',
  }),
  clusterSPIFFEIDLabelSelector: optionalSetting({
    read: labelSet,
    interpret: unlessEmpty,
    shown: 'none',
    upstream: SAME,
    doc: `only ClusterSPIFFEIDs with these labels are read, ${classFilterDoc}`,
  }),
  filterByClassName: setting({
    read: trueOrFalse,
    default: false,
    upstream: SAME,
    doc: `adds \`spire.spiffe.io/class-name: <className>\` to \`clusterSPIFFEIDLabelSelector\` (and needs \`className\`), ${classFilterDoc}`,
  }),
  metricsBindAddress: setting({
    file: 'metrics.bindAddress',
    read: text,
    default: '',
    shown: 'none: no metrics server',
    upstream: deliberatelyNot("`:8080` (controller-runtime's)"),
    doc:
      "ours listens on no port the file does not name. In the SPIRE server's pod, 8080 is where the SPIRE helm chart (and SPIRE's Kubernetes " +
      "examples) put the SPIRE server's health checks: upstream's default there makes one of the two containers fail to start, and when ours " +
      'binds first it is the SPIRE server. Every config upstream ships sets it (the chart and the demo `0.0.0.0:8082`). Set it to serve metrics; ' +
      '`"0"` or `""` is off',
  }),
  healthProbeBindAddress: setting({
    file: 'health.healthProbeBindAddress',
    read: text,
    default: '',
    shown: 'none: no probes',
    upstream: SAME,
    doc:
      'as upstream (controller-runtime serves none for `""` or `"0"`). To have probes, set it: the helm chart and `deploy/configmap.yaml` set ' +
      "`0.0.0.0:8083`, and the pod's probes call `/healthz` and `/readyz` there ([observability.md](observability.md#health-probes)). " +
      "8081 is the SPIRE server's own agent port",
  }),
  readinessEndpointName: setting({ file: 'health.readinessEndpointName', read: text, default: '/readyz', upstream: SAME, doc: '' }),
  livenessEndpointName: setting({ file: 'health.livenessEndpointName', read: text, default: '/healthz', upstream: SAME, doc: '' }),
  'controller.groupKindConcurrency': noEffect({
    why: "it has no effect: one pass at a time reconciles everything (upstream's trigger controllers are what it tunes)",
    upstream: upstreamShows('1 per controller'),
  }),
  'controller.cacheSyncTimeout': noEffect({
    why: 'it has no effect: informers that cannot sync retry with backoff instead of stopping the process, and /readyz names them',
    read: duration,
    upstream: upstreamShows('`2m`'),
  }),
  'controller.recoverPanic': noEffect({ why: 'it has no effect', upstream: upstreamShows('parsed and ignored') }),
  gracefulShutDown: noEffect({ why: 'it has no effect', upstream: upstreamShows('`30s`'), doc: 'SIGTERM finishes the pass in flight' }),
  /** The admission webhook. */
  webhook: block({
    /** Off when ENABLE_WEBHOOKS is "false", as upstream. */
    enabled: computed(true),
    port: setting({
      read: integer,
      check: (port) => (port >= 1 && port <= 65535 ? undefined : `must be 1-65535, got ${port}`),
      default: 9443,
      upstream: upstreamShows('parsed and ignored: always 9443'),
      doc: 'we honour it. `ENABLE_WEBHOOKS=false` turns the webhook off, as upstream',
    }),
    host: setting({ read: text, default: '', shown: 'all addresses', upstream: upstreamShows('parsed and ignored'), doc: 'we honour it' }),
    /** With certDir, tls.crt and tls.key there (e.g. a cert-manager Secret) are served instead of an SVID minted from SPIRE. */
    certDir: optionalSetting({
      read: text,
      interpret: unlessEmpty,
      upstream: upstreamShows('parsed and ignored: its own certificate'),
      doc: 'we honour it: serve `tls.crt`/`tls.key` from there instead of an SVID',
    }),
  }),
  /** The webhook's TLS versions, suites and groups, from `tlsConfig`'s keys together (upstream v0.8.0; see tls-profile.ts). */
  webhookTls: computed(DEFAULT_WEBHOOK_TLS),
  'tlsConfig.minTLSVersion': fileOnlyKey({
    read: text,
    shown: '`VersionTLS12`',
    upstream: SAME,
    doc: "or `VersionTLS13`; `VersionTLS10`/`11` are refused, as upstream. The admission webhook's TLS; see [below](#tlsconfig)",
  }),
  'tlsConfig.cipherSuites': fileOnlyKey({ read: textList, shown: "Go's default TLS 1.2 suites", upstream: SAME, doc: "Go's names" }),
  'tlsConfig.curvePreferences': fileOnlyKey({ read: textList, shown: "Go's default groups", upstream: SAME, doc: 'IANA names' }),
};

/** The controller's settings, after defaults. Durations are in milliseconds. */
export type ControllerConfig = SettingsOf<typeof CONFIG_KEYS>;
