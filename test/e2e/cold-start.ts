/**
 * A cold start against the real SPIRE server on the real node, ours against
 * spire-controller-manager: the SPIRE server pod made afresh as on a new
 * install (an empty datastore, new keys, no leader-election Lease), its
 * controller container with `pods` ghost pods (test/e2e/ghosts.ts) in the API
 * server and none of their entries on the SPIRE server. A figure is the time
 * from the pod's creation until every ghost pod has its entry: the SPIRE
 * server's start, the controller's start, its first lists and its writes, on
 * the kubelet's node with the chart's BestEffort pod (no resources set).
 */
import { SpireClient } from '../../src/spire/index.js';
import type { ControlPlane } from '../support/real-k8s/index.js';
import type { RealNode } from '../support/real-node/node.js';
import { median } from '../../bench/stats.js';
import { eventually } from '../real/world.js';
import { createGhostPods, prepareGhosts, registered } from './ghosts.js';
import { adminSocket, type ControllerKind, prepareDeployment } from './world.js';

export interface ColdStartFigure {
  controller: ControllerKind;
  pods: number;
  /** From the SPIRE server pod's creation until every pod's entry was on the SPIRE server. */
  ms: number;
}

export interface ColdStartOptions {
  podCounts: number[];
  runs: number;
  log: (line: string) => void;
}

/** Deploys the SPIRE server pod and times each cold start of `opts`; the caller owns the control plane and the node. */
export async function measureColdStart(plane: ControlPlane, node: RealNode, opts: ColdStartOptions): Promise<ColdStartFigure[]> {
  const dep = await prepareDeployment(plane, node, { persistentServer: true });
  await prepareGhosts(plane);
  await dep.deploy('ours');
  const spire = new SpireClient({ socket: adminSocket(node) });
  const figures: ColdStartFigure[] = [];
  try {
    let pods = 0;
    for (const count of opts.podCounts) {
      await createGhostPods(plane, pods, count);
      pods = count;
      // The two take turns run by run, so a machine that gets busier or quieter weighs on both alike.
      for (let r = 0; r < opts.runs; r++) {
        for (const kind of r % 2 === 0 ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const)) {
          const created = await dep.recreateServer(kind, { fresh: true });
          // Counted cheaply until the count is there, then the entries themselves checked.
          await eventually(async () => (await spire.countEntries()) >= count && (await registered(spire, count)), `${count} pods registered by ${kind} from a fresh SPIRE server`, 900_000);
          const f = { controller: kind, pods: count, ms: Date.now() - created };
          figures.push(f);
          opts.log(`${kind} at ${count} pods: every entry on the SPIRE server ${(f.ms / 1000).toFixed(1)} s after the pod was created`);
        }
      }
    }
  } finally {
    spire.close();
  }
  return figures;
}

/** The figures as a Markdown table: one row per count, each controller's runs in seconds and their median. */
export function coldStartTable(figures: readonly ColdStartFigure[]): string[] {
  const cell = (fs: ColdStartFigure[]) => (fs.length === 0 ? '-' : `${fs.map((f) => (f.ms / 1000).toFixed(1)).join(', ')} (median ${(median(fs.map((f) => f.ms)) / 1000).toFixed(1)})`);
  const lines = ['| pods | spire-reconciler (s) | spire-controller-manager (s) |', '|---|---|---|'];
  for (const pods of [...new Set(figures.map((f) => f.pods))]) {
    const of = (c: ControllerKind) => figures.filter((f) => f.pods === pods && f.controller === c);
    lines.push(`| ${pods.toLocaleString('en-US')} | ${cell(of('ours'))} | ${cell(of('peer'))} |`);
  }
  return lines;
}
