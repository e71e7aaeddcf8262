/**
 * The config file: spire-controller-manager's ControllerManagerConfig, read
 * as upstream reads it, with every problem in a file reported at once.
 *
 * Each key is one entry of CONFIG_KEYS (config-keys.ts), which gives the
 * settings' type (ControllerConfig), their defaults, the file's reader and
 * docs/configuration.md's table of keys. Adding a key is adding its entry
 * there, then `npm run docs:config` to redraw the docs' table (a test fails
 * until it agrees). What no one entry can say is here: the settings made
 * from the environment or from several keys together (setComputedSettings)
 * and the checks that relate keys to one another (checkSemantics).
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type { CachedNamespace } from './cache-scope.js';
import { CONFIG_KEYS, type ControllerConfig } from './config-keys.js';
import { anything, exactly, Problems } from './config-readers.js';
import { checkRequired, fileReader, type FileValues, settingsOf } from './config-table.js';
import { expandEnv } from './env.js';
import { errorMessage } from './errors.js';
import { IgnoredNamespaces } from './namespaces.js';
import { readTlsConfig, type TlsConfigFields } from './tls-profile.js';

export { CONFIG_KEYS, type ControllerConfig, DEFAULT_PARENT_ID_TEMPLATE, type LogLevel, RELIST_INTERVAL_DEFAULT_MS } from './config-keys.js';

export const CONFIG_API_VERSION = 'spire.spiffe.io/v1alpha1';
export const CONFIG_KIND = 'ControllerManagerConfig';

export function defaultConfig(): ControllerConfig {
  return settingsOf(CONFIG_KEYS);
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

/** The document's own fields, beside the keys: checked when given. */
const DOCUMENT_FIELDS = { apiVersion: exactly(CONFIG_API_VERSION), kind: exactly(CONFIG_KIND), metadata: anything };

const readConfigFile = fileReader(CONFIG_KEYS, DOCUMENT_FIELDS);

/** Reads a ControllerManagerConfig document, reporting every problem at once. */
export function parseConfig(text: string, source: string, opts: { expandEnv?: boolean; env?: Record<string, string | undefined> } = {}): LoadedConfig {
  const env = opts.env ?? process.env;
  const p = new Problems();
  const given = readConfigFile(parseYaml(text, source, opts.expandEnv ? env : undefined, p), '', p) ?? {};
  const config = settingsOf(CONFIG_KEYS, given);
  setComputedSettings(config, given, env, p);
  checkRequired(CONFIG_KEYS, config, p);
  checkSemantics(config, given, p);
  if (p.errors.length > 0) throw new ConfigError(source, p.errors, p.warnings);
  return { config, warnings: p.warnings, given: new Set(Object.keys(given)) };
}

/** The document as plain data, `$VAR`s expanded from `expandFrom` when given; a document that is not YAML is refused, naming the file. */
function parseYaml(text: string, source: string, expandFrom: Record<string, string | undefined> | undefined, p: Problems): unknown {
  const unset = new Set<string>();
  const expanded = expandFrom ? expandEnv(text, expandFrom, (name) => unset.add(name)) : text;
  const doc = parseDocument(expanded);
  if (doc.errors.length > 0) {
    throw new ConfigError(source, doc.errors.map((e) => `YAML: ${e.message.split('\n')[0]}`));
  }
  for (const name of unset) p.warnings.push(`$${name} is not set: --expand-env replaced it with ""`);
  return doc.toJS() ?? {};
}

/** Sets what no one key's entry makes: the settings from the environment, or from several keys together. */
function setComputedSettings(c: ControllerConfig, given: FileValues, env: Record<string, string | undefined>, p: Problems): void {
  // Upstream's switch: anything but "false" leaves the webhook on.
  if (env.ENABLE_WEBHOOKS === 'false') c.webhook.enabled = false;
  // cacheNamespace caches one namespace (empty: every one, as upstream's loader); checkSemantics refuses it beside cacheNamespaces.
  if (given.cacheNamespace) c.cacheNamespaces = [{ namespace: given.cacheNamespace as string }];
  const tls = given.tlsConfig as TlsConfigFields | undefined;
  if (tls) {
    const read = readTlsConfig(tls);
    c.webhookTls = read.profile;
    p.errors.push(...read.errors);
    p.warnings.push(...read.warnings);
  }
}

/** The checks that relate keys to one another; each key's own are in its entry. */
function checkSemantics(c: ControllerConfig, given: FileValues, p: Problems): void {
  if (c.entryIDPrefix && c.entryIDPrefix === c.entryIDPrefixCleanup) p.errors.push('entryIDPrefixCleanup: must differ from entryIDPrefix');
  if (given.cacheNamespace && (given.cacheNamespaces as CachedNamespace[] | undefined)?.length) {
    p.errors.push('cacheNamespace: cacheNamespace or cacheNamespaces can be used, but not both');
  }
  if (c.filterByClassName && !c.className) p.errors.push('filterByClassName: requires className to be set');
  checkSpireServerTarget(c, given, p);
}

/**
 * The SPIRE server is reached one way: its admin socket (beside it in its
 * pod) or its TCP port (from a pod of its own, with SPIFFE mTLS). A config
 * naming both is refused rather than one silently winning.
 */
function checkSpireServerTarget(c: ControllerConfig, given: FileValues, p: Problems): void {
  const socketGiven = typeof given.spireServerSocketPath === 'string' && given.spireServerSocketPath !== '';
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
