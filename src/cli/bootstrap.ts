import type { Command } from 'commander';
import { parseGoDuration } from '../api/duration.js';
import { errorMessage } from '../api/errors.js';
import { type BootstrapOptions, bootstrapEntries, bootstrapProblem, entryCreateCommand } from '../entries/index.js';
import { spireClientFor, waitForSpire } from '../manager/spire-client.js';
import { type Entry, type EntryOut, SpireRpcError } from '../spire/index.js';
import { addConfigOptions, type ConfigFlags, loadContext } from './context.js';
import { CliError, Exit } from './exit.js';
import { loggerFor } from './logger.js';
import { logSettings } from './log-settings.js';
import { cliWaits } from './stderr-waits.js';
import { commandDescription } from './command-help.js';

interface BootstrapFlags extends ConfigFlags {
  namespace: string;
  serviceAccount: string;
  nodeLabel?: string[];
  x509SvidTtl?: string;
  apply?: boolean;
  spireTimeout: string;
}

function bootstrapOptions(flags: BootstrapFlags, trustDomain: string, clusterName: string): BootstrapOptions {
  const nodeLabels: Record<string, string> = {};
  for (const label of flags.nodeLabel ?? []) {
    const eq = label.indexOf('=');
    if (eq <= 0) throw new CliError(`--node-label ${label}: must be key=value`);
    nodeLabels[label.slice(0, eq)] = label.slice(eq + 1);
  }
  let x509SvidTtlSeconds = 0;
  if (flags.x509SvidTtl !== undefined) {
    try {
      x509SvidTtlSeconds = Math.round(parseGoDuration(flags.x509SvidTtl) / 1e9);
    } catch (err) {
      throw new CliError(`--x509-svid-ttl ${flags.x509SvidTtl}: ${errorMessage(err)}`);
    }
  }
  const o: BootstrapOptions = { trustDomain, clusterName, namespace: flags.namespace, serviceAccount: flags.serviceAccount, nodeLabels, x509SvidTtlSeconds };
  const problem = bootstrapProblem(o);
  if (problem) throw new CliError(`bootstrap: ${problem}`);
  return o;
}

/** What the server holds differs from what bootstrap writes, in a field bootstrap sets. */
function differs(want: Entry, have: EntryOut): boolean {
  const selectors = (s: readonly { type?: string; value?: string }[] | null | undefined) => (s ?? []).map((x) => `${x.type}:${x.value}`).sort().join(',');
  return (
    have.spiffe_id?.path !== want.spiffe_id?.path ||
    have.parent_id?.path !== want.parent_id?.path ||
    selectors(have.selectors) !== selectors(want.selectors) ||
    (have.admin ?? false) !== (want.admin ?? false) ||
    (have.x509_svid_ttl ?? 0) !== (want.x509_svid_ttl ?? 0)
  );
}

/**
 * `bootstrap`: the controller's own admin entries for the standalone layout
 * (entries/bootstrap.ts). Printed as `spire-server entry create` commands to
 * run in the SPIRE server's container, or, with --apply, written through the
 * admin socket by this process (from the SPIRE server's pod, e.g. the sidecar
 * being moved out): created, or updated where they differ, so running it again
 * is safe.
 */
export function registerBootstrap(program: Command): void {
  addConfigOptions(program.command('bootstrap'))
    .description(commandDescription('bootstrap'))
    .option('--namespace <name>', "the controller's pods' namespace: anyone who may create pods there with its service account can claim the admin identity", 'spire-server')
    .option('--service-account <name>', "the controller's pods' service account", 'spire-reconciler')
    .option('--node-label <key=value...>', 'only agents on nodes with these labels issue the identity (k8s_psat agent_node_label); pin the Deployment to them with a nodeSelector')
    .option('--x509-svid-ttl <duration>', "the controller SVID's lifetime (Go duration, e.g. 1h); default the SPIRE server's default_x509_svid_ttl")
    .option('--apply', 'write the entries through the SPIRE admin socket instead of printing the commands')
    .option('--socket <path>', 'the SPIRE admin socket for --apply (default: spireServerSocketPath, or /spire-server/api.sock)')
    .option('--spire-timeout <duration>', 'with --apply, how long to wait for the SPIRE server', '30s')
    .action(async (flags: BootstrapFlags) => {
      // The admin socket is the only way in before these entries exist: a standalone config's address is not used here.
      const { config } = loadContext({ ...flags, socket: undefined });
      if (flags.socket) config.spireServerSocketPath = flags.socket;
      const entries = bootstrapEntries(bootstrapOptions(flags, config.trustDomain, config.clusterName));
      if (!flags.apply) {
        console.log(
          [
            `# The controller's admin entries for the standalone layout (docs/standalone.md), cluster ${config.clusterName}.`,
            '# Run once in the SPIRE server container, e.g. kubectl exec -n spire-server spire-server-0 -c spire-server -- <command>:',
            entryCreateCommand(entries.agents),
            entryCreateCommand(entries.controller),
          ].join('\n'),
        );
        return;
      }
      const { settings } = logSettings(config, {});
      const spire = spireClientFor(config);
      try {
        await waitForSpire(spire, { timeoutMs: parseGoDuration(flags.spireTimeout) / 1e6, waits: cliWaits(settings.encoding, loggerFor(settings)) });
        let failed = 0;
        for (const want of [entries.agents, entries.controller]) {
          const have = await spire.getEntry(want.id).catch((err: unknown) => {
            if (err instanceof SpireRpcError && err.codeName === 'NOT_FOUND') return undefined;
            throw err;
          });
          if (have && !differs(want, have)) {
            console.log(`unchanged: ${want.id}`);
            continue;
          }
          const outcome = have ? await spire.updateEntries([want]) : await spire.createEntries([want]);
          const status = outcome.results[0]!.status;
          if (status.ok) console.log(`${have ? 'updated' : 'created'}: ${want.id}`);
          else {
            failed++;
            console.log(`failed: ${want.id}: ${status.codeName}: ${status.message}`);
          }
        }
        process.exitCode = failed > 0 ? Exit.itemsFailed : Exit.ok;
      } catch (err) {
        throw new CliError(`bootstrap: ${errorMessage(err)}`);
      } finally {
        spire.close();
      }
    });
}
