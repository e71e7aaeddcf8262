import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import type { ClusterSPIFFEID, Node, Pod } from '../api/index.js';
import { formatFieldErrors, parseClusterSPIFFEID, renderParentId, renderPodEntry } from '../entries/index.js';
import { type ConfigFlags, loadContext, passOptions } from './context.js';
import { CliError, Exit } from './exit.js';
import { addConfigOptions } from './context.js';
import { entryView } from './report.js';

function readObject<T>(path: string, kind: string): T {
  let docs;
  try {
    docs = parseAllDocuments(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError(`${path}: ${(err as Error).message}`);
  }
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length > 0) throw new CliError(`${path}: YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
    const obj = doc.toJS() as { kind?: string } | null;
    if (obj?.kind === kind) return obj as T;
  }
  throw new CliError(`${path}: no ${kind} in this file`);
}

interface RenderFlags extends ConfigFlags {
  clusterspiffeid: string;
  pod: string;
  node?: string;
}

/** Renders the entry one pod gets from one ClusterSPIFFEID; returns the output and exit code. */
export function renderCommand(flags: RenderFlags): { output: string; code: number } {
  const { config } = loadContext(flags);
  const { settings } = passOptions(config);
  const csid = readObject<ClusterSPIFFEID>(flags.clusterspiffeid, 'ClusterSPIFFEID');
  const pod = readObject<Pod>(flags.pod, 'Pod');
  // Without a node file, a stand-in keeps the parent ID visible; its UID is a placeholder.
  const node: Node = flags.node
    ? readObject<Node>(flags.node, 'Node')
    : { metadata: { name: pod.spec?.nodeName ?? 'node', uid: 'NODE-UID' }, spec: {} };
  csid.metadata.uid ??= 'cli';
  const parsed = parseClusterSPIFFEID(csid);
  if ('errors' in parsed) return { output: formatFieldErrors('ClusterSPIFFEID', csid.metadata.name, parsed.errors), code: Exit.itemsFailed };
  const parent = renderParentId(node, settings);
  if ('error' in parent) return { output: parent.error, code: Exit.itemsFailed };
  const r = renderPodEntry(parsed.parsed, pod, node, parent.parentId, settings, []);
  if ('error' in r) return { output: r.error, code: Exit.itemsFailed };
  const { id: _id, ...view } = entryView('', r.spec);
  return { output: JSON.stringify(view, null, 2), code: Exit.ok };
}

export function registerRender(program: Command): void {
  addConfigOptions(program.command('render'))
    .description('print the entry one pod gets from one ClusterSPIFFEID, or the exact render error')
    .requiredOption('--clusterspiffeid <file>', 'YAML file with the ClusterSPIFFEID')
    .requiredOption('--pod <file>', 'YAML file with the Pod (e.g. kubectl get pod NAME -o yaml)')
    .option('--node <file>', "YAML file with the pod's Node (without it the node UID shows as NODE-UID)")
    .action((flags: RenderFlags) => {
      const { output, code } = renderCommand(flags);
      if (code === Exit.ok) console.log(output);
      else console.error(output);
      process.exitCode = code;
    });
}
