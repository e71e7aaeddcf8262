/**
 * `npm run bench`: the controller against a synthetic cluster, next to the
 * floors a bare client reaches on the same socket. A benchmark, not a test:
 * it prints figures and writes them to bench/results/<date>.json.
 *
 *   npm run bench                       # N = 1,000, 10,000 and 100,000
 *   npm run bench -- --pods 10000 --runs 3
 *   npm run bench -- --peer PATH        # side by side with a spire-controller-manager binary (side-by-side.ts)
 *   npm run bench -- --peer PATH --memory-limit 256   # ours through the image's entrypoint, sized for a 256 MiB limit
 *   npm run bench -- --peer PATH --bundle             # ours bundled into one file, as the image's build does
 *   npm run bench -- --peer PATH --spire real --pods 3000,10000   # cold starts against a real SPIRE server (real-spire-cold.ts)
 *   npm run bench -- --ours-only --pods 10000 --memory-limit 256   # ours measured as beside the peer, alone (ours-only.ts)
 *   npm run bench -- --ours-only --pods 100000 --gc-entries 0     # and with its gcEntriesPerInterval (0: every entry every gcInterval)
 *   npm run bench -- --relist-cost --pods 10000,100000   # one relist of every informer, for relistInterval (relist-cost.ts)
 *   npm run bench -- --pods 10000 --apiserver real   # a real kube-apiserver and etcd
 *   npm run bench -- --pods 100000 --gc-interval 10  # full resyncs every 10 s while pod events are timed
 *   npm run bench -- --pods 100000 --stretches       # and the event loop's longest stretches meanwhile
 *
 * Processes: the SPIRE server (in memory) and the Kubernetes API server
 * (the in-process fake, or a real one) each run in a child, so this process's CPU and memory
 * are the controller's alone. Next to the cold start: its floor (a bare
 * client pushing the pre-rendered entries), the pod list alone (a bare
 * client listing every pod as the controller does), and the CPU seconds
 * each of the three processes used on the two shared cores.
 */
import { type ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { pino } from 'pino';
import { defaultConfig } from '../src/api/index.js';
import { passOptions } from '../src/cli/context.js';
import { loadKubeConfig } from '../src/kube/kubeconfig.js';
import { startLive } from '../src/manager/live.js';
import { stopByDisconnect } from './children.js';
import { oursOnly } from './ours-only.js';
import { relistCosts } from './relist-cost.js';
import { realSpireColdStarts } from './real-spire-cold.js';
import { sideBySide } from './side-by-side-report.js';
import { residentByMapping } from './side-by-side.js';
import { median, percentile } from './stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = fileURLToPath(new URL('.', import.meta.url));
// `npm run bench` runs the compiled code (tsconfig.bench.json, to .bench/), as the image does: under tsx the
// transpiler and its source maps add about 90 MiB to every process's resident memory. Run with tsx, it runs the sources.
const compiled = import.meta.url.endsWith('.js');
/** Node's arguments to run a script of this repository (a path from its root, in TypeScript). */
function script(path: string): string[] {
  return compiled ? [join(root, path.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', join(root, path)];
}
if (compiled) {
  // Found next to the compiled modules, as next to the sources (the CLI reads its version from package.json).
  for (const dir of ['proto', 'crds', 'scripts', 'examples', 'package.json']) if (!existsSync(join(root, dir))) symlinkSync(join(root, '..', dir), join(root, dir));
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

// The machine's load average at the start and the end: on shared cores, it says how much the times mean.
const loadAtStart = loadavg();
const sizes = arg('pods') ? arg('pods')!.split(',').map(Number) : [1_000, 10_000, 100_000];
const runs = Number(arg('runs') ?? 3);
// `--apiserver real`: a real kube-apiserver and etcd (npm run real:build) in place of the in-process fake.
const apiserver = arg('apiserver') ?? 'fake';
if (apiserver !== 'fake' && apiserver !== 'real') throw new Error(`--apiserver: "${apiserver}" is neither fake nor real`);
const EVENTS = Number(arg('events') ?? 1_000);
const RATE = 100;
// `--gc-interval S`: the controller's gcInterval, so that full resyncs run while pod events are timed (default 1 h: none do).
const GC_INTERVAL_SECONDS = Number(arg('gc-interval') ?? 3600);
// `--stretches`: time the event loop's turns while pod events are timed (see the event phase).
const STRETCHES = process.argv.includes('--stretches');
// BENCH_MEMORY_ONLY=1: no floors (memory figures, sooner; every time ratio reads "-").
const memoryOnly = Boolean(process.env.BENCH_MEMORY_ONLY);

const limit = arg('memory-limit');
if (limit !== undefined && !(Number(limit) >= 64)) throw new Error(`--memory-limit: "${limit}" is not a number of MiB of at least 64`);
if (process.argv.includes('--relist-cost')) {
  await relistCosts(sizes, { apiserver, relistSeconds: Number(arg('relist-interval') ?? 120), relists: Number(arg('relists') ?? 2), ...(limit !== undefined ? { memoryLimitMiB: Number(limit) } : {}) });
  process.exit(0);
}
if (process.argv.includes('--ours-only')) {
  for (const pods of sizes) {
    const gcEntries = arg('gc-entries');
    await oursOnly({ pods, apiserver, events: EVENTS, ratePerSecond: RATE, gcIntervalSeconds: Number(arg('gc-interval') ?? 10), ...(gcEntries !== undefined ? { gcEntriesPerInterval: Number(gcEntries) } : {}), ...(limit !== undefined ? { memoryLimitMiB: Number(limit) } : {}), bundle: process.argv.includes('--bundle') });
  }
  process.exit(0);
}
if (arg('peer') && arg('spire') === 'real') {
  await realSpireColdStarts({ peer: arg('peer')!, sizes: arg('pods') ? sizes : [3_000, 10_000], runs: Number(arg('runs') ?? 3), bundle: process.argv.includes('--bundle'), memoryLimitMiB: limit !== undefined ? Number(limit) : undefined });
  process.exit(0);
}
if (arg('peer')) {
  await sideBySide({ peer: arg('peer')!, apiserver, sizes, events: EVENTS, ratePerSecond: RATE, gcIntervalSeconds: Number(arg('gc-interval') ?? 10), ...(limit !== undefined ? { memoryLimitMiB: Number(limit) } : {}), bundle: process.argv.includes('--bundle') });
  process.exit(0);
}
const debug = (label: string) => {
  if (!process.env.BENCH_DEBUG) return;
  const m = process.memoryUsage();
  const mib = (x: number) => Math.round(x / 2 ** 20);
  console.error(`  [${label}] at ${(performance.now() / 1000).toFixed(2)} s: rss ${mib(m.rss)} MiB (peak so far ${mib(process.resourceUsage().maxRSS * 1024)}), heap ${mib(m.heapUsed)} of ${mib(m.heapTotal)} MiB, external ${mib(m.external)} MiB (array buffers ${mib(m.arrayBuffers)})`);
  if (process.env.BENCH_DEBUG === 'smaps') {
    console.error(`    resident by mapping: ${residentByMapping('self')}`);
    console.error(`    V8 spaces, used/committed MiB: ${getHeapSpaceStatistics().filter((s) => s.space_size > 0).map((s) => `${s.space_name} ${mib(s.space_used_size)}/${mib(s.physical_space_size)}`).join(', ')}`);
  }
};

/** CPU seconds a child process has used so far (Linux only; 0 elsewhere), for BENCH_DEBUG. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds of a process and every process it started, running or not yet reaped (the real API server's etcd and kube-apiserver). */
function treeCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  let total = cpuSeconds(pid);
  try {
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)) if (child) total += treeCpuSeconds(Number(child));
  } catch {
    // not Linux, or gone
  }
  return total;
}

/** The inspector's sampling profiler on this thread, from now until stop() writes the profile to `file` (node --cpu-prof's format). */
async function startProfile(): Promise<{ stop(file: string): Promise<string> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}


async function startSpire(dir: string): Promise<{ socket: string; child: ChildProcess }> {
  const socket = join(dir, 'spire.sock');
  const child = spawn(process.execPath, [...script('src/cli/main.ts'), 'memory-spire', '--socket', socket], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`SPIRE child exited ${code}`)));
  });
  return { socket, child };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** The API server child: the real one stops its etcd and kube-apiserver when disconnected, the fake is killed. */
function stopKube(child: ChildProcess): Promise<void> {
  return apiserver === 'fake' ? stop(child) : stopByDisconnect(child);
}

/** A child started with `--barrier` (see barrier.ts): resolves once it has printed `ready`. */
function readyChild(name: string, args: string[]): Promise<{ child: ChildProcess; output: Promise<string> }> {
  const child = spawn(process.execPath, [...script(`bench/${name}`), ...args, '--barrier'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const output = new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${name} exited ${code}`))));
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.startsWith('ready\n')) resolve({ child, output });
    });
    output.catch(reject);
  });
}

/** What the list-and-push floor took: its wall time, and the CPU seconds of the lister, the pusher, the API server and SPIRE meanwhile. */
interface ListAndPush {
  ms: number;
  cpu: { list: number; push: number; api: number; spire: number };
}

/**
 * The least any controller could take for a cold start here: a bare client
 * listing every pod and another pushing the pre-rendered entries, started
 * together, on the same two cores the controller shares with both servers.
 * No rendering, planning or waiting for one to feed the other. Its CPU
 * seconds are the budget's floor: on two cores a cold start within a ratio r
 * of its time can use at most 2 * r * ms CPU-s, all four processes together.
 */
async function measureListAndPush(pods: number, kubeconfig: string, socket: string, kubePid: number | undefined, spirePid: number | undefined): Promise<ListAndPush> {
  const [list, push] = await Promise.all([readyChild('list-child.ts', [kubeconfig]), readyChild('floor-child.ts', [String(pods), socket, '0'])]);
  const servers0 = [treeCpuSeconds(kubePid), cpuSeconds(spirePid)];
  const started = Date.now();
  list.child.stdin!.write('go\n');
  push.child.stdin!.write('go\n');
  const last = async (out: Promise<string>) => JSON.parse((await out).trim().split('\n').pop()!) as { endAt?: number; pushEndAt?: number; failed?: number; pods?: number; cpuSeconds?: number; pushCpuSeconds?: number };
  const [l, p] = await Promise.all([last(list.output), last(push.output)]);
  const servers = [treeCpuSeconds(kubePid) - servers0[0]!, cpuSeconds(spirePid) - servers0[1]!];
  if (l.pods !== pods || p.failed !== 0) throw new Error(`list-and-push floor: listed ${l.pods} of ${pods} pods, ${p.failed} entries failed`);
  return { ms: Math.max(l.endAt!, p.pushEndAt!) - started, cpu: { list: l.cpuSeconds!, push: p.pushCpuSeconds!, api: servers[0]!, spire: servers[1]! } };
}

interface Floors {
  entries: number;
  failed: number;
  pushMs: number;
  listMs: number[];
}

function measureFloors(pods: number, socket: string): Floors {
  const out = execFileSync(process.execPath, [...script('bench/floor-child.ts'), String(pods), socket, '3'], { encoding: 'utf8', maxBuffer: 16 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as Floors;
}

interface RunResult {
  coldMs: number;
  coldFloorMs: number;
  podListMs: number;
  /** The pod list and the push together, by bare clients (measureListAndPush). */
  listAndPushMs: number;
  /** CPU seconds during list ∥ push: lister, pusher, API server, SPIRE. */
  listAndPushCpu: number[];
  /** CPU seconds during the cold start: controller, API server, SPIRE. */
  coldCpu: number[];
  idleMs: number;
  idleFloorMs: number;
  idleWrites: number;
  latencyMs: number[];
  cpuSecondsPer1000: number;
  rssSteadyMiB: number;
  heapSteadyMiB: number;
  rssPeakMiB: number;
  heapPeakMiB: number;
  entries: number;
}

async function oneRun(pods: number): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'spire-reconciler-bench-'));
  try {
    // Floors first, against their own SPIRE server (BENCH_MEMORY_ONLY skips them: see docs/performance.md).
    const floors: Floors = memoryOnly ? { entries: NaN, failed: 0, pushMs: NaN, listMs: [] } : await (async () => {
      const a = await startSpire(join(dir, 'a'));
      const f = measureFloors(pods, a.socket);
      await stop(a.child);
      return f;
    })();
    if (floors.failed > 0) throw new Error(`floor push: ${floors.failed} entries failed`);

    const b = await startSpire(join(dir, 'b'));
    const kubeconfig = join(dir, 'kubeconfig');
    const kube = fork(script(apiserver === 'real' ? 'bench/real-kube-child.ts' : 'bench/kube-child.ts').pop()!, [String(pods), kubeconfig], { execArgv: compiled ? [] : ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      kube.once('message', () => resolve());
      kube.once('exit', (code) => reject(new Error(`the API server child exited ${code}`)));
    });
    // As `run` loads it: a plain kubeconfig does not load client-node, whose memory would count as the controller's.
    const kc = await loadKubeConfig({ file: kubeconfig });
    // The pod list on its own, by a bare client in another process, before the controller starts.
    const podList = memoryOnly ? { pods, listMs: NaN } : JSON.parse(execFileSync(process.execPath, [...script('bench/list-child.ts'), kubeconfig], { encoding: 'utf8' }).trim().split('\n').pop()!) as { pods: number; listMs: number; cpuSeconds: number };
    if (podList.pods !== pods) throw new Error(`listed ${podList.pods} of ${pods} pods`);
    let listAndPush: ListAndPush = { ms: NaN, cpu: { list: NaN, push: NaN, api: NaN, spire: NaN } };
    if (!memoryOnly) {
      const c = await startSpire(join(dir, 'c'));
      listAndPush = await measureListAndPush(pods, kubeconfig, c.socket, kube.pid, c.child.pid);
      await stop(c.child);
    }
    const listAndPushMs = listAndPush.ms;
    debug('before controller start');

    const config = { ...defaultConfig(), trustDomain: 'example.org', clusterName: 'bench', clusterDomain: 'cluster.local', spireServerSocketPath: b.socket, gcIntervalMs: GC_INTERVAL_SECONDS * 1000, spireRpcTimeoutMs: 120_000 };
    let rssPeak = 0;
    let heapPeak = 0;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      rssPeak = Math.max(rssPeak, m.rss);
      heapPeak = Math.max(heapPeak, m.heapUsed);
    }, 50);

    // Passes as they complete, with the moment each finished applying.
    // What each pass did, reduced at once: holding every pass result would count the harness's memory as the controller's.
    const passes: { created: number; seconds: number; at: number; ackedPods: string[] }[] = [];
    let waiter: (() => void) | undefined;
    const nextPass = () => new Promise<void>((r) => (waiter = r));
    let createdSoFar = 0;
    let writes = 0;
    // Set for the event phase, the only one whose acknowledgements are timed.
    let timingEvents = false;
    const stopper = new AbortController();
    // BENCH_CPU_PROFILE=DIR: a CPU profile of this process (the controller) from its start to the last entry created.
    const profiler = process.env.BENCH_CPU_PROFILE ? await startProfile() : undefined;
    const cpuAtStart = [treeCpuSeconds(kube.pid), cpuSeconds(b.child.pid), process.cpuUsage()] as const;
    const started = performance.now();
    // BENCH_DEBUG=timeline: each process's share of a core, every 250 ms of the cold start, to see who waits for whom.
    const timeline: string[] = [];
    let last = [cpuSeconds(process.pid), treeCpuSeconds(kube.pid), cpuSeconds(b.child.pid)];
    const tick = process.env.BENCH_DEBUG === 'timeline'
      ? setInterval(() => {
          const now = [cpuSeconds(process.pid), treeCpuSeconds(kube.pid), cpuSeconds(b.child.pid)];
          timeline.push(`${Math.round(performance.now() - started)} ms: ${now.map((x, i) => `${['controller', 'API server', 'SPIRE'][i]} ${Math.round(((x - last[i]!) / 0.25) * 100)}%`).join(', ')}; written ${createdSoFarNow()}`);
          last = now;
        }, 250)
      : undefined;
    const createdSoFarNow = () => passes.reduce((n, p) => n + p.created, 0) + createdSoFar;
    const live = await startLive({
      config,
      pass: passOptions(config),
      kc,
      log: pino({ level: process.env.BENCH_LOG ?? 'silent' }, pino.destination(2)),
      signal: stopper.signal,
      hooks: {
        onPass: (result, seconds) => {
          const ackedPods: string[] = [];
          if (timingEvents) for (const c of result.plan.creates) if (c.podUid && !result.applied?.failedKeys.has(c.key)) ackedPods.push(c.podUid);
          passes.push({ created: result.applied?.created ?? 0, seconds, at: Date.now(), ackedPods });
          waiter?.();
        },
        observeSpireRpc: (rpc) => {
          if (rpc.startsWith('Entry.Batch')) writes++;
        },
      },
    });

    // Cold convergence: controller start to every entry created.
    // Summed over passes: at start, entries are written batch by batch while pods are still being listed.
    for (;;) {
      for (const p of passes.splice(0)) createdSoFar += p.created;
      if (createdSoFar >= floors.entries) break;
      // Without the floors the number of entries is not known: converged once synced and idle.
      if (memoryOnly && live.cache.hasSynced) {
        await live.idle();
        for (const p of passes.splice(0)) createdSoFar += p.created;
        floors.entries = createdSoFar;
        break;
      }
      await nextPass();
    }
    const coldMs = performance.now() - started;
    if (profiler) console.error(`  CPU profile of the cold start: ${await profiler.stop(join(process.env.BENCH_CPU_PROFILE!, `cold-${pods}-${Date.now()}.cpuprofile`))}`);
    clearInterval(tick);
    if (timeline.length) console.error(timeline.map((l) => `    ${l}`).join('\n'));
    // Who used the two cores during the cold start (Linux only; the children read 0 elsewhere).
    const own = process.cpuUsage(cpuAtStart[2]);
    const coldCpu = [(own.user + own.system) / 1e6, treeCpuSeconds(kube.pid) - cpuAtStart[0], cpuSeconds(b.child.pid) - cpuAtStart[1]] as const;
    await live.idle();
    debug('after cold convergence');
    // BENCH_COLD_ONLY=1: one line per run and nothing after the cold start, to compare changes to it quickly.
    if (process.env.BENCH_COLD_ONLY) {
      const f = listAndPush.cpu;
      console.error(`  cold ${Math.round(coldMs)} ms; push floor ${Math.round(floors.pushMs)} ms; list alone ${Math.round(podList.listMs)} ms; list ∥ push ${listAndPushMs} ms; CPU s ours/API/SPIRE ${coldCpu.map((x) => x.toFixed(2)).join('/')} (total ${(coldCpu[0] + coldCpu[1] + coldCpu[2]).toFixed(2)}); list ∥ push CPU s list/push/API/SPIRE ${[f.list, f.push, f.api, f.spire].map((x) => x.toFixed(2)).join('/')} (total ${(f.list + f.push + f.api + f.spire).toFixed(2)})`);
      stopper.abort();
      await live.done;
      await stopKube(kube);
      await stop(b.child);
      process.exit(0);
    }

    // Idle pass: nothing changed; it must write nothing.
    const writesBefore = writes;
    const idleTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const wait = nextPass();
      // A full resync from a list of every entry: what gcInterval runs when its check finds drift (or with gcEntriesPerInterval 0).
      live.resync();
      await wait;
      idleTimes.push(passes[passes.length - 1]!.seconds * 1000);
    }
    const idleWrites = writes - writesBefore;
    debug('after idle passes');

    // Event latency and churn cost: pods created at RATE per second.
    const acked = new Map<string, number>();
    const onAck = () => {
      for (const p of passes.splice(0)) for (const uid of p.ackedPods) acked.set(uid, p.at);
    };
    passes.length = 0;
    timingEvents = true;
    // With --stretches: how long the event loop was kept from a 1 ms timer while the events ran (wall time, which a
    // loaded machine stretches), and the longest stretch between two turns in the main thread's own CPU time, which it
    // does not. Off by default: two timers waking every millisecond cost CPU that would count as the events'.
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    if (STRETCHES) loopDelay.enable();
    let longestStretchMs = 0;
    let lastTurn = process.threadCpuUsage();
    // The longest garbage collection pause meanwhile: part of a stretch, and not the passes' own work.
    let longestGcMs = 0;
    // With --stretches, BENCH_DEBUG=stretches: every stretch over 5 ms and every GC pause, to tell the passes' own work from the collector's.
    const traceStretches = STRETCHES && process.env.BENCH_DEBUG === 'stretches';
    const gcPauses: { at: number; ms: number; kind: number }[] = [];
    const longStretches: { from: number; to: number; cpuMs: number }[] = [];
    let lastTurnAt = performance.now();
    const gcs = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        longestGcMs = Math.max(longestGcMs, e.duration);
        if (traceStretches) gcPauses.push({ at: e.startTime, ms: e.duration, kind: (e as { detail?: { kind?: number } }).detail?.kind ?? 0 });
      }
    });
    gcs.observe({ entryTypes: ['gc'] });
    const turns = STRETCHES
      ? setInterval(() => {
          const now = process.threadCpuUsage();
          const stretchMs = (now.user - lastTurn.user + now.system - lastTurn.system) / 1000;
          longestStretchMs = Math.max(longestStretchMs, stretchMs);
          lastTurn = now;
          const at = performance.now();
          if (traceStretches && stretchMs > 5) longStretches.push({ from: lastTurnAt, to: at, cpuMs: stretchMs });
          lastTurnAt = at;
        }, 1)
      : undefined;
    const cpu0 = process.cpuUsage();
    const created = await new Promise<{ uid: string; at: number }[]>((resolve) => {
      kube.once('message', (m: { pods: { uid: string; at: number }[] }) => resolve(m.pods));
      kube.send({ type: 'createPods', from: pods, count: EVENTS, perSecond: RATE });
    });
    const deadline = Date.now() + 120_000;
    for (;;) {
      onAck();
      if (created.every((c) => acked.has(c.uid)) || Date.now() > deadline) break;
      await Promise.race([nextPass(), new Promise((r) => setTimeout(r, 100))]);
    }
    await live.idle();
    onAck();
    loopDelay.disable();
    clearInterval(turns);
    gcs.disconnect();
    const stretches = STRETCHES
      ? `event-loop delay max ${(loopDelay.max / 1e6).toFixed(1)} ms, p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms; longest stretch between turns ${longestStretchMs.toFixed(1)} ms of main-thread CPU; `
      : '';
    console.error(`  event phase (gcInterval ${GC_INTERVAL_SECONDS} s): ${stretches}longest GC pause ${longestGcMs.toFixed(1)} ms`);
    if (traceStretches) {
      const gcKind = (k: number) => ({ 1: 'scavenge', 2: 'minor mark-sweep', 4: 'mark-compact', 8: 'incremental marking', 16: 'weak callbacks' })[k] ?? `kind ${k}`;
      for (const st of longStretches.sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 15)) {
        const inside = gcPauses.filter((g) => g.at >= st.from && g.at < st.to);
        const gcText = inside.map((g) => `${gcKind(g.kind)} ${g.ms.toFixed(1)} ms`).join(', ') || 'no GC';
        console.error(`    stretch ${st.cpuMs.toFixed(1)} ms CPU, ${(st.to - st.from).toFixed(1)} ms wall, at ${(st.from / 1000).toFixed(2)} s: ${gcText}`);
      }
      console.error(`    GC pauses over 5 ms: ${gcPauses.filter((g) => g.ms > 5).map((g) => `${gcKind(g.kind)} ${g.ms.toFixed(1)}`).join(', ') || 'none'}`);
    }
    const cpu = process.cpuUsage(cpu0);
    debug('after events');
    const latencyMs = created.filter((c) => acked.has(c.uid)).map((c) => acked.get(c.uid)! - c.at);
    if (latencyMs.length < created.length) console.error(`  warning: ${created.length - latencyMs.length} of ${created.length} pods were not acknowledged within 120 s`);

    clearInterval(sampler);
    // Steady state after a collection: what the controller keeps, not garbage V8 has not reclaimed yet.
    (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    debug('steady, after a collection');
    if (process.env.BENCH_SETTLE) {
      for (let i = 0; i < 6; i++) {
        await new Promise((r) => setTimeout(r, 5000));
        debug(`idle ${(i + 1) * 5} s`);
      }
      (globalThis as { gc?: () => void }).gc?.();
      debug('idle, then a collection');
    }
    // Profiling aid: BENCH_HEAP_SNAPSHOT=<dir> writes what the controller keeps at steady state.
    if (process.env.BENCH_HEAP_SNAPSHOT) console.error(`  heap snapshot: ${writeHeapSnapshot(join(process.env.BENCH_HEAP_SNAPSHOT, `steady-${pods}.heapsnapshot`))}`);
    stopper.abort();
    await live.done;
    await stopKube(kube);
    await stop(b.child);
    return {
      coldMs,
      coldFloorMs: floors.pushMs,
      podListMs: podList.listMs,
      listAndPushMs,
      listAndPushCpu: [listAndPush.cpu.list, listAndPush.cpu.push, listAndPush.cpu.api, listAndPush.cpu.spire],
      coldCpu: [...coldCpu],
      idleMs: median(idleTimes),
      idleFloorMs: median(floors.listMs),
      idleWrites,
      latencyMs,
      cpuSecondsPer1000: ((cpu.user + cpu.system) / 1e6 / EVENTS) * 1000,
      rssSteadyMiB: m.rss / 2 ** 20,
      heapSteadyMiB: m.heapUsed / 2 ** 20,
      rssPeakMiB: rssPeak / 2 ** 20,
      heapPeakMiB: heapPeak / 2 ** 20,
      entries: floors.entries,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Row {
  pods: number;
  runs: number;
  entries: number;
  coldMs: number;
  coldFloorMs: number;
  coldRatio: number;
  podListMs: number;
  listAndPushMs: number;
  coldToListAndPush: number;
  listAndPushCpu: number[];
  coldCpu: number[];
  idleMs: number;
  idleFloorMs: number;
  idleRatio: number;
  idleWrites: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  cpuSecondsPer1000Events: number;
  rssSteadyMiB: number;
  heapSteadyMiB: number;
  rssPeakMiB: number;
  heapPeakMiB: number;
}

const rows: Row[] = [];
for (const pods of sizes) {
  const results: RunResult[] = [];
  const n = pods >= 100_000 ? Math.min(runs, 1) : runs;
  for (let r = 0; r < n; r++) {
    console.error(`N=${pods}: run ${r + 1} of ${n}`);
    results.push(await oneRun(pods));
  }
  const med = (f: (x: RunResult) => number) => median(results.map(f));
  const row: Row = {
    pods,
    runs: n,
    entries: results[0]!.entries,
    coldMs: med((x) => x.coldMs),
    coldFloorMs: med((x) => x.coldFloorMs),
    coldRatio: med((x) => x.coldMs / x.coldFloorMs),
    podListMs: med((x) => x.podListMs),
    listAndPushMs: med((x) => x.listAndPushMs),
    coldToListAndPush: med((x) => x.coldMs / x.listAndPushMs),
    listAndPushCpu: [0, 1, 2, 3].map((i) => med((x) => x.listAndPushCpu[i]!)),
    coldCpu: [0, 1, 2].map((i) => med((x) => x.coldCpu[i]!)),
    idleMs: med((x) => x.idleMs),
    idleFloorMs: med((x) => x.idleFloorMs),
    idleRatio: med((x) => x.idleMs / x.idleFloorMs),
    idleWrites: Math.max(...results.map((x) => x.idleWrites)),
    latencyP50Ms: med((x) => percentile(x.latencyMs, 50)),
    latencyP99Ms: med((x) => percentile(x.latencyMs, 99)),
    latencyMaxMs: med((x) => Math.max(...x.latencyMs)),
    cpuSecondsPer1000Events: med((x) => x.cpuSecondsPer1000),
    rssSteadyMiB: med((x) => x.rssSteadyMiB),
    heapSteadyMiB: med((x) => x.heapSteadyMiB),
    rssPeakMiB: med((x) => x.rssPeakMiB),
    heapPeakMiB: med((x) => x.heapPeakMiB),
  };
  rows.push(row);
}

const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const table = [
  ['pods', 'entries', 'cold ms (floor, ratio)', 'pod list alone ms', 'list ∥ push ms (cold ratio)', 'cold CPU s ours/API/SPIRE', 'idle pass ms (floor, ratio), writes', 'event latency p50/p99/max ms', 'CPU s / 1000 events', 'RSS MiB steady/peak', 'heap MiB steady/peak'],
  ...rows.map((r) => [
    String(r.pods),
    String(r.entries),
    `${fmt(r.coldMs)} (${fmt(r.coldFloorMs)}, ${fmt(r.coldRatio, 2)}x)`,
    fmt(r.podListMs),
    `${fmt(r.listAndPushMs)} (${fmt(r.coldToListAndPush, 2)}x)`,
    r.coldCpu.map((x) => fmt(x, 1)).join('/'),
    `${fmt(r.idleMs)} (${fmt(r.idleFloorMs)}, ${fmt(r.idleRatio, 2)}x), ${r.idleWrites}`,
    `${fmt(r.latencyP50Ms)}/${fmt(r.latencyP99Ms)}/${fmt(r.latencyMaxMs)}`,
    fmt(r.cpuSecondsPer1000Events, 2),
    `${fmt(r.rssSteadyMiB)}/${fmt(r.rssPeakMiB)}`,
    `${fmt(r.heapSteadyMiB)}/${fmt(r.heapPeakMiB)}`,
  ]),
];
const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
const text = table.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
const machine = { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${process.platform} ${process.arch}` };
const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
const load = { start: loadAtStart.map((x) => Number(x.toFixed(2))), end: loadavg().map((x) => Number(x.toFixed(2))) };
console.log(`spire-reconciler benchmark: ${machine.cores} cores (${machine.cpu}), Node ${machine.node}; ${apiserver === 'real' ? 'a real kube-apiserver' : 'the in-process fake API server'}; ${EVENTS} pod events at ${RATE}/s; medians of runs; load average (1/5/15 min) ${load.start.join('/')} at the start, ${load.end.join('/')} at the end`);
console.log(text);
const results = compiled ? join(root, '..', 'bench', 'results') : join(here, 'results');
mkdirSync(results, { recursive: true });
const file = join(results, `${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), machine, load, apiserver, command, events: EVENTS, ratePerSecond: RATE, rows }, null, 2)}\n`);
console.log(`written to ${file}`);
