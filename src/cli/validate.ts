import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError, loadConfigFile, parseConfig } from '../api/index.js';
import { formatProblem, loadManifests } from '../manifests/index.js';
import { checkManifestObjects } from '../webhook/checks.js';
import { Exit } from './exit.js';

const CONFIG_KIND = /^kind:\s*ControllerManagerConfig\s*$/m;

/**
 * Checks config files and manifests: YAML syntax, the CRD schemas, and the
 * admission webhook's checks, which are the reconcile's (templates,
 * selectors, IDs, durations, federation fields), so what validate passes the
 * webhook admits. With a trust domain, the checks against it too (a literal
 * trust domain in a SPIFFE ID template, federating with our own). With
 * expandEnv, $VAR and ${VAR} in ControllerManagerConfig files are expanded
 * first, as `run --expand-env` reads its config. One line per problem.
 */
export async function validatePaths(paths: string[], opts: { trustDomain?: string; expandEnv?: boolean } = {}): Promise<{ lines: string[]; errors: number }> {
  const lines: string[] = [];
  let errors = 0;
  const error = (line: string) => {
    lines.push(line);
    errors++;
  };
  const all = await loadManifests(paths);
  for (const p of all.problems) {
    if (p.severity === 'warning') lines.push(`warning: ${formatProblem(p)}`);
    else error(formatProblem(p));
  }
  for (const file of all.files) {
    // Config files hold no object of our kinds, so reading them here costs no second parse of a manifest.
    const text = readFileSync(file, 'utf8');
    if (!CONFIG_KIND.test(text)) continue;
    try {
      const { warnings } = parseConfig(text, file, { expandEnv: opts.expandEnv ?? false });
      for (const w of warnings) lines.push(`warning: ${file}: ${w}`);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      for (const p of err.problems) error(`${file}: ControllerManagerConfig: ${p}`);
    }
  }
  for (const p of checkManifestObjects(all, opts.trustDomain)) error(formatProblem(p));
  return { lines, errors };
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check manifests and config files; one line per problem (file, kind/name, field, reason); exit 1 if any')
    .argument('<paths...>', 'files or directories (read recursively)')
    .option('--config <file>', 'a ControllerManagerConfig to validate too; its trustDomain is used as --trust-domain')
    .option('--expand-env', 'expand $VAR and ${VAR} in ControllerManagerConfig files (--config and any among the paths), as run --expand-env does')
    .option('--trust-domain <name>', 'the SPIRE server\'s trust domain: bare-path static entry IDs resolve against it, and SPIFFE ID templates fixed to another one or ClusterFederatedTrustDomains for it are refused, as the webhook refuses them')
    .action(async (paths: string[], flags: { config?: string; expandEnv?: boolean; trustDomain?: string }) => {
      const expandEnv = flags.expandEnv ?? false;
      let trustDomain = flags.trustDomain;
      if (flags.config) {
        paths = [flags.config, ...paths];
        try {
          trustDomain ??= loadConfigFile(flags.config, { expandEnv }).config.trustDomain;
        } catch {
          // Reported below, with the config's other problems, as a validation finding.
        }
      }
      const { lines, errors } = await validatePaths(paths, { expandEnv, ...(trustDomain ? { trustDomain } : {}) });
      for (const l of lines) console.log(l);
      if (errors === 0) console.log(`ok: ${paths.join(', ')}`);
      process.exitCode = errors > 0 ? Exit.itemsFailed : Exit.ok;
    });
}
