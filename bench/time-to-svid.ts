/**
 * `npm run bench:svid -- [--pods 30] [--rounds 5] [--settle 120] [--fresh-after 5]`:
 * the latency a user feels, on a real node (the e2e lane's: kube-apiserver,
 * etcd, a kubelet, containerd, the SPIRE server and agent as pods; see
 * test/e2e/world.ts), for both controllers as the controller container of the
 * same SPIRE server pod. N workload pods are created at once (a burst), and
 * for each the time from its creation (before the create request was sent)
 * to the moment its workload first held an X.509 SVID (the workload's own
 * clock, the same machine's) is taken, with two steps on the way: the
 * workload's process started (the kubelet's part), and its entry was on the
 * SPIRE server (the controller's part; the admin socket is polled every
 * 50 ms).
 *
 * Two bursts a controller a round, as a user meets them:
 * - `fresh`: `--fresh-after` seconds after the controller container turned
 *   ready (a controller just rolled out or restarted, its caches new);
 * - `running`: once it has run for `--settle` seconds (a controller in service).
 * The controllers take turns (the peer, then ours, round after round), each
 * rolled out over the other and then restarted over itself before its
 * `fresh` burst, as an upgrade or a restart in service meets it; a round's pods are deleted and gone
 * before the next burst, and a first round, before either is measured, warms
 * the node (image layers unpacked, the agent attested and synced). The table
 * shows each figure over all pods, and the spread of the per-round medians.
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
import { parseArgs } from 'node:util';
import { SpireClient } from '../src/spire/index.js';
import { chartCsid } from '../test/real/chart.js';
import { eventually, objects } from '../test/real/world.js';
import { adminSocket, type ControllerKind, held, IMAGES, prepareDeployment, workloadNamespace, workloadPod } from '../test/e2e/world.js';
import { compareWithLane, pollEntryTimes, registrationTotals } from '../test/e2e/registration-compare.js';
import { onRealNode, writeResults } from './on-real-node.js';
import { percentile } from './stats.js';

const { values } = parseArgs({
  options: {
    pods: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '5' },
    settle: { type: 'string', default: '120' },
    'fresh-after': { type: 'string', default: '5' },
    out: { type: 'string' },
    'controller-cpu': { type: 'string' },
  },
});
const N = Number(values.pods);
const ROUNDS = Number(values.rounds);
const SETTLE_MS = Number(values.settle) * 1000;
const FRESH_AFTER_MS = Number(values['fresh-after']) * 1000;
if (!(N >= 1) || !(ROUNDS >= 1) || !(SETTLE_MS >= 0) || !(FRESH_AFTER_MS >= 0)) throw new Error('--pods and --rounds take positive numbers, --settle and --fresh-after seconds');

type Phase = 'started' | 'entry' | 'svid' | 'agent';
const PHASES: Phase[] = ['started', 'entry', 'svid', 'agent'];
const PHASE_TITLES: Record<Phase, string> = { started: 'workload process started', entry: 'entry on the SPIRE server', svid: 'first X.509 SVID', agent: 'SVID after the entry' };
type Scenario = 'fresh' | 'running';
const SCENARIOS: Scenario[] = ['fresh', 'running'];
/** One measured burst: its pods' figures by phase (ms; `agent` is the SVID less the entry). */
interface Burst {
  round: number;
  controller: ControllerKind;
  scenario: Scenario;
  /** Seconds the controller container had been ready when the burst began. */
  controllerAgeSeconds: number;
  ms: Record<Phase, number[]>;
}
const bursts: Burst[] = [];
/** Each measured burst of ours: the histogram against the burst's entry-on-the-server figures. */
const registration: { round: number; scenario: Scenario; line: string; problems: string[] }[] = [];
const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);
const summary = (xs: readonly number[]) => `p50 ${percentile(xs, 50)} / p99 ${percentile(xs, 99)} / max ${Math.max(...xs)}`;
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
/** How long the predecessor of a restarted controller runs: past a Lease the controller before it may have held (15 s). */
const PREDECESSOR_MS = 30_000;
const { versions } = await onRealNode('bench:svid', async (plane, node) => {
  console.log(
    `bench:svid: ${N} pods a burst; ${ROUNDS} round(s), each with a burst ${FRESH_AFTER_MS / 1000} s after the controller turned ready and one after ${SETTLE_MS / 1000} s, both controllers alternating; ` +
      `SPIRE agent sync every 5 s (default), workload polls every 200 ms until its first SVID; controller CPU request ${values['controller-cpu'] ?? 'none (BestEffort, as the chart sets it)'}`,
  );
  const o = objects(plane);
  const dep = await prepareDeployment(plane, node, values['controller-cpu'] ? { controllerCpu: values['controller-cpu'] } : {});
  await workloadNamespace(plane, 'bench', 'bench');
  await o.create(chartCsid('bench', { podSelector: { matchLabels: { app: 'bench' } }, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/pod/{{ .PodMeta.Name }}' }));
  await dep.deploy('ours');
  let running: ControllerKind = 'ours';
  let readyAt = Date.now();
  const spire = new SpireClient({ socket: adminSocket(node) });
  let bursts_ = 0;
  let tags = 0;
  /** The controller container rolled out with `kind`'s image under a new tag: a new process even when `kind` runs already. */
  const rollOut = async (kind: ControllerKind) => {
    const image = kind === 'ours' ? IMAGES.ours : IMAGES.peer;
    const tagged = `${image.split(':')[0]}:svid-${++tags}`;
    await node.tagImage(image, tagged);
    await dep.swapController(kind, tagged);
    running = kind;
    readyAt = Date.now();
  };
  const burst = async (round: number, scenario: Scenario | 'warm-up') => {
    const kind = running;
    const names = Array.from({ length: N }, (_, i) => `b${++bursts_}-${kind}-${i}`);
    const measure = scenario !== 'warm-up';
    // The histogram before the burst: ours serves it on the chart's metrics port (the node's loopback here).
    const histogramBefore = kind === 'ours' && measure ? await registrationTotals(dep.metricsUrl) : undefined;
    const controllerAgeSeconds = (Date.now() - readyAt) / 1000;
    const created = new Map<string, number>();
    const { entryAt, stop: stopPolling } = pollEntryTimes(spire, created);
    for (const name of names) {
      created.set(name, Date.now());
      await o.create(workloadPod(node, 'bench', name, { app: 'bench' }, 'bench'));
    }
    await eventually(() => names.every((n) => !!held(node, 'bench', n)?.firstSVIDAt), `every pod of ${kind}'s burst holds an SVID`, 300_000);
    await stopPolling();
    if (histogramBefore && scenario !== 'warm-up') {
      const laneMs = names.map((n) => (entryAt.get(n) ?? Number.NaN) - created.get(n)!);
      // Observed once SPIRE's answer is read; the last pods' may follow the poll that saw their entries.
      let after = await registrationTotals(dep.metricsUrl);
      for (const deadline = Date.now() + 30_000; after.count - histogramBefore.count < N && Date.now() < deadline; after = await registrationTotals(dep.metricsUrl)) await sleep(200);
      const c = compareWithLane(histogramBefore, after, laneMs);
      console.log(`bench:svid: round ${round} ${scenario} (ours): ${c.line}`);
      for (const p of c.problems) console.error(`bench:svid: round ${round} ${scenario} (ours): the histogram DISAGREES with the lane: ${p}`);
      registration.push({ round, scenario, ...c });
    }
    if (scenario !== 'warm-up') {
      const ms: Record<Phase, number[]> = { started: [], entry: [], svid: [], agent: [] };
      for (const name of names) {
        const h = held(node, 'bench', name)!;
        const t0 = created.get(name)!;
        const entry = (entryAt.get(name) ?? Number.NaN) - t0;
        const svid = Date.parse(h.firstSVIDAt!) - t0;
        ms.started.push(Date.parse(h.startedAt!) - t0);
        ms.entry.push(entry);
        ms.svid.push(svid);
        ms.agent.push(svid - entry);
      }
      bursts.push({ round, controller: kind, scenario, controllerAgeSeconds, ms });
      console.log(
        `bench:svid: round ${round} ${scenario} (${kind}, ready ${controllerAgeSeconds.toFixed(0)} s): ` + PHASES.map((p) => `${PHASE_TITLES[p]} ${summary(ms[p])}`).join('; ') + ' ms',
      );
    } else {
      console.log(`bench:svid: warm-up burst (${kind}), not counted`);
    }
    for (const name of names) await o.delete({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'bench' } });
    // Gone before the next burst: pods still terminating would share its node and its API server.
    await eventually(async () => (await plane.request<{ items: unknown[] }>('GET', '/api/v1/namespaces/bench/pods')).items.length === 0, `${kind}'s burst pods gone`, 300_000);
  };
  await sleep(20_000);
  await burst(0, 'warm-up');
  for (let round = 1; round <= ROUNDS; round++) {
    for (const kind of ['peer', 'ours'] as const) {
      // In place of the other controller, then restarted as itself (a rollout of its own): a `fresh` burst
      // meets a controller whose predecessor was the same (it let go of the Lease as it stopped, the other
      // may not), as after an upgrade or a restart in service.
      await rollOut(kind);
      await sleep(PREDECESSOR_MS);
      await rollOut(kind);
      await sleep(Math.max(0, readyAt + FRESH_AFTER_MS - Date.now()));
      await burst(round, 'fresh');
      await sleep(Math.max(0, readyAt + SETTLE_MS - Date.now()));
      await burst(round, 'running');
    }
  }
  spire.close();
});

const lines = [
  `ms from a pod's creation, ${N} pods a burst, ${ROUNDS} round(s); p50 / p99 / max over all pods, then [lowest - highest] of the bursts' medians`,
  `| burst | controller | pods | ${PHASES.map((p) => PHASE_TITLES[p]).join(' | ')} |`,
  `|---|---|---|${PHASES.map(() => '---').join('|')}|`,
];
for (const scenario of SCENARIOS) {
  for (const kind of ['ours', 'peer'] as const) {
    const of = bursts.filter((b) => b.scenario === scenario && b.controller === kind);
    if (of.length === 0) continue;
    const cell = (p: Phase) => {
      const medians = sorted(of.map((b) => percentile(b.ms[p], 50)));
      return `${summary(of.flatMap((b) => b.ms[p]))} [${medians[0]} - ${medians[medians.length - 1]}]`;
    };
    const name = kind === 'ours' ? 'spire-reconciler' : 'spire-controller-manager';
    lines.push(`| ${scenario === 'fresh' ? `${FRESH_AFTER_MS / 1000} s after ready` : `after ${SETTLE_MS / 1000} s`} | ${name} | ${of.length * N} | ${PHASES.map(cell).join(' | ')} |`);
  }
}
console.log(lines.join('\n'));
const command = `npm run bench:svid -- ${process.argv.slice(2).join(' ')}`.trim();
const results = { command, versions, pods: N, rounds: ROUNDS, settleSeconds: SETTLE_MS / 1000, freshAfterSeconds: FRESH_AFTER_MS / 1000, agentSyncSeconds: 5, controllerCpu: values['controller-cpu'] ?? null, table: lines, bursts, registration };
console.log(`bench:svid: written to ${writeResults('time-to-svid', values.out, results)}`);
const disagreements = registration.flatMap((r) => r.problems.map((p) => `round ${r.round} ${r.scenario}: ${p}`));
if (disagreements.length > 0) {
  console.error(`bench:svid: registration_seconds disagrees with the lane's timing: ${disagreements.join('; ')}`);
  process.exitCode = 1;
}
