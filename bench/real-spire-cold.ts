/**
 * `npm run bench -- --peer PATH --spire real [--pods 3000,10000] [--runs 3]
 * [--bundle] [--memory-limit 256]`: a cold
 * start against a real SPIRE server (scripts/real-spire/install.sh builds it;
 * sqlite datastore and disk keys, the chart's defaults), ours against
 * spire-controller-manager. Each start gets a fresh SPIRE server with an
 * empty datastore and a fresh in-process API server holding the synthetic
 * cluster (bench/cluster.ts); the figure is from the controller's process
 * start to the moment SPIRE counts every entry (CountEntries, polled every
 * 100 ms), with the CPU seconds each process used meanwhile. The two
 * controllers take turns, run after run, so a machine that gets busier or
 * quieter weighs on both alike.
 *
 * The in-memory SPIRE server of `npm run bench` takes a create in
 * microseconds; the real one stores each entry in its own transaction, so
 * here what SPIRE spends on the writes shows.
 */
import { type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SpireClient } from '../src/spire/index.js';
import { startRealSpire } from '../test/support/real-spire.js';
import { stopBySignal } from './children.js';
import { buildOurs, configFile, cpuSeconds, type ControllerKind, expectedEntries, forkReady, spawnController } from './side-by-side.js';
import { median } from './stats.js';

export interface RealSpireColdOptions {
  peer: string;
  sizes: number[];
  runs: number;
  bundle: boolean;
  memoryLimitMiB?: number;
}

/** The one-minute load average, to read a figure by. */
const load = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

interface ColdFigure {
  controller: ControllerKind;
  pods: number;
  run: number;
  /** Process start to SPIRE counting every entry; NaN if it did not within the timeout. */
  coldMs: number;
  controllerCpuSeconds: number;
  spireCpuSeconds: number;
  load: number;
}

async function coldStart(kind: ControllerKind, pods: number, o: RealSpireColdOptions, ours: string): Promise<Omit<ColdFigure, 'run'>> {
  const dir = mkdtempSync(join(tmpdir(), `spire-reconciler-real-spire-cold-${kind}-`));
  const children: ChildProcess[] = [];
  const spire = await startRealSpire({ trustDomain: 'example.org' });
  const client = new SpireClient({ socket: spire.socketPath });
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    const config = join(dir, 'config.yaml');
    writeFileSync(config, configFile(spire.socketPath, 10));
    children.push(await forkReady('kube-child.ts', [String(pods), kubeconfig]));
    const target = expectedEntries(pods);
    const spireCpu0 = cpuSeconds(spire.pid);
    const startedAt = Date.now();
    const controller = spawnController(kind, { peer: o.peer, apiserver: 'fake', events: 0, ratePerSecond: 0, gcIntervalSeconds: 10, coldTimeoutMs: 0, memoryLimitMiB: o.memoryLimitMiB }, ours, config, kubeconfig, dir);
    children.push(controller);
    let exited: string | undefined;
    controller.once('exit', (code, signal) => (exited = `${code ?? signal}`));
    const deadline = startedAt + 600_000;
    let coldMs = NaN;
    while (Date.now() < deadline && exited === undefined) {
      const n = await client.countEntries().catch(() => 0);
      if (n >= target) {
        coldMs = Date.now() - startedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (exited !== undefined) throw new Error(`${kind} exited (${exited}) before SPIRE held ${target} entries`);
    return { controller: kind, pods, coldMs, controllerCpuSeconds: cpuSeconds(controller.pid), spireCpuSeconds: cpuSeconds(spire.pid) - spireCpu0, load: load() };
  } finally {
    client.close();
    for (const c of children.reverse()) await stopBySignal(c);
    await spire.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function realSpireColdStarts(o: RealSpireColdOptions): Promise<void> {
  const ours = buildOurs(o.bundle);
  const figures: ColdFigure[] = [];
  for (const pods of o.sizes) {
    for (let run = 1; run <= o.runs; run++) {
      for (const kind of run % 2 === 1 ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const)) {
        const f = { ...(await coldStart(kind, pods, o, ours)), run };
        figures.push(f);
        console.log(`real-spire-cold: ${kind} at ${pods} pods, run ${run}: ${f.coldMs} ms, CPU s controller ${f.controllerCpuSeconds.toFixed(2)} / SPIRE ${f.spireCpuSeconds.toFixed(2)}, load ${f.load}`);
      }
    }
}
  const lines = ['| pods | controller | cold ms (each run) | median | controller CPU s | SPIRE CPU s |', '|---|---|---|---|---|---|'];
  for (const pods of o.sizes) {
    for (const kind of ['ours', 'peer'] as const) {
      const of = figures.filter((f) => f.pods === pods && f.controller === kind);
      lines.push(`| ${pods.toLocaleString('en-US')} | ${kind === 'ours' ? 'spire-reconciler' : 'spire-controller-manager'} | ${of.map((f) => f.coldMs).join(', ')} | ${median(of.map((f) => f.coldMs))} | ${median(of.map((f) => f.controllerCpuSeconds)).toFixed(2)} | ${median(of.map((f) => f.spireCpuSeconds)).toFixed(2)} |`);
    }
}
  console.log(lines.join('\n'));
  // Compiled into .bench/bench/ by npm run bench: the results go beside the sources either way.
  const resultsDir = fileURLToPath(new URL(import.meta.url.endsWith('.js') ? '../../bench/results/' : './results/', import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  const out = join(resultsDir, `${new Date().toISOString().replace(/:/g, '-').slice(0, 19)}-real-spire-cold.json`);
  writeFileSync(out, `${JSON.stringify({ command: `npm run bench -- ${process.argv.slice(2).join(' ')}`, table: lines, figures }, null, 1)}\n`);
  console.log(`real-spire-cold: written to ${out}`);
}
