import type { KubeConfig } from '../kube/connection.js';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import type { PodName } from '../api/index.js';
import { addConfigOptions, addSpireTargetOptions, type ConfigFlags, describeClassRule } from './context.js';
import { CliError, Exit } from './exit.js';
import { explainObject, type ObjectExplanation, objectTable, ObjectTrace } from './explain-object.js';
import { explainPod, type PodExplanation, podTable, PodTrace } from './explain-pod.js';
import { PlanIndex } from './explain-spire.js';
import { describeSource } from './inputs.js';
import { type OnceOptions, onePass, prepare, printer } from './one-pass.js';
import { machineOutput, outputFormat } from './report.js';
import { commandDescription } from './command-help.js';

export interface ExplainFlags extends ConfigFlags {
  manifests?: string[];
  entries?: string;
  output?: string;
}

interface ExplainOptions {
  log?: Logger;
  print: (s: string) => void;
  /** The live cluster's configuration (tests); default: KUBECONFIG, ~/.kube/config or in-cluster. */
  kubeConfig?: () => KubeConfig;
  /** As OnceOptions.waits. */
  waits?: OnceOptions['waits'];
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function podRef(ref: string): PodName {
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1 || ref.indexOf('/', slash + 1) !== -1) throw new CliError(`explain pod: give the pod as NAMESPACE/NAME, got "${ref}"`);
  return { namespace: ref.slice(0, slash), name: ref.slice(slash + 1) };
}

/**
 * Why a pod has or lacks its entries: the engine's own pass (selection,
 * render, plan) over the cluster, with the selection walk observed for this
 * pod. Exit 0 when the pod is registered, 1 when it is not.
 */
export async function explainPodCommand(ref: string, flags: ExplainFlags, opts: ExplainOptions): Promise<{ code: number; explanation: PodExplanation }> {
  const output = outputFormat(flags.output);
  const wanted = podRef(ref);
  const p = await prepare(flags, { ...opts, pod: wanted });
  const { snapshot, source } = p.inputs;
  const pod = snapshot.pods.find((x) => x.metadata.namespace === wanted.namespace && x.metadata.name === wanted.name);
  if (!pod) throw new CliError(`pod ${ref} not found (${describeSource(source)})`);
  const trace = new PodTrace(pod.metadata.uid, wanted.namespace);
  const { result } = await onePass(p, flags, { apply: false, observe: trace });
  const explanation = explainPod({
    pod,
    namespace: snapshot.namespaces.find((n) => n.metadata.name === wanted.namespace),
    objects: snapshot.clusterSPIFFEIDs,
    trace,
    plan: new PlanIndex(result, p.options.ownership),
    current: result.current ?? [],
    classRule: describeClassRule(p.config),
  });
  if (!p.config.reconcile.clusterSPIFFEIDs) explanation.summary = `reconcile.clusterSPIFFEIDs is off in the config, so no pod gets an entry. ${explanation.summary}`;
  opts.print(output === 'table' ? podTable(explanation, capitalise(describeSource(source))) : machineOutput({ ...explanation, source }, output));
  return { code: explanation.registered ? Exit.ok : Exit.itemsFailed, explanation };
}

/** What one ClusterSPIFFEID selects, renders and has on the server. */
export async function explainObjectCommand(name: string, flags: ExplainFlags, opts: ExplainOptions): Promise<{ code: number; explanation: ObjectExplanation }> {
  const output = outputFormat(flags.output);
  const p = await prepare(flags, opts);
  const { snapshot, source } = p.inputs;
  const obj = snapshot.clusterSPIFFEIDs.find((o) => o.metadata.name === name);
  if (!obj) {
    const off = p.config.reconcile.clusterSPIFFEIDs ? '' : ' (reconcile.clusterSPIFFEIDs is off in the config)';
    throw new CliError(`ClusterSPIFFEID ${name} not found${off} (${describeSource(source)})`);
  }
  const trace = new ObjectTrace(obj.metadata.uid);
  const { result } = await onePass(p, flags, { apply: false, observe: trace });
  const explanation = explainObject(obj, trace, new PlanIndex(result, p.options.ownership), result.status.clusterSPIFFEIDs[name], describeClassRule(p.config));
  opts.print(output === 'table' ? objectTable(explanation, capitalise(describeSource(source))) : machineOutput({ ...explanation, source }, output));
  return { code: Exit.ok, explanation };
}

function explainOptions(cmd: Command): Command {
  return addSpireTargetOptions(addConfigOptions(cmd))
    .option('--manifests <dir...>', 'manifest files or directories (default: staticManifestPath; without either, the cluster through KUBECONFIG)')
    .option('--entries <file>', 'current entries from `spire-server entry show -output json` instead of the SPIRE socket')
    .option('-o, --output <format>', 'table, json or yaml', 'table');
}

export function registerExplain(program: Command): void {
  const explain = program.command('explain').description(commandDescription('explain'));
  explainOptions(explain.command('pod'))
    .argument('<namespace/name>', 'the pod')
    .description('walk every ClusterSPIFFEID for one pod (class, namespace and pod selectors, ignored namespaces, fallback, scheduling, render) and say where each entry stands in SPIRE; exit 0 if registered, 1 if not')
    .action(async (ref: string, flags: ExplainFlags) => {
      process.exitCode = (await explainPodCommand(ref, flags, { print: printer(flags.output), waits: 'stderr' })).code;
    });
  explainOptions(explain.command('clusterspiffeid'))
    .argument('<name>', 'the ClusterSPIFFEID')
    .description('what one ClusterSPIFFEID selects (namespaces, pods), fails to render, and has on the SPIRE server')
    .action(async (name: string, flags: ExplainFlags) => {
      process.exitCode = (await explainObjectCommand(name, flags, { print: printer(flags.output), waits: 'stderr' })).code;
    });
}
