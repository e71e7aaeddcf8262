import type { Command } from 'commander';
import { type ClusterSPIFFEID, describeLabelSelector, type Namespace, type Node, type Pod } from '../api/index.js';
import { type ClusterSnapshot, planPass } from '../entries/index.js';
import { formatProblem, loadManifests, type ManifestSet } from '../manifests/index.js';
import { addConfigOptions, type ConfigFlags, describeClassRule, loadContext, passOptions } from './context.js';
import { CliError, Exit } from './exit.js';
import { explainPod, PodTrace } from './explain-pod.js';
import { PlanIndex } from './explain-spire.js';
import { isSkip } from './inputs.js';
import { requirePaths } from './paths.js';
import { commandDescription } from './command-help.js';

interface RenderFlags extends ConfigFlags {
  clusterspiffeid: string;
  name?: string;
  pod: string;
  podName?: string;
  node?: string;
  namespace?: string;
  endpoints?: string[];
}

/** Reads files as manifest mode does (multi-document, `kind: List`, the CRD schemas); a skipped object is an error here. */
async function read(paths: string[], flag: string): Promise<ManifestSet> {
  const set = await loadManifests(paths);
  const bad = set.problems.filter(isSkip);
  if (bad.length > 0) throw new CliError(`${flag}: ${formatProblem(bad[0]!)}`);
  return set;
}

function pick(objects: ClusterSPIFFEID[], file: string, name: string | undefined): ClusterSPIFFEID {
  if (name !== undefined) {
    const found = objects.find((o) => o.metadata.name === name);
    if (!found) throw new CliError(`${file}: no ClusterSPIFFEID named ${name} (it holds ${objects.map((o) => o.metadata.name).join(', ') || 'none'})`);
    return found;
  }
  if (objects.length === 1) return objects[0]!;
  if (objects.length === 0) throw new CliError(`${file}: no ClusterSPIFFEID in this file`);
  throw new CliError(`${file} holds ${objects.length} ClusterSPIFFEIDs (${objects.map((o) => o.metadata.name).join(', ')}): pick one with --name`);
}

/** How many pod names an error lists: enough to recognise the file, short enough for one line. */
const PODS_SHOWN = 4;

const podRef = (p: Pod) => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`;

function somePods(pods: readonly Pod[]): string {
  const shown = pods.slice(0, PODS_SHOWN).map(podRef).join(', ');
  return pods.length > PODS_SHOWN ? `${shown} and ${pods.length - PODS_SHOWN} more` : shown;
}

/**
 * The pod of a --pod file: its only one, or the one --pod-name names (NAME,
 * or NAMESPACE/NAME when the name is in several namespaces), so that
 * `kubectl get pods -A -o yaml` output serves as it is.
 */
function pickPod(pods: readonly Pod[], file: string, wanted: string | undefined): Pod {
  if (wanted === undefined) {
    if (pods.length === 1) return pods[0]!;
    if (pods.length === 0) throw new CliError(`--pod ${file}: no Pod in this file`);
    throw new CliError(`--pod ${file} holds ${pods.length} Pods (${somePods(pods)}): pick one with --pod-name NAME (or NAMESPACE/NAME)`);
  }
  const slash = wanted.indexOf('/');
  const namespace = slash === -1 ? undefined : wanted.slice(0, slash);
  const name = slash === -1 ? wanted : wanted.slice(slash + 1);
  const found = pods.filter((p) => p.metadata.name === name && (namespace === undefined || (p.metadata.namespace ?? 'default') === namespace));
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw new CliError(`--pod-name ${wanted}: no such Pod in ${file} (it holds ${pods.length === 0 ? 'none' : somePods(pods)})`);
  throw new CliError(`--pod-name ${wanted}: ${found.length} Pods of that name in ${file} (${somePods(found)}): give NAMESPACE/NAME`);
}

/**
 * The entry one pod gets from one ClusterSPIFFEID, selected as reconcile
 * selects (class, namespaceSelector, ignoreNamespaces, podSelector,
 * scheduled, finished) and rendered by the engine's own pass; or why not.
 * Returns the output (stdout when the code is 0) and the notes (stderr).
 */
export async function renderCommand(flags: RenderFlags): Promise<{ output: string; code: number; notes: string[] }> {
  requirePaths('--clusterspiffeid', flags.clusterspiffeid);
  requirePaths('--pod', flags.pod);
  requirePaths('--node', flags.node);
  requirePaths('--namespace', flags.namespace);
  requirePaths('--endpoints', flags.endpoints);
  const { config } = loadContext(flags);
  const options = passOptions(config);
  const csids = await read([flags.clusterspiffeid], '--clusterspiffeid');
  const csid = pick(csids.clusterSPIFFEIDs, flags.clusterspiffeid, flags.name);
  const pod = pickPod((await read([flags.pod], '--pod')).pods, flags.pod, flags.podName);
  const nsName = pod.metadata.namespace ?? 'default';
  const others = await read([...(flags.node ? [flags.node] : []), ...(flags.namespace ? [flags.namespace] : []), ...(flags.endpoints ?? [])], '--node/--namespace/--endpoints');
  const notes: string[] = [];

  // Without a node file, a stand-in keeps the parent ID visible; its UID is a placeholder.
  const nodeName = pod.spec?.nodeName;
  const node: Node | undefined = others.nodes.find((n) => n.metadata.name === nodeName) ?? (nodeName ? { metadata: { name: nodeName, uid: 'NODE-UID' }, spec: {} } : undefined);
  if (nodeName && !flags.node) notes.push('no --node given: the node UID shows as NODE-UID');
  let namespace: Namespace | undefined = others.namespaces.find((n) => n.metadata.name === nsName);
  if (!namespace) {
    if (describeLabelSelector(csid.spec?.namespaceSelector) !== '(empty: selects everything)') {
      throw new CliError(`cannot tell whether namespaceSelector ${describeLabelSelector(csid.spec.namespaceSelector)} selects namespace ${nsName}: give --namespace FILE (kubectl get namespace ${nsName} -o yaml)`);
    }
    // Every namespace matches an empty selector; the API server sets this label on each.
    namespace = { metadata: { name: nsName, uid: `namespace:${nsName}`, labels: { 'kubernetes.io/metadata.name': nsName } } };
  }
  if (csid.spec?.autoPopulateDNSNames && !flags.endpoints) notes.push('autoPopulateDNSNames is on, but no --endpoints were given: Service DNS names are left out');
  if (csid.spec?.fallback) notes.push('a fallback: reconcile applies it only when no other ClusterSPIFFEID selects the pod (gives it an entry, or fails to render one; `explain pod` weighs them all)');

  csid.metadata.uid ??= 'cli';
  const snapshot: ClusterSnapshot = {
    clusterSPIFFEIDs: [csid],
    clusterStaticEntries: [],
    namespaces: [namespace],
    pods: [pod],
    nodes: node ? [node] : [],
    endpointSlices: others.endpointSlices,
    endpoints: others.endpoints,
  };
  const trace = new PodTrace(pod.metadata.uid, nsName);
  const result = planPass(snapshot, [], { ...options, settings: { ...options.settings, observe: trace } });
  const x = explainPod({ pod, namespace, objects: [csid], trace, plan: new PlanIndex(result, options.ownership), current: [], classRule: describeClassRule(config) });
  const verdict = x.clusterSPIFFEIDs[0]!;
  if (verdict.outcome === 'declared') {
    const { id: _id, ...view } = verdict.entry!;
    return { output: JSON.stringify(view, null, 2), code: Exit.ok, notes };
  }
  if (verdict.outcome === 'render-failed') {
    // The exact render error, as the reconcile reports it.
    const failure = result.declared.renderFailures[0];
    return { output: failure?.message ?? verdict.detail, code: Exit.itemsFailed, notes };
  }
  return { output: `not selected: ${verdict.detail}`, code: Exit.itemsFailed, notes };
}

export function registerRender(program: Command): void {
  addConfigOptions(program.command('render'))
    .description(commandDescription('render'))
    .requiredOption('--clusterspiffeid <file>', 'YAML with the ClusterSPIFFEID (a file of several, or a `kind: List`, with --name)')
    .option('--name <name>', 'which ClusterSPIFFEID of the file')
    .requiredOption('--pod <file>', 'YAML file with the Pod (e.g. kubectl get pod NAME -o yaml), or several (a `kind: List`) with --pod-name')
    .option('--pod-name <[namespace/]name>', 'which Pod of the --pod file (NAMESPACE/NAME when the name is in several namespaces)')
    .option('--node <file>', "YAML file with the pod's Node (without it the node UID shows as NODE-UID)")
    .option('--namespace <file>', "YAML file with the pod's Namespace, for namespaceSelector (needed unless the selector is empty)")
    .option('--endpoints <file...>', "the pod namespace's EndpointSlices or Endpoints, for autoPopulateDNSNames")
    .action(async (flags: RenderFlags) => {
      const { output, code, notes } = await renderCommand(flags);
      for (const n of notes) console.error(`note: ${n}`);
      if (code === Exit.ok) console.log(output);
      else console.error(output);
      process.exitCode = code;
    });
}
