/**
 * `npm run bench -- --peer PATH`: spire-reconciler and another controller (a
 * spire-controller-manager binary) measured alike, one after the other, on
 * the same synthetic cluster. Each controller runs as its own process with the
 * same config file, against a fresh API server (the in-process one,
 * kube-child.ts, or with `--apiserver real` a real kube-apiserver and etcd,
 * real-kube-child.ts) and a fresh in-memory SPIRE server (spire-child.ts); everything is observed
 * from outside: entries and calls from SPIRE's side, CPU and memory from
 * /proc (Linux only).
 */
import { type ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { declareEntries } from '../src/entries/index.js';
import { stopByDisconnect, stopBySignal } from './children.js';
import { benchSettings, syntheticCluster } from './cluster.js';
import { freePort } from '../test/support/ports.js';

const here = fileURLToPath(new URL('.', import.meta.url));
// Run compiled (npm run bench builds .bench/), the children are compiled too, and the repository is one level up.
const compiled = import.meta.url.endsWith('.js');
const root = fileURLToPath(new URL(compiled ? '../..' : '..', import.meta.url));

export type ControllerKind = 'ours' | 'peer';

export interface SideBySideOptions {
  peer: string;
  /** Which API server both run against: the in-process fake, or a real kube-apiserver and etcd. */
  apiserver: 'fake' | 'real';
  events: number;
  ratePerSecond: number;
  /** Both controllers' gcInterval: the idle window lasts three of them. */
  gcIntervalSeconds: number;
  /** Ours only (upstream has no such key): gcEntriesPerInterval; unset, its default. */
  gcEntriesPerInterval?: number;
  /** Give up on a cold start after this long (reported as such). */
  coldTimeoutMs: number;
  /**
   * Run ours as the image does, through its entrypoint (scripts/image/entrypoint.sh),
   * told that the container's memory limit is this many MiB: it sizes V8 and malloc
   * from it. Without it ours runs as `node dist/cli/bin.js`, with Node's defaults.
   */
  memoryLimitMiB?: number;
}

export interface ControllerFigures {
  kind: ControllerKind;
  /** The warm-up pod list before the controller started (bare client). */
  warmListMs: number;
  /** Entries SPIRE held when the cold start ended (the target, unless it timed out). */
  entries: number;
  converged: boolean;
  coldMs: number;
  coldCpuSeconds: number;
  /** Full resyncs seen in the idle window (ListFederationRelationships calls: spire-child.ts). */
  idleResyncs: number;
  idleCpuSecondsPerResync: number;
  /** The idle window's CPU over its length in gcIntervals: a share of a core that extra passes in the window do not dilute. */
  idleCpuSecondsPerInterval: number;
  idleCallsPerResync: Record<string, number>;
  idleWrites: number;
  idleRssMiB: number;
  latencyMs: number[];
  unacked: number;
  cpuSecondsPer1000Events: number;
  rssSteadyMiB: number;
  rssPeakMiB: number;
  /** For the "same entries" check: SPIRE's entries after the resync that follows the events. */
  finalEntries: Record<string, unknown>[];
  /** Entries held right after the events that the next resync replaced. */
  fixedByResync: number;
  statuses: Record<string, unknown>;
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Resident memory grouped by kind of mapping (Linux only), to tell V8's heap from malloc's arenas. */
export function residentByMapping(pid: number | 'self' | undefined): string {
  const groups = new Map<string, number>();
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const size = (parseInt(head[2]!, 16) - parseInt(head[1]!, 16)) / 1024;
      name = head[3] || (size >= 65536 ? 'anon >=64M' : size >= 1024 ? 'anon >=1M' : size >= 256 ? 'anon >=256K' : 'anon small');
      if (name.startsWith('/')) name = 'files';
    } else if (line.startsWith('Rss:')) {
      groups.set(name, (groups.get(name) ?? 0) + Number(line.split(/\s+/)[1]));
    }
  }
  return [...groups].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${Math.round(v / 1024)}`).join(', ');
}

/** Resident and peak resident memory of a process in MiB, from /proc/<pid>/status. */
export function memory(pid: number | undefined): { rss: number; peak: number } {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
    return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
  } catch {
    return { rss: NaN, peak: NaN };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends a message to a child and resolves with its first reply of the given type. */
export function ask<T>(child: ChildProcess, msg: object, reply: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type !== reply) return;
      child.off('message', on);
      resolve(m as T);
    };
    child.on('message', on);
    child.send(msg);
  });
}

export function forkReady(script: string, args: string[]): Promise<ChildProcess> {
  const child = fork(join(here, compiled ? script.replace(/\.ts$/, '.js') : script), args, { execArgv: compiled ? [] : ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}

/** The one config file both controllers read (spire-controller-manager's format, which ours reads as is). */
export function configFile(socket: string, gcIntervalSeconds: number, ours: string[] = [], healthProbeBindAddress = '0'): string {
  return [
    ...ours,
    'apiVersion: spire.spiffe.io/v1alpha1',
    'kind: ControllerManagerConfig',
    'trustDomain: example.org',
    'clusterName: bench',
    'clusterDomain: cluster.local',
    `spireServerSocketPath: ${JSON.stringify(socket)}`,
    // Integer nanoseconds: upstream decodes a time.Duration from JSON and refuses "10s".
    `gcInterval: ${gcIntervalSeconds * 1e9}`,
    // Upstream's default is no prefix (every entry is its own); set alike so both own exactly their entries.
    'entryIDPrefix: scm',
    'ignoreNamespaces: [kube-system, kube-public, spire-system]',
    'logLevel: error',
    // No metrics listener: other benchmarks and tests share the machine's ports.
    'metrics: {bindAddress: "0"}',
    // Probes where asked (a free port), as in a pod: ours then answers them from a thread of its own (src/cli/early-probes.ts).
    `health: {healthProbeBindAddress: ${JSON.stringify(healthProbeBindAddress)}}`,
    '',
  ].join('\n');
}

/**
 * Compiles our controller once, so its cold start is the program's, not a TypeScript loader's; returns the package's bin.
 * With `bundle`, dist/cli/bin.js and main.js are then bundled in place, split as the image's build splits them (scripts/image/bundle.mjs).
 */
export function buildOurs(bundle = false): string {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  // As `npm run build`: the report templates beside the compiled code.
  execFileSync(process.execPath, [join(root, 'scripts/copy-report-templates.mjs')], { stdio: 'inherit' });
  if (bundle) execFileSync(process.execPath, [join(root, 'scripts/image/bundle.mjs'), join(root, 'dist')], { stdio: 'inherit' });
  return join(root, 'dist/cli/bin.js');
}

/**
 * The image's layout in `dir`: bin/entrypoint.sh beside a link to dist/, and a
 * file holding the memory limit where the entrypoint is told to read the cgroup's.
 * Returns the entrypoint and its environment.
 */
function imageEntrypoint(dir: string, limitMiB: number): { entrypoint: string; env: Record<string, string> } {
  mkdirSync(join(dir, 'bin'));
  const entrypoint = join(dir, 'bin/entrypoint.sh');
  copyFileSync(join(root, 'scripts/image/entrypoint.sh'), entrypoint);
  symlinkSync(join(root, 'dist'), join(dir, 'dist'));
  const limitFile = join(dir, 'memory.max');
  writeFileSync(limitFile, `${limitMiB * 2 ** 20}\n`);
  return { entrypoint, env: { SPIRE_RECONCILER_CGROUP_MEMORY_MAX: limitFile } };
}

export function spawnController(kind: ControllerKind, opts: SideBySideOptions, ours: string, config: string, kubeconfig: string, dir: string): ChildProcess {
  const env = { ...process.env, KUBECONFIG: kubeconfig, ENABLE_WEBHOOKS: 'false' };
  const stdio: ['ignore', 'ignore', 'inherit'] = ['ignore', 'ignore', 'inherit'];
  if (kind === 'ours' && opts.memoryLimitMiB !== undefined) {
    // The entrypoint runs the `node` first on PATH: npm run bench puts the pinned Node 24 there.
    const image = imageEntrypoint(dir, opts.memoryLimitMiB);
    return spawn('sh', [image.entrypoint, 'run', '--config', config], { env: { ...env, ...image.env }, stdio });
  }
  if (kind === 'ours') return spawn(process.execPath, [ours, 'run', '--config', config], { env, stdio });
  return spawn(opts.peer, ['-config', config], { env, stdio });
}

/** The number of entries the synthetic cluster declares (one per pod). */
export function expectedEntries(pods: number): number {
  return declareEntries(syntheticCluster(pods), benchSettings()).entries.length;
}

/** A kubelet's readiness probe: asked every 100 ms until a first answer (the container seen running), then every 2 s. */
function askReadiness(url: string): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const ask = (answered: boolean) => {
    timer = setTimeout(() => {
      void fetch(url, { headers: { connection: 'close' } }).then(
        async (r) => {
          await r.body?.cancel();
          if (!stopped) ask(true);
        },
        () => !stopped && ask(answered),
      );
    }, answered ? 2_000 : 100);
  };
  ask(false);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

export async function measureController(kind: ControllerKind, pods: number, opts: SideBySideOptions, ours: string): Promise<ControllerFigures> {
  const dir = mkdtempSync(join(tmpdir(), `spire-reconciler-side-by-side-${kind}-`));
  const children: ChildProcess[] = [];
  let kubeChild: ChildProcess | undefined;
  let kubelet: { stop(): void } | undefined;
  try {
    const socket = join(dir, 'spire.sock');
    const kubeconfig = join(dir, 'kubeconfig');
    const config = join(dir, 'config.yaml');
    const oursOnly = kind === 'ours' && opts.gcEntriesPerInterval !== undefined ? [`gcEntriesPerInterval: ${opts.gcEntriesPerInterval}`] : [];
    // The probe address a pod has, so the figures include what serving probes costs (for ours, the probe thread).
    const probes = `127.0.0.1:${await freePort()}`;
    writeFileSync(config, configFile(socket, opts.gcIntervalSeconds, oursOnly, probes));
    const spire = await forkReady('spire-child.ts', [socket]);
    children.push(spire);
    const kube = await forkReady(opts.apiserver === 'real' ? 'real-kube-child.ts' : 'kube-child.ts', [String(pods), kubeconfig]);
    children.push(kube);
    kubeChild = kube;
    // A bare list of every pod first, as `npm run bench` does before its controller starts: the
    // in-process API server's first list after it was filled is many times slower than later
    // ones (40 s instead of 3 at 100,000 pods), which would be counted as the controller's.
    const warmList = JSON.parse(execFileSync(process.execPath, [...(compiled ? [join(here, 'list-child.js')] : ['--import', 'tsx', join(here, 'list-child.ts')]), kubeconfig], { encoding: 'utf8' }).trim().split('\n').pop()!) as { listMs: number };
    const target = expectedEntries(pods);

    // Cold start: process start to SPIRE holding every entry.
    const converged = ask<{ at: number; entries: number }>(spire, { type: 'target', entries: target }, 'converged');
    const startedAt = Date.now();
    const controller = spawnController(kind, opts, ours, config, kubeconfig, dir);
    // Readiness asked as the kubelet asks in the e2e lane's pods: once it sees the container running (within its 1 s
    // relist: a killed controller's pod was NotReady for 1.00 s, docs/reliability.md), then every 2 s.
    kubelet = askReadiness(`http://${probes}/readyz`);
    children.push(controller);
    const exited = new Promise<never>((_, reject) => controller.once('exit', (code, signal) => reject(new Error(`${kind} controller exited (${code ?? signal})`))));
    const timedOut = sleep(opts.coldTimeoutMs).then(() => undefined);
    const cold = await Promise.race([converged, timedOut, exited]);
    const coldMs = cold ? cold.at - startedAt : opts.coldTimeoutMs;
    const coldCpuSeconds = cpuSeconds(controller.pid);
    if (!cold) {
      const entries = ((await ask<{ entries: unknown[] }>(spire, { type: 'entries' }, 'entries')).entries).length;
      return { ...emptyFigures(kind, entries, coldMs, coldCpuSeconds, memory(controller.pid)), warmListMs: warmList.listMs };
    }

    // BENCH_COLD_ONLY=1: the cold start and nothing after it (as in the single-controller bench).
    if (process.env.BENCH_COLD_ONLY) return { ...emptyFigures(kind, cold.entries, coldMs, coldCpuSeconds, memory(controller.pid)), converged: true, warmListMs: warmList.listMs };

    // Settle: no write for a while (status writes, the full pass after the start).
    await quiet(spire, 3_000, 60_000);

    // Idle: whole resync cycles with nothing changing, from one resync's start to another's
    // (three cycles, or as many as fit in four gcIntervals and a minute), so a list already
    // under way when the window opens is not counted.
    const idle = await idleCycles(spire, controller.pid, opts.gcIntervalSeconds);

    // Events: pods created at a steady rate; latency from the API server's create to SPIRE's create.
    const eventsCpu0 = cpuSeconds(controller.pid);
    const created = (await ask<{ pods: { uid: string; at: number }[] }>(kube, { type: 'createPods', from: pods, count: opts.events, perSecond: opts.ratePerSecond }, 'created')).pods;
    const deadline = Date.now() + 120_000;
    let acks: (number | null)[] = [];
    for (;;) {
      acks = (await ask<{ at: (number | null)[] }>(spire, { type: 'acks', uids: created.map((c) => c.uid) }, 'acks')).at;
      if (acks.every((a) => a !== null) || Date.now() > deadline) break;
      await sleep(250);
    }
    await quiet(spire, 3_000, 60_000);
    const eventsCpu = cpuSeconds(controller.pid) - eventsCpu0;
    const latencyMs = created.flatMap((c, i) => (acks[i] == null ? [] : [acks[i]! - c.at]));
    // BENCH_DEBUG=latency: the slowest events and what SPIRE answered while each waited, to tell a controller's delay from the server's.
    if (process.env.BENCH_DEBUG === 'latency') console.error(await slowestEvents(kind, spire, created, acks));
    const mem = memory(controller.pid);
    // BENCH_DEBUG=smaps: where the steady RSS lies, to tell V8's heap from malloc's arenas and the binary's pages.
    if (process.env.BENCH_DEBUG === 'smaps') console.error(`  [${kind}] resident MiB by mapping after the events: ${residentByMapping(controller.pid)}`);

    // What SPIRE holds once the events are handled, and again after the next resync: a
    // controller that got something wrong under churn corrects it then.
    const entriesNow = async () => (await ask<{ entries: Record<string, unknown>[] }>(spire, { type: 'entries' }, 'entries')).entries;
    const afterEvents = await entriesNow();
    await nextResync(spire, opts.gcIntervalSeconds);
    await quiet(spire, 3_000, 60_000);
    const finalEntries = await entriesNow();
    const { statuses, names } = await ask<{ statuses: Record<string, unknown>; names: Record<string, string> }>(kube, { type: 'statuses' }, 'statuses');
    const fixedByResync = entryDifferences(afterEvents, finalEntries).onlyA.length;
    return {
      kind,
      warmListMs: warmList.listMs,
      entries: cold.entries,
      converged: true,
      coldMs,
      coldCpuSeconds,
      idleResyncs: idle.cycles,
      idleCpuSecondsPerResync: idle.cpuPerCycle,
      idleCpuSecondsPerInterval: idle.cpuPerInterval,
      idleCallsPerResync: idle.callsPerCycle,
      idleWrites: idle.writes,
      idleRssMiB: idle.rss,
      latencyMs,
      unacked: acks.filter((a) => a === null).length,
      cpuSecondsPer1000Events: (eventsCpu / opts.events) * 1000,
      rssSteadyMiB: mem.rss,
      rssPeakMiB: mem.peak,
      finalEntries: finalEntries.map((e) => byName(e, names)),
      fixedByResync,
      statuses,
    };
  } finally {
    kubelet?.stop();
    // The real API server's child stops its etcd and kube-apiserver when disconnected; a signal would orphan them.
    for (const c of children.reverse()) await (opts.apiserver === 'real' && c === kubeChild ? stopByDisconnect(c) : stopBySignal(c));
    rmSync(dir, { recursive: true, force: true });
  }
}

function emptyFigures(kind: ControllerKind, entries: number, coldMs: number, coldCpuSeconds: number, mem: { rss: number; peak: number }): ControllerFigures {
  return {
    kind,
    warmListMs: NaN,
    entries,
    converged: false,
    coldMs,
    coldCpuSeconds,
    idleResyncs: 0,
    idleCpuSecondsPerResync: NaN,
    idleCpuSecondsPerInterval: NaN,
    idleCallsPerResync: {},
    idleWrites: NaN,
    idleRssMiB: NaN,
    latencyMs: [],
    unacked: NaN,
    cpuSecondsPer1000Events: NaN,
    rssSteadyMiB: mem.rss,
    rssPeakMiB: mem.peak,
    finalEntries: [],
    fixedByResync: NaN,
    statuses: {},
  };
}

interface CallSeen {
  method: string;
  /** A batch's items; 0 for other calls. */
  items: number;
  at: number;
  resync: boolean;
}

async function idleCycles(
  spire: ChildProcess,
  pid: number | undefined,
  gcIntervalSeconds: number,
): Promise<{ cycles: number; cpuPerCycle: number; cpuPerInterval: number; callsPerCycle: Record<string, number>; writes: number; rss: number }> {
  const since = Date.now();
  const samples: { at: number; cpu: number }[] = [];
  let rss = 0;
  let calls: CallSeen[];
  // BENCH_IDLE_RESYNCS: how many (default 3); a longer window averages in V8's occasional full collections.
  const resyncs = Number(process.env.BENCH_IDLE_RESYNCS ?? 3);
  const deadline = since + (resyncs + 1) * gcIntervalSeconds * 1000 + 60_000;
  for (let i = 0; ; i++) {
    samples.push({ at: Date.now(), cpu: cpuSeconds(pid) });
    rss = Math.max(rss, memory(pid).rss);
    if (i % 5 === 0) {
      calls = (await ask<{ calls: CallSeen[] }>(spire, { type: 'calls', since }, 'calls')).calls;
      if (calls.filter((c) => c.resync).length >= resyncs + 1 || Date.now() > deadline) break;
    }
    await sleep(200);
  }
  const starts = calls.filter((c) => c.resync).map((c) => c.at);
  const cycles = starts.length - 1;
  const writes = calls.filter((c) => c.method.startsWith('Batch')).length;
  if (cycles < 1) return { cycles: 0, cpuPerCycle: NaN, cpuPerInterval: NaN, callsPerCycle: {}, writes, rss };
  const [from, to] = [starts[0]!, starts[starts.length - 1]!];
  const cpuAt = (t: number) => samples.reduce((best, s) => (Math.abs(s.at - t) < Math.abs(best.at - t) ? s : best)).cpu;
  const callsPerCycle: Record<string, number> = {};
  for (const c of calls) if (c.at >= from && c.at < to) callsPerCycle[c.method] = (callsPerCycle[c.method] ?? 0) + 1 / cycles;
  const cpu = cpuAt(to) - cpuAt(from);
  return { cycles, cpuPerCycle: cpu / cycles, cpuPerInterval: cpu / ((to - from) / 1000 / gcIntervalSeconds), callsPerCycle, writes, rss };
}

/** An entry with the pod and node UIDs in its parent ID and selectors replaced by the objects' names. */
function byName(e: Record<string, unknown>, names: Record<string, string>): Record<string, unknown> {
  const swap = (s: string) => s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (uid) => names[uid] ?? uid);
  return { ...e, parentId: swap(String(e.parentId)), selectors: (e.selectors as string[]).map(swap).sort() };
}

/**
 * Waits until a whole resync has run: two resyncs have started (a controller's passes run
 * one at a time, so the second starts after the pass of the first is done), at most three
 * gcIntervals and two minutes.
 */
async function nextResync(spire: ChildProcess, gcIntervalSeconds: number): Promise<void> {
  const since = Date.now();
  const deadline = since + 3 * gcIntervalSeconds * 1000 + 120_000;
  while (Date.now() < deadline) {
    const calls = (await ask<{ calls: CallSeen[] }>(spire, { type: 'calls', since }, 'calls')).calls;
    if (calls.filter((c) => c.resync).length >= 2) return;
    await sleep(500);
  }
}

/** The ten slowest events, each with SPIRE's calls between its create and its entry (ms after the create). */
async function slowestEvents(kind: ControllerKind, spire: ChildProcess, created: { uid: string; at: number }[], acks: (number | null)[]): Promise<string> {
  const calls = (await ask<{ calls: CallSeen[] }>(spire, { type: 'calls', since: created[0]?.at ?? 0 }, 'calls')).calls;
  const slowest = created
    .map((c, i) => ({ uid: c.uid, at: c.at, ack: acks[i] }))
    .filter((e): e is { uid: string; at: number; ack: number } => e.ack != null)
    .sort((a, b) => b.ack - b.at - (a.ack - a.at))
    .slice(0, 10);
  const lines = slowest.map((e) => {
    const during = calls.filter((c) => c.at >= e.at && c.at <= e.ack).map((c) => `${c.method}${c.items ? `(${c.items})` : ''}@${c.at - e.at}`);
    return `  [${kind}] ${e.ack - e.at} ms (pod ${e.uid} created at ${e.at}): ${during.join(' ')}`;
  });
  return lines.join('\n');
}

/** Waits until SPIRE has seen no write for `ms` (at most `maxMs`). */
export async function quiet(spire: ChildProcess, ms: number, maxMs: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const since = Date.now() - ms;
    const calls = (await ask<{ calls: { method: string }[] }>(spire, { type: 'calls', since }, 'calls')).calls;
    if ((!calls.some((c) => c.method.startsWith('Batch')) && Date.now() - started >= ms) || Date.now() - started > maxMs) return;
    await sleep(250);
  }
}

/** Entries in one controller's output and not the other's, as JSON lines. */
export function entryDifferences(a: Record<string, unknown>[], b: Record<string, unknown>[]): { onlyA: string[]; onlyB: string[] } {
  const key = (e: Record<string, unknown>) => JSON.stringify(e);
  const setB = new Map<string, number>();
  for (const e of b) setB.set(key(e), (setB.get(key(e)) ?? 0) + 1);
  const onlyA: string[] = [];
  for (const e of a) {
    const k = key(e);
    const n = setB.get(k) ?? 0;
    if (n > 0) setB.set(k, n - 1);
    else onlyA.push(k);
  }
  const onlyB = [...setB].flatMap(([k, n]) => Array.from({ length: n }, () => k));
  return { onlyA, onlyB };
}

export const nowMs = () => performance.now();
