/**
 * How long the SPIRE server pod is out of its Service (NotReady) on account of
 * its controller container, ours against spire-controller-manager, on a real
 * node: the helm chart's layout (test/e2e/world.ts), the kubelet probing every
 * container every 2 s. A pod is Ready only while every container is, so
 * whatever the controller container's readiness does, the SPIRE server's place
 * in its Service does too.
 *
 * Three ways a controller container stops being ready, each taken for both
 * controllers with the same number of pods in the API server (pods bound to a
 * node no kubelet runs, selected by a ClusterSPIFFEID, so every one has its
 * entry on the SPIRE server):
 * - a rollout: the container's image changed in the running pod (a values
 *   change of the chart), the old container stopped with SIGTERM;
 * - a crash: the container SIGKILLed, restarted by the kubelet. Each crash is
 *   the first exit of that container in a SPIRE server pod made afresh (its
 *   data kept, as a StatefulSet's volume keeps it): the kubelet backs off
 *   (10 s, then doubling) from restarting a container that exited within the
 *   last ten minutes, a rollout's restart included, and that wait would
 *   measure the kubelet, the same for both;
 * - an outage of the API server as the controller sees it: the controller
 *   reaches the API server through a proxy the test cuts for a while (the
 *   kubelet and the SPIRE server keep theirs, so the pod's status is still
 *   reported and the SPIRE server still attests agents).
 *
 * The pod's Ready condition is read from the API server every 100 ms; a
 * duration is the time it was False between the cause and the moment the pod
 * had been Ready again for `settleMs`.
 */
import { kubeStream } from '../../src/kube/rest.js';
import { SpireClient } from '../../src/spire/index.js';
import type { ControlPlane } from '../support/real-k8s/index.js';
import type { RealNode } from '../support/real-node/node.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { eventually } from '../real/world.js';
import { createGhostPods, prepareGhosts, registered } from './ghosts.js';
import { adminSocket, CONTROLLER, type ControllerKind, type Deployment, IMAGES, prepareDeployment, SERVER_NS, SERVER_POD } from './world.js';

export type Cause = 'rollout' | 'crash' | 'outage';

export interface NotReadyFigure {
  controller: ControllerKind;
  pods: number;
  cause: Cause;
  /** Milliseconds the SPIRE server pod was NotReady. */
  notReadyMs: number;
  /** Restarts of the controller container meanwhile (the kubelet's count). */
  restarts: number;
}

export interface NotReadyOptions {
  /** Pods in the API server, ascending; each count is measured for both controllers. */
  podCounts: number[];
  /** Rollouts and crashes per controller and count. */
  runs: number;
  /** The controllers whose outage is measured (at the last count), and for how long the API server is out of their reach. */
  outage: ControllerKind[];
  outageMs: number;
  /** Ready again this long before a figure is taken. Default 5 s. */
  settleMs?: number;
  /** How long a rolled-out controller runs before it is crashed: past its start, as a crash in service would find it. Default 15 s. */
  steadyMs?: number;
  log: (line: string) => void;
}

type PodConditions = { status?: { conditions?: { type: string; status: string }[] } };

interface Transition {
  at: number;
  ready: boolean;
}

/**
 * The server pod's Ready condition, watched: transitions with this process's
 * clock as each event arrives. A watch, not polling: a poll every 100 ms put
 * every figure on a 100 ms grid (950 or 1,050 ms), coarser than the
 * differences being measured.
 */
export function watchReadiness(plane: ControlPlane) {
  const transitions: Transition[] = [];
  const stopping = new AbortController();
  const seen = (p: PodConditions) => {
    const ready = !!p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    if (transitions.at(-1)?.ready !== ready) transitions.push({ at: Date.now(), ready });
  };
  const path = `/api/v1/namespaces/${SERVER_NS}/pods`;
  const fieldSelector = `metadata.name=${SERVER_POD}`;
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      try {
        // A list first, so a pod already Ready (or gone) is known before the first event.
        const list = await plane.request<{ metadata: { resourceVersion: string }; items: PodConditions[] }>('GET', path, { query: { fieldSelector } });
        for (const p of list.items) seen(p);
        if (list.items.length === 0) seen({});
        const body = await kubeStream(plane.admin, path, { query: { watch: 'true', fieldSelector, resourceVersion: list.metadata.resourceVersion, timeoutSeconds: '300' }, signal: stopping.signal });
        let buffered = '';
        const decoder = new TextDecoder();
        for await (const chunk of body) {
          buffered += decoder.decode(chunk, { stream: true });
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const event = JSON.parse(buffered.slice(0, nl)) as { type: string; object: PodConditions };
            buffered = buffered.slice(nl + 1);
            if (event.type === 'ADDED' || event.type === 'MODIFIED') seen(event.object);
            else if (event.type === 'DELETED') seen({});
          }
        }
      } catch {
        if (!stopping.signal.aborted) await new Promise((r) => setTimeout(r, 100));
      }
    }
  })();
  return {
    ready: () => transitions.at(-1)?.ready ?? false,
    /** Ready without a break since at least `ms` ago. */
    readyFor: (ms: number) => {
      const last = transitions.at(-1);
      return !!last?.ready && Date.now() - last.at >= ms;
    },
    /** Milliseconds NotReady within [from, to]. */
    notReadyMs(from: number, to: number): number {
      let total = 0;
      let state = [...transitions].reverse().find((t) => t.at <= from)?.ready ?? true;
      let since = from;
      for (const t of transitions.filter((x) => x.at > from && x.at <= to)) {
        if (!state) total += t.at - since;
        state = t.ready;
        since = t.at;
      }
      if (!state) total += to - since;
      return total;
    },
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}

export interface NotReadyRun {
  figures: NotReadyFigure[];
  /** The SPIRE server's entries (ID and revision) before and after each outage, per controller: what a controller that writes nothing leaves as it was. */
  entriesKept: Partial<Record<ControllerKind, boolean>>;
}

/** Deploys the SPIRE server pod and measures every case of `opts`; the caller owns the control plane and the node. */
export async function measureNotReady(plane: ControlPlane, node: RealNode, opts: NotReadyOptions): Promise<NotReadyRun> {
  const settleMs = opts.settleMs ?? 5_000;
  const steadyMs = opts.steadyMs ?? 15_000;
  const api = new URL(plane.url);
  const proxy: TcpProxy = await startTcpProxy({ host: api.hostname, port: Number(api.port) });
  const [proxyHost, proxyPort] = proxy.address.split(':') as [string, string];
  const dep: Deployment = await prepareDeployment(plane, node, { controllerApi: { host: proxyHost, port: Number(proxyPort) }, persistentServer: true });
  await prepareGhosts(plane);
  const watch = watchReadiness(plane);
  const figures: NotReadyFigure[] = [];
  const entriesKept: NotReadyRun['entriesKept'] = {};
  let spire: SpireClient | undefined;
  let running: ControllerKind = 'ours';
  let tags = 0;
  const restarts = async () => (await dep.containerStatus(CONTROLLER))?.restartCount ?? 0;
  // The pod Ready again and the controller container ready, for settleMs.
  const settled = (what: string, timeoutMs = 300_000) =>
    eventually(async () => watch.readyFor(settleMs) && !!(await dep.containerStatus(CONTROLLER))?.ready, what, timeoutMs);
  const record = (f: NotReadyFigure) => {
    figures.push(f);
    opts.log(`${f.controller} at ${f.pods} pods, ${f.cause}: NotReady ${(f.notReadyMs / 1000).toFixed(2)} s, ${f.restarts} restart(s)`);
  };
  const rollout = async (kind: ControllerKind, pods: number, measure: boolean) => {
    const tagged = `${(kind === 'ours' ? IMAGES.ours : IMAGES.peer).split(':')[0]}:nr-${++tags}`;
    await node.tagImage(kind === 'ours' ? IMAGES.ours : IMAGES.peer, tagged);
    const before = await restarts();
    const t0 = Date.now();
    await dep.swapController(kind, tagged);
    running = kind;
    await settled(`${kind} rolled out and settled`);
    if (measure) record({ controller: kind, pods, cause: 'rollout', notReadyMs: watch.notReadyMs(t0, Date.now()), restarts: (await restarts()) - before });
  };
  const crash = async (kind: ControllerKind, pods: number) => {
    await dep.recreateServer(kind);
    running = kind;
    await settled(`${kind} in a new SPIRE server pod`);
    await new Promise((res) => setTimeout(res, steadyMs));
    const status = (await dep.containerStatus(CONTROLLER))!;
    const t0 = Date.now();
    await node.killContainer(status.containerID!);
    await eventually(async () => ((await dep.containerStatus(CONTROLLER))?.restartCount ?? 0) > status.restartCount, `the kubelet restarted ${kind}`, 120_000);
    await settled(`${kind} restarted and settled`);
    record({ controller: kind, pods, cause: 'crash', notReadyMs: watch.notReadyMs(t0, Date.now()), restarts: (await restarts()) - status.restartCount });
  };
  const snapshot = async () => {
    const out: Record<string, string> = {};
    for await (const page of spire!.entryPages()) for (const e of page) out[e.id!] = `${e.spiffe_id?.path} r${e.revision_number ?? 0}`;
    return out;
  };
  try {
    await dep.deploy('ours');
    spire = new SpireClient({ socket: adminSocket(node) });
    let pods = 0;
    for (const count of opts.podCounts) {
      if (count > pods) {
        const started = Date.now();
        await createGhostPods(plane, pods, count);
        pods = count;
        await eventually(() => registered(spire!, count), `${count} pods registered by ${running}`, 900_000);
        opts.log(`${count} pods created and registered by ${running} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      }
      // Run by run, the two alternating (the one running now first), so a machine that gets busier
      // or quieter over the measurement weighs on both alike.
      for (let r = 0; r < opts.runs; r++) {
        for (const kind of running === 'ours' ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const)) {
          await rollout(kind, pods, true);
          await crash(kind, pods);
        }
      }
    }
    for (const kind of opts.outage) {
      if (running !== kind) await rollout(kind, pods, false);
      // A quiet start: the controller has listed everything and holds the Lease.
      await new Promise((r) => setTimeout(r, 20_000));
      const before = await snapshot();
      const count = await restarts();
      const t0 = Date.now();
      await proxy.cut();
      await new Promise((r) => setTimeout(r, opts.outageMs));
      await proxy.restore();
      await settled(`${kind} back after the outage`, 600_000);
      // The crash loop of a controller that exits on a lost Lease restarts it late; give a later restart its chance to show.
      await new Promise((r) => setTimeout(r, 20_000));
      await settled(`${kind} still ready`, 600_000);
      record({ controller: kind, pods, cause: 'outage', notReadyMs: watch.notReadyMs(t0, Date.now()), restarts: (await restarts()) - count });
      entriesKept[kind] = JSON.stringify(await snapshot()) === JSON.stringify(before);
    }
  } finally {
    await watch.stop();
    spire?.close();
    await proxy.close();
  }
  return { figures, entriesKept };
}

/** The figures as a Markdown table: one row per count and cause, the runs of each controller in seconds. */
export function notReadyTable(figures: readonly NotReadyFigure[]): string[] {
  const seconds = (fs: NotReadyFigure[]) => (fs.length === 0 ? '-' : fs.map((f) => `${(f.notReadyMs / 1000).toFixed(2)}${f.restarts > 1 ? ` (${f.restarts} restarts)` : ''}`).join(', '));
  const rows = new Map<string, { pods: number; cause: Cause }>();
  for (const f of figures) rows.set(`${f.pods} ${f.cause}`, { pods: f.pods, cause: f.cause });
  const lines = ['| pods in the API server | cause | spire-reconciler (s NotReady) | spire-controller-manager (s NotReady) |', '|---|---|---|---|'];
  for (const { pods, cause } of rows.values()) {
    const of = (c: ControllerKind) => figures.filter((f) => f.pods === pods && f.cause === cause && f.controller === c);
    lines.push(`| ${pods.toLocaleString('en-US')} | ${cause} | ${seconds(of('ours'))} | ${seconds(of('peer'))} |`);
  }
  return lines;
}
