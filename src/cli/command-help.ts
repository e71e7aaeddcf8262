/**
 * The commands as `--help` lists them, in order: the name with the usage
 * commander writes from the command's options and arguments, and the
 * description. Each command's module takes its description from here, and
 * main.ts answers `--help` from this table without loading any command's
 * code (the controller's). test/cli/commands.test.ts checks that `--help`
 * prints what `help`, which loads every command, prints.
 */
export const COMMAND_HELP = [
  { name: 'run', term: 'run [options]', description: 'the long-running controller: live Kubernetes mode (KUBECONFIG or in-cluster), or manifest mode with staticManifestPath or --manifests. Without a command, spire-controller-manager\'s flags mean run' },
  { name: 'plan', term: 'plan [options]', description: 'dry run: print what a reconcile would create, update and delete; writes nothing' },
  { name: 'reconcile', term: 'reconcile [options]', description: 'one reconcile pass from manifests or the cluster against the SPIRE server: prints the plan, applies it, exits 1 if any item failed' },
  { name: 'render', term: 'render [options]', description: 'print the entry one pod gets from one ClusterSPIFFEID, selected as reconcile selects; or why it gets none, or the exact render error' },
  { name: 'explain', term: 'explain', description: 'why a pod has or lacks its SPIRE entries, or what one ClusterSPIFFEID selects and registers' },
  { name: 'validate', term: 'validate [options] [paths...]', description: 'check manifests and config files; one line per problem (file, kind/name, field, reason); exit 1 if any' },
  { name: 'demo', term: 'demo', description: 'reconcile the example cluster in examples/demo/ against an in-memory SPIRE server, and show each step' },
  { name: 'memory-spire', term: 'memory-spire [options]', description: 'serve an in-memory SPIRE-compatible server (Entry, TrustDomain, Bundle, SVID APIs) on a Unix socket, for demos and tests' },
  { name: 'bootstrap', term: 'bootstrap [options]', description: "the controller's own admin entries, which the standalone layout (spireServerAddress) needs before it can call the SPIRE server: printed as spire-server commands, or written with --apply through the admin socket" },
] as const;

export type CommandName = (typeof COMMAND_HELP)[number]['name'];

/** A command's description, as help shows it. */
export function commandDescription(name: CommandName): string {
  return COMMAND_HELP.find((c) => c.name === name)!.description;
}
