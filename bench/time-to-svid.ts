/**
 * `npm run bench:svid -- [--pods 30] [--rounds 1]`: the latency a user feels,
 * on a real node (the e2e lane's: kube-apiserver, etcd, a kubelet, containerd,
 * the SPIRE server and agent as pods; see test/e2e/world.ts). For each
 * controller in turn, ours then spire-controller-manager, as the controller
 * container of the same SPIRE server pod: N workload pods are created at once,
 * and for each the time from its creation (before the create request was
 * sent) to the moment its workload first held an X.509 SVID (the workload's
 * own clock, the same machine's) is taken, with two steps on the way: the
 * workload's process started (the kubelet's part), and its entry was on the
 * SPIRE server (the controller's part; the admin socket is polled every
 * 50 ms). A round's pods are deleted before the next round swaps the
 * controller in; a first round, before either is measured, warms the node
 * (image layers unpacked, the agent attested and synced).
 *
 * What else is in that time, the same for both: the kubelet starting the pod
 * (its sandbox, then the container), and the SPIRE agent's sync: it fetches
 * its entries from the server every 5 s (SPIRE v1.15.3's default, kept here),
 * and the workload asks every 200 ms until it holds an SVID.
 *
 * `--controller-cpu 250m` gives the controller container a CPU request (the chart sets
 * none, so the pod is BestEffort and gets the smallest CPU share).
 *
 * For each measured round of ours, the controller's own registration-latency
 * histogram (spire_reconciler_registration_seconds, scraped before and after
 * the round) is compared with the round's entry-on-the-server figures
 * (test/e2e/registration-compare.ts says what must hold and why): a line per
 * round, and exit 1 at the end if they disagree.
 *
 * The table goes to stdout, and with every pod's figures to
 * bench/results/<time>-time-to-svid.json (or --out FILE).
 *
 * Needs what `npm run test:e2e` needs (it builds the binaries and images; run
 * it once first).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../test/support/real-k8s/index.js';
import { nodeUnavailable, startNode } from '../test/support/real-node/node.js';
import { SpireClient } from '../src/spire/index.js';
import { chartCsid } from '../test/real/chart.js';
import { eventually, objects } from '../test/real/world.js';
import { adminSocket, type ControllerKind, held, imagesMissing, prepareDeployment, versionsLine, workloadNamespace, workloadPod } from '../test/e2e/world.js';
import { compareWithLane, registrationTotals } from '../test/e2e/registration-compare.js';

const { values } = parseArgs({ options: { pods: { type: 'string', default: '30' }, rounds: { type: 'string', default: '1' }, out: { type: 'string' }, 'controller-cpu': { type: 'string' } } });
const N = Number(values.pods);
const ROUNDS = Number(values.rounds);
if (!(N >= 1) || !(ROUNDS >= 1)) throw new Error('--pods and --rounds take positive numbers');

const missing = nodeUnavailable() ?? imagesMissing();
if (missing) {
  console.error(`bench:svid: cannot run: ${missing}`);
  process.exit(2);
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

const plane = await startControlPlane();
const node = await startNode(plane).catch(async (err: unknown) => {
  await plane.stop();
  throw err;
});
type Phase = 'started' | 'entry' | 'svid';
const PHASES: Phase[] = ['started', 'entry', 'svid'];
const results: Record<ControllerKind, Record<Phase, number[]>> = {
  ours: { started: [], entry: [], svid: [] },
  peer: { started: [], entry: [], svid: [] },
};
/** Each measured round of ours: the histogram against the round's entry-on-the-server figures. */
const registration: { round: number; line: string; problems: string[] }[] = [];
const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${quantile(s, 0.5)} / p99 ${quantile(s, 0.99)} / max ${s[s.length - 1]}`;
};
try {
  console.log(`bench:svid: ${versionsLine(plane, node)}`);
  console.log(`bench:svid: ${N} pods a round, ${ROUNDS} round(s) per controller; SPIRE agent sync every 5 s (default), workload polls every 200 ms until its first SVID; controller CPU request ${values['controller-cpu'] ?? 'none (BestEffort, as the chart sets it)'}`);
  const o = objects(plane);
  const dep = await prepareDeployment(plane, node, values['controller-cpu'] ? { controllerCpu: values['controller-cpu'] } : {});
  await workloadNamespace(plane, 'bench', 'bench');
  await o.create(chartCsid('bench', { podSelector: { matchLabels: { app: 'bench' } }, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/pod/{{ .PodMeta.Name }}' }));
  let deployed = false;
  let round = 0;
  let spire: SpireClient | undefined;
  const runRound = async (kind: ControllerKind, measure: boolean) => {
    if (!deployed) {
      await dep.deploy(kind);
      deployed = true;
      spire = new SpireClient({ socket: adminSocket(node) });
    } else {
      await dep.swapController(kind);
    }
    // The controller holds the Lease and has listed everything once: a quiet start for the round.
    await new Promise((res) => setTimeout(res, 20_000));
    round++;
    const names = Array.from({ length: N }, (_, i) => `r${round}-${kind}-${i}`);
    // The histogram before the round: ours serves it on the chart's metrics port (the node's loopback here).
    const histogramBefore = kind === 'ours' && measure ? await registrationTotals(dep.metricsUrl) : undefined;
    const created = new Map<string, number>();
    const entryAt = new Map<string, number>();
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const now = Date.now();
        for (const e of await spire!.listEntries()) {
          const name = e.spiffe_id?.path?.split('/').pop();
          if (name && created.has(name) && !entryAt.has(name)) entryAt.set(name, now);
        }
        await new Promise((res) => setTimeout(res, 50));
      }
    })();
    for (const name of names) {
      created.set(name, Date.now());
      await o.create(workloadPod(node, 'bench', name, { app: 'bench' }, 'bench'));
    }
    await eventually(() => names.every((n) => !!held(node, 'bench', n)?.firstSVIDAt), `every ${kind} round pod holds an SVID`, 300_000);
    polling = false;
    await poll;
    if (histogramBefore) {
      const laneMs = names.map((n) => (entryAt.get(n) ?? Number.NaN) - created.get(n)!);
      // Observed once SPIRE's answer is read; the last pods' may follow the poll that saw their entries.
      let after = await registrationTotals(dep.metricsUrl);
      for (const deadline = Date.now() + 30_000; after.count - histogramBefore.count < N && Date.now() < deadline; after = await registrationTotals(dep.metricsUrl)) {
        await new Promise((res) => setTimeout(res, 200));
      }
      const c = compareWithLane(histogramBefore, after, laneMs);
      console.log(`bench:svid: round ${round} (ours): ${c.line}`);
      for (const p of c.problems) console.error(`bench:svid: round ${round} (ours): the histogram DISAGREES with the lane: ${p}`);
      registration.push({ round, ...c });
    }
    if (measure) {
      for (const name of names) {
        const h = held(node, 'bench', name)!;
        const t0 = created.get(name)!;
        results[kind].started.push(Date.parse(h.startedAt!) - t0);
        results[kind].entry.push((entryAt.get(name) ?? Number.NaN) - t0);
        results[kind].svid.push(Date.parse(h.firstSVIDAt!) - t0);
      }
      const last = (xs: number[]) => xs.slice(-N);
      console.log(
        `bench:svid: round ${round} (${kind}): process started ${summary(last(results[kind].started))} ms; entry on the server ${summary(last(results[kind].entry))} ms; first SVID ${summary(last(results[kind].svid))} ms`,
      );
    } else {
      console.log(`bench:svid: round ${round} (${kind}): warm-up, not counted`);
    }
    for (const name of names) await o.delete({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'bench' } });
  };
  await runRound('ours', false);
  for (let r = 0; r < ROUNDS; r++) {
    await runRound('peer', true);
    await runRound('ours', true);
  }
  spire?.close();
} finally {
  await node.stop();
  await plane.stop();
}

const lines = [
  `ms from a pod's creation, ${N} pods at once, ${ROUNDS} round(s) each (p50 / p99 / max)`,
  '| controller | pods | workload process started | entry on the SPIRE server | first X.509 SVID |',
  '|---|---|---|---|---|',
];
for (const kind of ['ours', 'peer'] as const) {
  lines.push(`| ${kind === 'ours' ? 'spire-reconciler' : 'spire-controller-manager'} | ${results[kind].svid.length} | ${PHASES.map((p) => summary(results[kind][p])).join(' | ')} |`);
}
console.log(lines.join('\n'));
const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
const out = values.out ?? join(resultsDir, `${new Date().toISOString().replace(/:/g, '-').slice(0, 19)}-time-to-svid.json`);
writeFileSync(
  out,
  `${JSON.stringify({ command: `npm run bench:svid -- ${process.argv.slice(2).join(' ')}`.trim(), pods: N, rounds: ROUNDS, agentSyncSeconds: 5, controllerCpu: values['controller-cpu'] ?? null, table: lines, ms: results, registration }, null, 1)}\n`,
);
console.log(`bench:svid: written to ${out}`);
const disagreements = registration.flatMap((r) => r.problems.map((p) => `round ${r.round}: ${p}`));
if (disagreements.length > 0) {
  console.error(`bench:svid: registration_seconds disagrees with the lane's timing: ${disagreements.join('; ')}`);
  process.exitCode = 1;
}
