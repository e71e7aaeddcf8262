import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import { ConfigError, parseConfig } from '../api/index.js';
import { TEMPLATE_NAMES } from '../template/index.js';
import { formatProblem, loadManifests } from '../manifests/index.js';
import { checkManifestObjects } from '../webhook/checks.js';
import { CliError, Exit } from './exit.js';
import { requirePaths } from './paths.js';
import { templateFieldMessages, templateFieldProblems } from './template-fields.js';
import { errorMessage } from '../api/errors.js';
import { commandDescription } from './command-help.js';

const CONFIG_KIND = /^kind:\s*ControllerManagerConfig\s*$/m;
const EMBEDDED_CONFIG_KIND = /^\s+kind:\s*ControllerManagerConfig\s*$/m;

/**
 * The ControllerManagerConfig documents a file holds: the file itself, or
 * the values of a ConfigMap's `data` that are one (deploy/configmap.yaml
 * carries the config so), each with where it sits in the file.
 */
function configDocuments(text: string): { where: string; text: string }[] {
  if (CONFIG_KIND.test(text)) return [{ where: '', text }];
  // Parsed again only when a config may be embedded: manifests are parsed once, by loadManifests.
  if (!EMBEDDED_CONFIG_KIND.test(text)) return [];
  let docs;
  try {
    docs = parseAllDocuments(text);
  } catch {
    return [];
  }
  const found: { where: string; text: string }[] = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length > 0) continue;
    const obj = doc.toJS() as { kind?: unknown; metadata?: { name?: unknown }; data?: unknown } | null;
    if (obj?.kind !== 'ConfigMap' || typeof obj.data !== 'object' || obj.data === null) continue;
    for (const [key, value] of Object.entries(obj.data)) {
      if (typeof value === 'string' && CONFIG_KIND.test(value)) found.push({ where: `ConfigMap/${String(obj.metadata?.name)}: data[${key}]: `, text: value });
    }
  }
  return found;
}

/**
 * Checks config files and manifests: YAML syntax, the CRD schemas, and the
 * admission webhook's checks, which are the reconcile's (templates,
 * selectors, IDs, durations, federation fields), so what validate passes the
 * webhook admits. With a trust domain, the checks against it too (a literal
 * trust domain in a SPIFFE ID template, federating with our own). With
 * expandEnv, $VAR and ${VAR} in ControllerManagerConfig files are expanded
 * first, as `run --expand-env` reads its config. Beyond the webhook: field
 * names a template reads that its data cannot have (template-fields.ts).
 * One line per problem.
 */
export async function validatePaths(paths: string[], opts: { trustDomain?: string; expandEnv?: boolean } = {}): Promise<{ lines: string[]; errors: number }> {
  const lines: string[] = [];
  let errors = 0;
  // A line said once, however many ways the same problem is reached.
  const said = new Set<string>();
  const error = (line: string) => {
    if (said.has(line)) return;
    said.add(line);
    lines.push(line);
    errors++;
  };
  // A folder such as deploy/ holds other files too (a dashboard): said, not failed.
  const all = await loadManifests(paths, { skipNonKubernetes: true });
  for (const file of all.notKubernetes ?? []) lines.push(`skipped: ${file}: not a Kubernetes object (no apiVersion, kind or metadata)`);
  for (const p of all.problems) {
    if (p.severity === 'warning') lines.push(`warning: ${formatProblem(p)}`);
    else error(formatProblem(p));
  }
  for (const file of all.files) {
    // A file is parsed again only if it holds a config (configDocuments): manifests are checked below, from the set.
    const text = readFileSync(file, 'utf8');
    for (const config of configDocuments(text)) {
      const at = `${file}: ${config.where}ControllerManagerConfig`;
      // Warnings name the file (and the ConfigMap key) and the field, as the config's own warnings do in run's log.
      const warnAt = `${file}: ${config.where}`;
      try {
        const { config: parsed, warnings } = parseConfig(config.text, file, { expandEnv: opts.expandEnv ?? false });
        for (const w of warnings) lines.push(`warning: ${warnAt}${w}`);
        for (const m of templateFieldMessages(parsed.parentIDTemplate, TEMPLATE_NAMES.parentID)) error(`${at}: parentIDTemplate: ${m}`);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        for (const p of err.problems) error(`${at}: ${p}`);
        // Unknown fields explain many errors (a misspelt required field): shown beside them.
        for (const w of err.warnings) lines.push(`warning: ${warnAt}${w}`);
      }
    }
  }
  for (const p of checkManifestObjects(all, opts.trustDomain)) error(formatProblem(p));
  for (const p of templateFieldProblems(all)) error(formatProblem(p));
  return { lines, errors };
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description(commandDescription('validate'))
    .argument('[paths...]', 'files or directories (read recursively)')
    .option('--config <file>', 'a ControllerManagerConfig to validate too; its trustDomain is used as --trust-domain')
    .option('--expand-env', 'expand $VAR and ${VAR} in ControllerManagerConfig files (--config and any among the paths), as run --expand-env does')
    .option('--trust-domain <name>', 'the SPIRE server\'s trust domain: bare-path static entry IDs resolve against it, and SPIFFE ID templates fixed to another one or ClusterFederatedTrustDomains for it are refused, as the webhook refuses them')
    .action(async (paths: string[], flags: { config?: string; expandEnv?: boolean; trustDomain?: string }) => {
      if (paths.length === 0 && !flags.config) throw new CliError('validate: give files or directories to check, or --config FILE');
      requirePaths('--config', flags.config);
      requirePaths('validate', paths);
      const expandEnv = flags.expandEnv ?? false;
      let trustDomain = flags.trustDomain;
      if (flags.config) {
        let text: string;
        try {
          text = readFileSync(flags.config, 'utf8');
        } catch (err) {
          throw new CliError(`--config ${flags.config}: cannot read: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`);
        }
        const configs = configDocuments(text);
        if (configs.length === 0) throw new CliError(`--config ${flags.config}: not a ControllerManagerConfig (kind: ControllerManagerConfig), nor a ConfigMap holding one`);
        paths = [flags.config, ...paths];
        try {
          trustDomain ??= parseConfig(configs[0]!.text, flags.config, { expandEnv }).config.trustDomain;
        } catch {
          // Reported below, with the config's other problems, as a validation finding.
        }
      }
      const { lines, errors } = await validatePaths(paths, { expandEnv, trustDomain: trustDomain || undefined });
      for (const l of lines) console.log(l);
      if (errors === 0) console.log(`ok: ${paths.join(', ')}`);
      process.exitCode = errors > 0 ? Exit.itemsFailed : Exit.ok;
    });
}
