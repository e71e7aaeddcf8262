/**
 * `npm run bench -- --relist-cost --pods 10000,100000 [--apiserver real]`:
 * what one relist of every informer costs, for choosing relistInterval's
 * default (docs/reliability.md, "After an etcd restore"). Our controller runs
 * as `run` in its own process (as the side-by-side benchmark runs it) on the
 * synthetic cluster, with relistInterval set to `--relist-interval S`
 * (default 120) and gcInterval 1 h (with `--memory-limit MiB`, through the
 * image's entrypoint sized for that limit), so nothing but the periodic relists
 * (and the full pass each one ends with) runs after the cold start.
 *
 * Measured from outside, sampled every 250 ms: the CPU seconds of the
 * controller and of the API server (the in-process one's child, or
 * kube-apiserver and etcd) from a relist's start (the metric
 * spire_reconciler_informer_relists_total{reason="periodic"} moving) until
 * the full pass after it has ended and 2 s have passed, less what the same
 * processes spend idle over as long (measured before the first relist); the
 * relist's length; and the controller's resident memory and V8 heap, steady
 * before and the highest sample during. Prints one JSON line per relist.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopByDisconnect, stopBySignal } from './children.js';
import { ask, buildOurs, cpuSeconds, expectedEntries, forkReady, memory, quiet, spawnController } from './side-by-side.js';
import { freePort } from '../test/support/ports.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const compiled = import.meta.url.endsWith('.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface RelistCostOptions {
  apiserver: 'fake' | 'real';
  relistSeconds: number;
  /** Relists measured per size. */
  relists: number;
  /** As the side-by-side benchmark's option: ours through the image's entrypoint, sized for this memory limit (MiB). */
  memoryLimitMiB?: number;
}

interface Sample {
  at: number;
  ours: number;
  api: number;
  rssMiB: number;
  heapMiB: number;
  periodic: number;
  passes: number;
  informers: number;
}

/** The processes serving the API: the child itself (the in-process server), or what it started (kube-apiserver, etcd). */
function apiPids(kube: ChildProcess, apiserver: 'fake' | 'real'): number[] {
  if (apiserver === 'fake') return [kube.pid!];
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.split(') ')[1]!.split(' ')[1]) === kube.pid) pids.push(Number(d));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

async function scrape(url: string): Promise<{ periodic: number; passes: number; heapMiB: number; informers: number }> {
  const text = await (await fetch(url)).text();
  const sum = (re: RegExp) => [...text.matchAll(re)].reduce((s, m) => s + Number(m[1]), 0);
  return {
    periodic: sum(/^spire_reconciler_informer_relists_total\{[^}]*reason="periodic"[^}]*\} (\S+)$/gm),
    passes: sum(/^spire_reconciler_pass_seconds_count (\S+)$/gm),
    heapMiB: sum(/^nodejs_heap_size_used_bytes (\S+)$/gm) / 2 ** 20,
    // One series per informer.
    informers: [...text.matchAll(/^spire_reconciler_informer_stale_seconds\{/gm)].length,
  };
}

function configFile(socket: string, metricsPort: number, relistSeconds: number): string {
  return [
    'apiVersion: spire.spiffe.io/v1alpha1',
    'kind: ControllerManagerConfig',
    'trustDomain: example.org',
    'clusterName: bench',
    'clusterDomain: cluster.local',
    `spireServerSocketPath: ${JSON.stringify(socket)}`,
    'gcInterval: 1h',
    `relistInterval: ${relistSeconds}s`,
    'entryIDPrefix: scm',
    'ignoreNamespaces: [kube-system, kube-public, spire-system]',
    'logLevel: error',
    `metrics: {bindAddress: "127.0.0.1:${metricsPort}"}`,
    'health: {healthProbeBindAddress: "0"}',
    '',
  ].join('\n');
}

export async function relistCost(pods: number, o: RelistCostOptions, ours: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'spire-reconciler-relist-cost-'));
  const children: ChildProcess[] = [];
  let kube: ChildProcess | undefined;
  try {
    const socket = join(dir, 'spire.sock');
    const kubeconfig = join(dir, 'kubeconfig');
    const config = join(dir, 'config.yaml');
    const metricsPort = await freePort();
    writeFileSync(config, configFile(socket, metricsPort, o.relistSeconds));
    const spire = await forkReady('spire-child.ts', [socket]);
    children.push(spire);
    kube = await forkReady(o.apiserver === 'real' ? 'real-kube-child.ts' : 'kube-child.ts', [String(pods), kubeconfig]);
    children.push(kube);
    // As the other benchmarks: a bare list first, so the in-process server's slow first list after its fill is not counted.
    execFileSync(process.execPath, [...(compiled ? [join(here, 'list-child.js')] : ['--import', 'tsx', join(here, 'list-child.ts')]), kubeconfig], { encoding: 'utf8' });
    const api = apiPids(kube, o.apiserver);

    const converged = ask<{ at: number }>(spire, { type: 'target', entries: expectedEntries(pods) }, 'converged');
    const started = Date.now();
    const controller = spawnController('ours', { peer: '', apiserver: o.apiserver, events: 0, ratePerSecond: 0, gcIntervalSeconds: 3600, coldTimeoutMs: 0, ...(o.memoryLimitMiB ? { memoryLimitMiB: o.memoryLimitMiB } : {}) }, ours, config, kubeconfig, dir);
    children.push(controller);
    await converged;
    const coldMs = Date.now() - started;
    await quiet(spire, 3_000, 120_000);

    const metrics = `http://127.0.0.1:${metricsPort}/metrics`;
    const samples: Sample[] = [];
    const sample = async () => {
      const m = await scrape(metrics);
      samples.push({ at: Date.now(), ours: cpuSeconds(controller.pid), api: api.reduce((s, pid) => s + cpuSeconds(pid), 0), rssMiB: memory(controller.pid).rss, ...m });
    };
    // Idle: from now until the first relist, which comes relistInterval after the first lists.
    await sample();
    while (samples.at(-1)!.periodic === 0 && Date.now() - started < (o.relistSeconds + 60) * 1000) {
      await sleep(250);
      await sample();
    }
    const idle = samples.slice(0, -1);
    if (idle.length < 8) throw new Error(`relist-cost: ${(idle.length * 0.25).toFixed(1)} s of idleness before the first relist: raise --relist-interval above the cold start (${coldMs} ms) and a few seconds`);
    const span = (idle.at(-1)!.at - idle[0]!.at) / 1000;
    const idleOurs = (idle.at(-1)!.ours - idle[0]!.ours) / span;
    const idleApi = (idle.at(-1)!.api - idle[0]!.api) / span;
    const steady = { rssMiB: Math.min(...idle.map((s) => s.rssMiB)), heapMiB: Math.min(...idle.map((s) => s.heapMiB)) };

    for (let n = 1; n <= o.relists; n++) {
      // The first informer's relist began between the last sample and the one before it; each
      // informer counts relistInterval from its own last list, so the others follow within seconds.
      const from = samples.at(-2)!;
      let all: Sample | undefined;
      let settledSince: number | undefined;
      for (;;) {
        await sleep(250);
        await sample();
        const last = samples.at(-1)!;
        const previous = samples.at(-2)!;
        if (!all && last.periodic - from.periodic >= last.informers) all = last;
        // Done: every informer has relisted, the full pass their relists asked for has ended
        // (or none came within 5 s), and 2 s have passed with no other pass.
        const passed = all !== undefined && (last.passes > all.passes || last.at - all.at >= 5_000);
        if (passed && last.passes === previous.passes) settledSince ??= last.at;
        else settledSince = undefined;
        if (settledSince !== undefined && last.at - settledSince >= 2_000) break;
      }
      const to = samples.at(-1)!;
      const during = samples.filter((s) => s.at >= from.at && s.at <= to.at);
      const seconds = (to.at - from.at) / 1000;
      console.log(
        JSON.stringify({
          pods,
          apiserver: o.apiserver,
          memoryLimitMiB: o.memoryLimitMiB ?? null,
          relist: n,
          informerRelists: to.periodic - from.periodic,
          windowSeconds: Number(seconds.toFixed(1)),
          oursCpuSeconds: Number((to.ours - from.ours - idleOurs * seconds).toFixed(2)),
          apiCpuSeconds: Number((to.api - from.api - idleApi * seconds).toFixed(2)),
          idleCpuPerHour: { ours: Number((idleOurs * 3600).toFixed(1)), api: Number((idleApi * 3600).toFixed(1)) },
          rssMiB: { steady: Math.round(steady.rssMiB), peak: Math.round(Math.max(...during.map((s) => s.rssMiB))) },
          heapMiB: { steady: Math.round(steady.heapMiB), peak: Math.round(Math.max(...during.map((s) => s.heapMiB))) },
          coldMs,
        }),
      );
      if (n === o.relists) break;
      // The next relist: relistInterval after this one's lists completed.
      const before = samples.at(-1)!.periodic;
      while (samples.at(-1)!.periodic === before) {
        await sleep(250);
        await sample();
      }
    }
  } finally {
    for (const c of children.reverse()) await (o.apiserver === 'real' && c === kube ? stopByDisconnect(c) : stopBySignal(c));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function relistCosts(sizes: number[], o: RelistCostOptions): Promise<void> {
  const ours = buildOurs();
  for (const pods of sizes) await relistCost(pods, o, ours);
}
