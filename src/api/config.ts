import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { expandEnv } from './env.js';
import { errorMessage } from './errors.js';
import { globLikeWarning, IgnoredNamespaces, IgnoreNamespacesError } from './namespaces.js';
import type { CachedNamespace } from './cache-scope.js';
import { anything, cacheNamespaces, duration, integer, labelSet, mapping, oneOf, Problems, type Reader, text as readText, textList, trueOrFalse } from './config-readers.js';
import { DEFAULT_WEBHOOK_TLS, readTlsConfig, type TlsConfigFields, type WebhookTlsProfile } from './tls-profile.js';

export const CONFIG_API_VERSION = 'spire.spiffe.io/v1alpha1';
export const CONFIG_KIND = 'ControllerManagerConfig';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The controller's settings, after defaults. Durations are in milliseconds. */
export interface ControllerConfig {
  trustDomain: string;
  clusterName: string;
  /** '' means auto-detect (live mode). */
  clusterDomain: string;
  /** Go regular expressions, each matched anywhere in a namespace's name (see namespaces.ts). */
  ignoreNamespaces: string[];
  validatingWebhookConfigurationName: string;
  gcIntervalMs: number;
  spireServerSocketPath: string;
  /**
   * Ours: the SPIRE server's TCP (agent-facing) port, "host:port", dialed with
   * SPIFFE mTLS instead of the admin socket (the standalone layout,
   * docs/standalone.md); '' means the socket.
   */
  spireServerAddress: string;
  /** Ours: the SPIRE agent's Workload API socket, where the controller takes its SVID; '' means SPIFFE_ENDPOINT_SOCKET. */
  workloadAPISocketPath: string;
  /** Ours: the SPIFFE ID the SPIRE server must present; '' means spiffe://<trustDomain>/spire/server. */
  spireServerID: string;
  /** Ours: deadline of every SPIRE RPC. */
  spireRpcTimeoutMs: number;
  /**
   * Ours: every informer lists afresh this long after its last list, whatever
   * its watch says (docs/reliability.md, "After an etcd restore"); 0: never.
   */
  relistIntervalMs: number;
  /** '' (written so by OpenShift's operator) means unset: the zap flags or the default decide. */
  logLevel: LogLevel | '';
  logEncoding: 'console' | 'json' | '';
  /** 0 leaves the client default. */
  grpcMaxCallRecvMsgSize: number;
  className: string;
  watchClassless: boolean;
  parentIDTemplate: string;
  reconcile: { clusterSPIFFEIDs: boolean; clusterFederatedTrustDomains: boolean; clusterStaticEntries: boolean };
  /** As configured (with upstream's `.` appended); unset means derived from clusterName (entries/ownership.ts). */
  entryIDPrefix?: string;
  entryIDPrefixCleanup?: string;
  /** Ours. */
  entryScope: 'prefixed' | 'all';
  /** Ours. */
  policy: 'sync' | 'upsert-only' | 'create-only';
  /**
   * Ours. `skip`: an entry whose federatesWith names a trust domain SPIRE has
   * no bundle for is set without it, and completed when the bundle appears.
   * `fail`: upstream's behaviour, the entry is refused until then.
   */
  federatesWithMissingBundle: 'skip' | 'fail';
  staticManifestPath?: string;
  expandEnvStaticManifests: boolean;
  leaderElection: {
    leaderElect: boolean;
    resourceName: string;
    resourceNamespace: string;
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
  };
  metricsBindAddress: string;
  /**
   * The admission webhook. Upstream parses port, host and certDir but ignores
   * them (always 9443, its own certificate); we honour them. With certDir,
   * tls.crt and tls.key there (e.g. a cert-manager Secret) are served instead
   * of an SVID minted from SPIRE.
   */
  webhook: { enabled: boolean; port: number; host: string; certDir?: string };
  /** The webhook's TLS versions, suites and groups (`tlsConfig`, upstream v0.8.0; see tls-profile.ts). */
  webhookTls: WebhookTlsProfile;
  healthProbeBindAddress: string;
  readinessEndpointName: string;
  livenessEndpointName: string;
  /** `cacheNamespace` or `cacheNamespaces`: pods and endpoints are read from these namespaces only (see cache-scope.ts). */
  cacheNamespaces?: CachedNamespace[];
  /** ClusterSPIFFEIDs are read with these labels only. */
  clusterSPIFFEIDLabelSelector?: Record<string, string>;
  /** Adds `spire.spiffe.io/class-name: <className>` to clusterSPIFFEIDLabelSelector. */
  filterByClassName: boolean;
}

/**
 * relistInterval's default, an hour: how long a cache may stay wrong after an
 * etcd restore made without --bump-revision and --mark-compacted, against
 * what a relist of every informer costs (at 100,000 pods 4 to 7 CPU-s of
 * ours, 5 to 7 of the API server's, and 150 to 300 MiB for the seconds the old
 * cache serves beside the new list: docs/reliability.md, "After an etcd
 * restore", has the figures). Hourly, that is under 0.2% of a core.
 */
export const RELIST_INTERVAL_DEFAULT_MS = 3_600_000;

/** Upstream's default parentIDTemplate: the agent k8s_psat attests on the pod's node. */
export const DEFAULT_PARENT_ID_TEMPLATE = 'spiffe://{{ .TrustDomain }}/spire/agent/k8s_psat/{{ .ClusterName }}/{{ .NodeMeta.UID }}';

export function defaultConfig(): ControllerConfig {
  return {
    trustDomain: '',
    clusterName: '',
    clusterDomain: '',
    ignoreNamespaces: ['kube-system', 'kube-public', 'spire-system'],
    validatingWebhookConfigurationName: 'spire-controller-manager-webhook',
    gcIntervalMs: 10_000,
    spireServerSocketPath: '/spire-server/api.sock',
    spireServerAddress: '',
    workloadAPISocketPath: '',
    spireServerID: '',
    spireRpcTimeoutMs: 30_000,
    relistIntervalMs: RELIST_INTERVAL_DEFAULT_MS,
    logLevel: 'info',
    logEncoding: 'console',
    grpcMaxCallRecvMsgSize: 0,
    className: '',
    watchClassless: false,
    parentIDTemplate: DEFAULT_PARENT_ID_TEMPLATE,
    reconcile: { clusterSPIFFEIDs: true, clusterFederatedTrustDomains: true, clusterStaticEntries: true },
    entryScope: 'prefixed',
    policy: 'sync',
    federatesWithMissingBundle: 'skip',
    expandEnvStaticManifests: false,
    leaderElection: {
      leaderElect: false,
      resourceName: 'spire-controller-manager-leader-election',
      resourceNamespace: '',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    },
    // Upstream's is controller-runtime's ":8080". Ours serves on no port the config does not
    // name: in the SPIRE server's pod, 8080 is where the SPIRE helm chart puts the SPIRE
    // server's health checks, and a port taken from it stops it (docs/configuration.md).
    metricsBindAddress: '',
    webhook: { enabled: true, port: 9443, host: '' },
    webhookTls: DEFAULT_WEBHOOK_TLS,
    // As upstream: no probes unless healthProbeBindAddress is set (controller-runtime
    // serves none for ""). 8081 is the SPIRE server's own agent port.
    healthProbeBindAddress: '',
    readinessEndpointName: '/readyz',
    livenessEndpointName: '/healthz',
    filterByClassName: false,
  };
}

export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
    /** Warnings found beside the errors (unknown fields, unset variables): worth showing too. */
    readonly warnings: string[] = [],
  ) {
    super(`${source}: ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  config: ControllerConfig;
  /** Unknown fields (possible typos) and fields accepted only for compatibility. */
  warnings: string[];
  /** The top-level fields the file gave (valid ones), for settings whose flag yields to the file. */
  given: ReadonlySet<string>;
}

/** Accepted and ignored, as upstream ignores it; said once so nobody expects an effect. */
function ignored(why: string): Reader<unknown> {
  return (_v, field, p) => {
    p.warnings.push(`${field}: accepted for compatibility, ${why}`);
    return undefined;
  };
}

/** Reads a ControllerManagerConfig document, reporting every problem at once. */
export function parseConfig(text: string, source: string, opts: { expandEnv?: boolean; env?: Record<string, string | undefined> } = {}): LoadedConfig {
  const env = opts.env ?? process.env;
  const unset = new Set<string>();
  const expanded = opts.expandEnv ? expandEnv(text, env, (name) => unset.add(name)) : text;
  const doc = parseDocument(expanded);
  if (doc.errors.length > 0) {
    throw new ConfigError(source, doc.errors.map((e) => `YAML: ${e.message.split('\n')[0]}`));
  }
  const raw: unknown = doc.toJS() ?? {};
  const p = new Problems();
  for (const name of unset) p.warnings.push(`$${name} is not set: --expand-env replaced it with ""`);
  const read = mapping({
    apiVersion: readText,
    kind: readText,
    metadata: anything,
    trustDomain: readText,
    clusterName: readText,
    clusterDomain: readText,
    ignoreNamespaces: textList,
    validatingWebhookConfigurationName: readText,
    gcInterval: duration,
    spireServerSocketPath: readText,
    spireServerAddress: readText,
    workloadAPISocketPath: readText,
    spireServerID: readText,
    spireRpcTimeout: duration,
    relistInterval: duration,
    // Upstream accepts an empty value as unset (its logger then keeps the zap flags' settings).
    logLevel: (v, f, p) => (v === '' ? '' : oneOf(['debug', 'info', 'warn', 'error'])(typeof v === 'string' ? v.toLowerCase() : v, f, p)),
    logEncoding: (v, f, p) => (v === '' ? '' : oneOf(['console', 'json'])(v, f, p)),
    grpc: mapping({ maxCallRecvMsgSize: integer }),
    className: readText,
    watchClassless: trueOrFalse,
    parentIDTemplate: readText,
    reconcile: mapping({ clusterSPIFFEIDs: trueOrFalse, clusterFederatedTrustDomains: trueOrFalse, clusterStaticEntries: trueOrFalse }),
    entryIDPrefix: readText,
    entryIDPrefixCleanup: readText,
    entryScope: oneOf(['prefixed', 'all']),
    policy: oneOf(['sync', 'upsert-only', 'create-only']),
    federatesWithMissingBundle: oneOf(['skip', 'fail']),
    staticManifestPath: readText,
    expandEnvStaticManifests: trueOrFalse,
    enableEntryRenderCache: ignored('rendering is incremental and cached already'),
    entryRenderCacheSize: ignored('rendering is incremental and cached already'),
    syncPeriod: (v, f, p) => (duration(v, f, p) === undefined ? undefined : ignored('it has no effect: every gcInterval a full pass reads every cached object, which is what a resync would trigger')(v, f, p)),
    leaderElection: mapping({
      leaderElect: trueOrFalse,
      resourceLock: oneOf(['leases']),
      resourceName: readText,
      resourceNamespace: readText,
      leaseDuration: duration,
      renewDeadline: duration,
      retryPeriod: duration,
    }),
    cacheNamespace: readText,
    cacheNamespaces: cacheNamespaces,
    clusterSPIFFEIDLabelSelector: labelSet,
    filterByClassName: trueOrFalse,
    metrics: mapping({ bindAddress: readText }),
    health: mapping({ healthProbeBindAddress: readText, readinessEndpointName: readText, livenessEndpointName: readText }),
    controller: mapping({
      groupKindConcurrency: ignored('it has no effect: one pass at a time reconciles everything (upstream\'s trigger controllers are what it tunes)'),
      cacheSyncTimeout: (v, f, p) =>
        duration(v, f, p) === undefined ? undefined : ignored('it has no effect: informers that cannot sync retry with backoff instead of stopping the process, and /readyz names them')(v, f, p),
      recoverPanic: ignored('it has no effect'),
    }),
    gracefulShutDown: ignored('it has no effect'),
    webhook: mapping({ port: integer, host: readText, certDir: readText }),
    tlsConfig: mapping({ minTLSVersion: readText, cipherSuites: textList, curvePreferences: textList }),
  });
  const o = (read(raw, '', p) ?? {}) as Record<string, never>;
  const config = applyFields(o, p);
  // Upstream's switch: anything but "false" leaves the webhook on.
  if (env.ENABLE_WEBHOOKS === 'false') config.webhook.enabled = false;
  checkSemantics(config, o, p);
  if (p.errors.length > 0) throw new ConfigError(source, p.errors, p.warnings);
  return { config, warnings: p.warnings, given: new Set(Object.keys(o)) };
}

function applyFields(o: Record<string, never>, p: Problems): ControllerConfig {
  const c = defaultConfig();
  const set = <K extends keyof ControllerConfig>(key: K, value: ControllerConfig[K] | undefined) => {
    if (value !== undefined) c[key] = value;
  };
  if (o.apiVersion !== undefined && o.apiVersion !== CONFIG_API_VERSION) p.errors.push(`apiVersion: must be ${CONFIG_API_VERSION}, got "${o.apiVersion}"`);
  if (o.kind !== undefined && o.kind !== CONFIG_KIND) p.errors.push(`kind: must be ${CONFIG_KIND}, got "${o.kind}"`);
  for (const k of [
    'trustDomain',
    'clusterName',
    'clusterDomain',
    'ignoreNamespaces',
    'validatingWebhookConfigurationName',
    'spireServerSocketPath',
    'spireServerAddress',
    'workloadAPISocketPath',
    'spireServerID',
    'logLevel',
    'logEncoding',
    'className',
    'watchClassless',
    'parentIDTemplate',
    'entryIDPrefixCleanup',
    'entryScope',
    'policy',
    'federatesWithMissingBundle',
    'staticManifestPath',
    'expandEnvStaticManifests',
  ] as const) {
    set(k, o[k]);
  }
  // Upstream forces a non-positive interval to its 10 s default.
  const gc = o.gcInterval as number | undefined;
  if (gc !== undefined && gc > 0) c.gcIntervalMs = gc;
  set('spireRpcTimeoutMs', o.spireRpcTimeout);
  set('relistIntervalMs', o.relistInterval);
  const grpc = o.grpc as { maxCallRecvMsgSize?: number } | undefined;
  set('grpcMaxCallRecvMsgSize', grpc?.maxCallRecvMsgSize);
  // Upstream: an absent reconcile block enables everything; a present one is taken verbatim.
  const rec = o.reconcile as Partial<ControllerConfig['reconcile']> | undefined;
  if (rec) {
    c.reconcile = { clusterSPIFFEIDs: rec.clusterSPIFFEIDs ?? false, clusterFederatedTrustDomains: rec.clusterFederatedTrustDomains ?? false, clusterStaticEntries: rec.clusterStaticEntries ?? false };
  }
  // Upstream appends "." to a prefix that lacks one; keep that so its IDs stay ours.
  const prefix = o.entryIDPrefix as string | undefined;
  if (prefix !== undefined) c.entryIDPrefix = withDot(prefix);
  if (c.entryIDPrefixCleanup !== undefined) c.entryIDPrefixCleanup = withDot(c.entryIDPrefixCleanup);
  const le = o.leaderElection as Record<string, never> | undefined;
  if (le) {
    c.leaderElection = {
      leaderElect: le.leaderElect ?? c.leaderElection.leaderElect,
      resourceName: le.resourceName ?? c.leaderElection.resourceName,
      resourceNamespace: le.resourceNamespace ?? c.leaderElection.resourceNamespace,
      leaseDurationMs: le.leaseDuration ?? c.leaderElection.leaseDurationMs,
      renewDeadlineMs: le.renewDeadline ?? c.leaderElection.renewDeadlineMs,
      retryPeriodMs: le.retryPeriod ?? c.leaderElection.retryPeriodMs,
    };
  }
  const webhook = o.webhook as { port?: number; host?: string; certDir?: string } | undefined;
  if (webhook) {
    c.webhook = {
      ...c.webhook,
      ...(webhook.port !== undefined ? { port: webhook.port } : {}),
      ...(webhook.host !== undefined ? { host: webhook.host } : {}),
      ...(webhook.certDir ? { certDir: webhook.certDir } : {}),
    };
  }
  const metrics = o.metrics as { bindAddress?: string } | undefined;
  set('metricsBindAddress', metrics?.bindAddress);
  const health = o.health as Record<string, string | undefined> | undefined;
  set('healthProbeBindAddress', health?.healthProbeBindAddress);
  set('readinessEndpointName', health?.readinessEndpointName);
  set('livenessEndpointName', health?.livenessEndpointName);
  // As upstream's loader: an empty cacheNamespace or cacheNamespaces means every namespace.
  const single = o.cacheNamespace as string | undefined;
  const several = o.cacheNamespaces as CachedNamespace[] | undefined;
  if (single) c.cacheNamespaces = [{ namespace: single }];
  else if (several && several.length > 0) c.cacheNamespaces = several;
  const csidLabels = o.clusterSPIFFEIDLabelSelector as Record<string, string> | undefined;
  if (csidLabels && Object.keys(csidLabels).length > 0) c.clusterSPIFFEIDLabelSelector = csidLabels;
  set('filterByClassName', o.filterByClassName);
  const tls = o.tlsConfig as TlsConfigFields | undefined;
  if (tls) {
    const read = readTlsConfig(tls);
    c.webhookTls = read.profile;
    p.errors.push(...read.errors);
    p.warnings.push(...read.warnings);
  }
  return c;
}

function withDot(v: string): string {
  return v !== '' && !v.endsWith('.') ? `${v}.` : v;
}

const TRUST_DOMAIN = /^[a-z0-9._-]+$/;

function checkSemantics(c: ControllerConfig, o: Record<string, never>, p: Problems): void {
  if (!c.trustDomain) p.errors.push('trustDomain: is required');
  else if (!TRUST_DOMAIN.test(c.trustDomain)) {
    p.errors.push('trustDomain: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores');
  }
  if (!c.clusterName) p.errors.push('clusterName: is required');
  try {
    IgnoredNamespaces.compile(c.ignoreNamespaces);
  } catch (err) {
    if (!(err instanceof IgnoreNamespacesError)) throw err;
    for (const problem of err.problems) p.errors.push(`ignoreNamespaces[${problem.index}]: ${problem.message}`);
  }
  c.ignoreNamespaces.forEach((pattern, i) => {
    const warning = globLikeWarning(pattern);
    if (warning) p.warnings.push(`ignoreNamespaces[${i}]: ${warning}`);
  });
  if (!c.validatingWebhookConfigurationName) p.errors.push('validatingWebhookConfigurationName: must not be empty');
  if (o.entryIDPrefix !== undefined && c.entryIDPrefixCleanup !== undefined && c.entryIDPrefix !== '' && c.entryIDPrefix === c.entryIDPrefixCleanup) {
    p.errors.push('entryIDPrefixCleanup: must differ from entryIDPrefix');
  }
  if (o.cacheNamespace && (o.cacheNamespaces as CachedNamespace[] | undefined)?.length) p.errors.push('cacheNamespace: cacheNamespace or cacheNamespaces can be used, but not both');
  if (o.filterByClassName === true && !c.className) p.errors.push('filterByClassName: requires className to be set');
  if (c.spireRpcTimeoutMs <= 0) p.errors.push('spireRpcTimeout: must be positive');
  if (c.relistIntervalMs < 0) p.errors.push('relistInterval: must be 0 (never) or positive');
  if (c.webhook.port < 1 || c.webhook.port > 65535) p.errors.push(`webhook.port: must be 1-65535, got ${c.webhook.port}`);
  checkSpireServerTarget(c, o, p);
}

/**
 * The SPIRE server is reached one way: its admin socket (beside it in its
 * pod) or its TCP port (from a pod of its own, with SPIFFE mTLS). A config
 * naming both is refused rather than one silently winning.
 */
function checkSpireServerTarget(c: ControllerConfig, o: Record<string, never>, p: Problems): void {
  const socketGiven = typeof o.spireServerSocketPath === 'string' && o.spireServerSocketPath !== '';
  if (c.spireServerAddress) {
    if (socketGiven) {
      p.errors.push(
        'spireServerAddress: set spireServerSocketPath (the admin socket, in the SPIRE server\'s pod) or spireServerAddress (its TCP port over SPIFFE mTLS, from a pod of its own), not both',
      );
    }
    const problem = hostPortProblem(c.spireServerAddress);
    if (problem) p.errors.push(`spireServerAddress: ${problem}`);
  } else {
    if (c.workloadAPISocketPath) p.warnings.push('workloadAPISocketPath: has no effect without spireServerAddress (the admin socket needs no SVID)');
    if (c.spireServerID) p.warnings.push('spireServerID: has no effect without spireServerAddress (the admin socket is not authenticated)');
  }
  if (c.workloadAPISocketPath) {
    const path = c.workloadAPISocketPath.replace(/^unix:(\/\/)?/, '');
    if (!path.startsWith('/')) p.errors.push(`workloadAPISocketPath: must be an absolute path or unix:///absolute/path, got "${c.workloadAPISocketPath}"`);
  }
  if (c.spireServerID && c.trustDomain && !c.spireServerID.startsWith(`spiffe://${c.trustDomain}/`)) {
    p.errors.push(`spireServerID: must be a SPIFFE ID in trust domain ${c.trustDomain} (spiffe://${c.trustDomain}/...), got "${c.spireServerID}"`);
  }
}

/** Why "host:port" is not a dialable address, or undefined. A bare IPv6 address is written in brackets, as Go's net.Dial takes it. */
export function hostPortProblem(address: string): string | undefined {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]\s/]+):(\d+)$/.exec(address);
  if (!m) return `must be host:port (e.g. spire-server.spire-server.svc:8081, or [::1]:8081), got "${address}"`;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return `port must be 1-65535, got ${m[2]}`;
  return undefined;
}

export function loadConfigFile(path: string, opts: { expandEnv?: boolean; env?: Record<string, string | undefined> } = {}): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(path, [`cannot read: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`]);
  }
  return parseConfig(text, path, opts);
}

/** ignoreNamespaces compiled as upstream compiles them (Go RE2, matched anywhere in the name); the config was checked when loaded. */
export function ignoredNamespaces(c: ControllerConfig): IgnoredNamespaces {
  return IgnoredNamespaces.compile(c.ignoreNamespaces);
}
