import type { Command } from 'commander';
import {
  ConfigError,
  type ControllerConfig,
  defaultConfig,
  hostPortProblem,
  ignoredNamespaces,
  loadConfigFile,
} from '../api/index.js';
import { type EntryPassOptions, type Ownership, ownershipFromConfig } from '../entries/index.js';
import { TEMPLATE_NAMES, compileTemplate } from '../template/index.js';
import { CliError } from './exit.js';
import { requirePaths } from './paths.js';
import { errorMessage } from '../api/errors.js';

export interface ConfigFlags {
  config?: string;
  expandEnv?: boolean;
  trustDomain?: string;
  clusterName?: string;
  clusterDomain?: string;
  socket?: string;
  /** Over spireServerAddress: the SPIRE server's TCP port, over SPIFFE mTLS. */
  spireServerAddress?: string;
  /** Over workloadAPISocketPath. */
  workloadApiSocket?: string;
  /** Upstream's deprecated flag: the socket when the config file gives none. */
  spireApiSocket?: string;
}

export interface LoadedContext {
  config: ControllerConfig;
  /** Lines to log at start: the config file's warnings (each naming the file) and the flags'. */
  warnings: string[];
}

/**
 * The config file, then flags over it. Without a file, the flags must give
 * what a file would (trust domain and cluster name).
 */
export function loadContext(flags: ConfigFlags): LoadedContext {
  let config = defaultConfig();
  const warnings: string[] = [];
  let given: ReadonlySet<string> = new Set();
  if (flags.config) {
    requirePaths('--config', flags.config);
    try {
      const loaded = loadConfigFile(flags.config, { expandEnv: flags.expandEnv ?? false });
      config = loaded.config;
      given = loaded.given;
      warnings.push(...loaded.warnings.map((w) => `${flags.config}: ${w}`));
    } catch (err) {
      if (err instanceof ConfigError) throw new CliError([err.message, ...err.warnings.map((w) => `  warning: ${w}`)].join('\n'));
      throw err;
    }
    // passOptions compiles it again, but only here is the file known to name.
    try {
      compileTemplate(config.parentIDTemplate, TEMPLATE_NAMES.parentID);
    } catch (err) {
      throw new CliError(`${flags.config}: parentIDTemplate: ${errorMessage(err)}`);
    }
  }
  if (flags.trustDomain) config.trustDomain = flags.trustDomain;
  if (flags.clusterName) config.clusterName = flags.clusterName;
  if (flags.clusterDomain !== undefined) config.clusterDomain = flags.clusterDomain;
  if (flags.spireApiSocket) {
    // As upstream: the file's spireServerSocketPath wins; the flag fills in only where the file gives none.
    if (given.has('spireServerSocketPath') && config.spireServerSocketPath !== '') {
      warnings.push('ignoring the deprecated --spire-api-socket flag: the config file sets spireServerSocketPath');
    } else {
      config.spireServerSocketPath = flags.spireApiSocket;
      warnings.push('--spire-api-socket is deprecated (as upstream): set spireServerSocketPath in the config file');
    }
  }
  if (config.spireServerSocketPath === '') config.spireServerSocketPath = defaultConfig().spireServerSocketPath;
  if (flags.socket) config.spireServerSocketPath = flags.socket;
  applySpireTargetFlags(config, flags);
  if (!config.trustDomain) throw new CliError('no trust domain: give --config FILE or --trust-domain');
  if (!config.clusterName) throw new CliError('no cluster name: give --config FILE or --cluster-name');
  return { config, warnings };
}

/**
 * --spire-server-address and --workload-api-socket over the file, checked as
 * the file's keys are; the admin socket and an address are one or the other.
 */
function applySpireTargetFlags(config: ControllerConfig, flags: ConfigFlags): void {
  if (flags.spireServerAddress !== undefined) {
    const problem = hostPortProblem(flags.spireServerAddress);
    if (problem) throw new CliError(`--spire-server-address: ${problem}`);
    config.spireServerAddress = flags.spireServerAddress;
  }
  if (flags.workloadApiSocket !== undefined) {
    if (!flags.workloadApiSocket.replace(/^unix:(\/\/)?/, '').startsWith('/')) throw new CliError(`--workload-api-socket: must be an absolute path or unix:///absolute/path, got "${flags.workloadApiSocket}"`);
    config.workloadAPISocketPath = flags.workloadApiSocket;
  }
  if (flags.socket && config.spireServerAddress) {
    throw new CliError('--socket names the SPIRE admin socket and spireServerAddress (or --spire-server-address) its TCP port: give one of them');
  }
}

/** The options that say how to reach the SPIRE server: its admin socket, or its TCP port with an SVID from the agent. */
export function addSpireTargetOptions(cmd: Command): Command {
  return cmd
    .option('--socket <path>', 'SPIRE server API socket (overrides spireServerSocketPath)')
    .option('--spire-server-address <host:port>', "the SPIRE server's TCP port, over SPIFFE mTLS with an SVID from the agent (overrides spireServerAddress; docs/standalone.md)")
    .option('--workload-api-socket <path>', "the SPIRE agent's Workload API socket, with --spire-server-address (overrides workloadAPISocketPath; default SPIFFE_ENDPOINT_SOCKET)");
}

/** The engine's options, derived from the config once per command. */
export function passOptions(config: ControllerConfig): EntryPassOptions {
  let parentIdTemplate;
  try {
    parentIdTemplate = compileTemplate(config.parentIDTemplate, TEMPLATE_NAMES.parentID);
  } catch (err) {
    throw new CliError(`parentIDTemplate: ${errorMessage(err)}`);
  }
  let ownership: Ownership;
  try {
    ownership = ownershipFromConfig(config, parentIdTemplate);
  } catch (err) {
    throw new CliError(errorMessage(err));
  }
  return {
    settings: {
      trustDomain: config.trustDomain,
      clusterName: config.clusterName,
      clusterDomain: config.clusterDomain,
      parentIdTemplate,
      ignoreNamespaces: ignoredNamespaces(config),
      className: config.className,
      watchClassless: config.watchClassless,
    },
    ownership,
    policy: config.policy,
    federatesWithMissingBundle: config.federatesWithMissingBundle,
  };
}

/** The options of every command that reads a config: the file, env expansion, and the three overrides. */
export function addConfigOptions(cmd: Command): Command {
  return cmd
    .option('--config <file>', 'ControllerManagerConfig YAML (spire-controller-manager format)')
    .option('--expand-env', 'expand $VAR and ${VAR} in the config file, as upstream --expand-env')
    .option('--trust-domain <name>', 'override trustDomain')
    .option('--cluster-name <name>', 'override clusterName')
    .option('--cluster-domain <domain>', 'override clusterDomain');
}

/** Which objects this controller reads by class, in words. */
export function describeClassRule(config: Pick<ControllerConfig, 'className' | 'watchClassless'>): string {
  return config.className ? `className "${config.className}"${config.watchClassless ? ' and classless objects' : ''}` : 'classless objects only';
}
