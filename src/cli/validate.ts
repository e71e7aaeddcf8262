import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError, loadConfigFile, parseConfig } from '../api/index.js';
import { parseClusterSPIFFEID, renderStaticEntry } from '../entries/index.js';
import { validateFederatedTrustDomain } from '../federation/validate.js';
import { formatProblem, loadManifests } from '../manifests/index.js';
import { Exit } from './exit.js';

const CONFIG_KIND = /^kind:\s*ControllerManagerConfig\s*$/m;

/**
 * Checks config files and manifests: YAML syntax, the CRD schemas, and the
 * same semantic checks the reconcile makes (templates, selectors, IDs,
 * durations, federation fields). One line per problem.
 */
export async function validatePaths(paths: string[], opts: { trustDomain?: string } = {}): Promise<{ lines: string[]; errors: number }> {
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
  // Bare-path static entry IDs resolve against the trust domain; any valid one will do to check them.
  const td = opts.trustDomain ?? 'validate.invalid';
  for (const file of all.files) {
    const text = readFileSync(file, 'utf8');
    if (CONFIG_KIND.test(text)) {
      try {
        const { warnings } = parseConfig(text, file);
        for (const w of warnings) lines.push(`warning: ${file}: ${w}`);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        for (const p of err.problems) error(`${file}: ControllerManagerConfig: ${p}`);
      }
      continue;
    }
    const set = await loadManifests([file]);
    for (const obj of set.clusterSPIFFEIDs) {
      const r = parseClusterSPIFFEID(obj);
      if ('errors' in r) for (const e of r.errors) error(`${file}: ClusterSPIFFEID/${obj.metadata.name}: ${e.field}: ${e.message}`);
    }
    for (const obj of set.clusterStaticEntries) {
      const r = renderStaticEntry(obj, td);
      if ('errors' in r) for (const e of r.errors) error(`${file}: ClusterStaticEntry/${obj.metadata.name}: ${e.field}: ${e.message}`);
    }
    for (const obj of set.clusterFederatedTrustDomains) {
      for (const e of validateFederatedTrustDomain(obj.spec ?? {})) error(`${file}: ClusterFederatedTrustDomain/${obj.metadata.name}: ${e.field}: ${e.message}`);
    }
  }
  return { lines, errors };
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check manifests and config files; one line per problem (file, kind/name, field, reason); exit 1 if any')
    .argument('<paths...>', 'files or directories (read recursively)')
    .option('--config <file>', 'a ControllerManagerConfig to validate too; its trustDomain resolves bare-path static entry IDs')
    .option('--trust-domain <name>', 'trust domain to resolve bare-path static entry IDs against')
    .action(async (paths: string[], flags: { config?: string; trustDomain?: string }) => {
      let trustDomain = flags.trustDomain;
      if (flags.config) {
        paths = [flags.config, ...paths];
        try {
          trustDomain ??= loadConfigFile(flags.config).config.trustDomain;
        } catch {
          // Reported below, with the config's other problems, as a validation finding.
        }
      }
      const { lines, errors } = await validatePaths(paths, trustDomain ? { trustDomain } : {});
      for (const l of lines) console.log(l);
      if (errors === 0) console.log(`ok: ${paths.join(', ')}`);
      process.exitCode = errors > 0 ? Exit.itemsFailed : Exit.ok;
    });
}
