/**
 * The `--peer` report: for each size, spire-reconciler then the peer, measured
 * by side-by-side.ts; one table with both rows and the peer/ours ratio, then
 * whether both left SPIRE with the same entries and wrote the same
 * ClusterSPIFFEID stats. Written to bench/results/<date>-side-by-side.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOurs, type ControllerFigures, entryDifferences, measureController } from './side-by-side.js';
import { percentile } from './stats.js';

const here = fileURLToPath(new URL('.', import.meta.url));

const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const ratio = (peer: number, ours: number) => (Number.isFinite(peer) && Number.isFinite(ours) && ours > 0 ? `${(peer / ours).toFixed(2)}x` : '-');

function peerVersion(peer: string): string {
  try {
    // A Go binary names its main module and version in its build info.
    const out = execFileSync('go', ['version', '-m', peer], { encoding: 'utf8' });
    const mod = /^\s+mod\s+(\S+)\s+(\S+)/m.exec(out);
    return mod ? `${mod[1]} ${mod[2]}` : peer;
  } catch {
    return peer;
  }
}

/** Methods sorted by name, with calls per resync, e.g. "ListEntries 51". */
const calls = (c: Record<string, number>) =>
  Object.entries(c)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([m, n]) => `${m} ${fmt(n, n % 1 ? 1 : 0)}`)
    .join(', ') || '-';

interface Compared {
  pods: number;
  ours: ControllerFigures;
  peer: ControllerFigures;
  sameEntries: { onlyOurs: string[]; onlyPeer: string[] };
  statusDifferences: string[];
}

function row(pods: number, f: ControllerFigures): string[] {
  const l = f.latencyMs;
  return [
    String(pods),
    f.kind,
    f.converged ? fmt(f.coldMs) : `> ${fmt(f.coldMs)} (${f.entries} entries)`,
    fmt(f.coldCpuSeconds, 1),
    `${fmt(f.idleCpuSecondsPerResync, 2)} (${f.idleResyncs} resyncs)`,
    calls(f.idleCallsPerResync),
    fmt(f.idleWrites),
    `${fmt(percentile(l, 50))}/${fmt(percentile(l, 99))}/${fmt(Math.max(...l))}${f.unacked > 0 ? ` (${f.unacked} never)` : ''}`,
    fmt(f.cpuSecondsPer1000Events, 2),
    `${fmt(f.rssSteadyMiB)}/${fmt(f.rssPeakMiB)}`,
  ];
}

function ratioRow(o: ControllerFigures, p: ControllerFigures): string[] {
  const lo = o.latencyMs;
  const lp = p.latencyMs;
  return [
    '',
    'peer/ours',
    p.converged ? ratio(p.coldMs, o.coldMs) : '-',
    ratio(p.coldCpuSeconds, o.coldCpuSeconds),
    ratio(p.idleCpuSecondsPerResync, o.idleCpuSecondsPerResync),
    '',
    '',
    `${ratio(percentile(lp, 50), percentile(lo, 50))}/${ratio(percentile(lp, 99), percentile(lo, 99))}/${ratio(Math.max(...lp), Math.max(...lo))}`,
    ratio(p.cpuSecondsPer1000Events, o.cpuSecondsPer1000Events),
    `${ratio(p.rssSteadyMiB, o.rssSteadyMiB)}/${ratio(p.rssPeakMiB, o.rssPeakMiB)}`,
  ];
}

/** Stats only we write, on purpose (docs/federation.md, "Resilient federatesWith"): not a difference. */
const OURS_ONLY_STATS = new Set(['entriesWithoutFederation']);

/** ClusterSPIFFEID stats the two wrote differently, one line per object and field. */
function statusDifferences(ours: Record<string, unknown>, peer: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const name of [...new Set([...Object.keys(ours), ...Object.keys(peer)])].sort()) {
    const a = ((ours[name] as { stats?: Record<string, unknown> } | null)?.stats ?? {}) as Record<string, unknown>;
    const b = ((peer[name] as { stats?: Record<string, unknown> } | null)?.stats ?? {}) as Record<string, unknown>;
    for (const field of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      if (OURS_ONLY_STATS.has(field) && b[field] === undefined) continue;
      if (a[field] !== b[field]) out.push(`${name}.status.stats.${field}: ours ${String(a[field])}, peer ${String(b[field])}`);
    }
  }
  return out;
}

export async function sideBySide(o: { peer: string; apiserver: 'fake' | 'real'; sizes: number[]; events: number; ratePerSecond: number; gcIntervalSeconds: number; memoryLimitMiB?: number; bundle?: boolean }): Promise<void> {
  const ours = buildOurs(o.bundle === true);
  // The machine's load average at the start and the end: on shared cores, it says how much the times mean.
  const loadAtStart = loadavg();
  const opts = { peer: o.peer, apiserver: o.apiserver, events: o.events, ratePerSecond: o.ratePerSecond, gcIntervalSeconds: o.gcIntervalSeconds, coldTimeoutMs: 10 * 60_000, ...(o.memoryLimitMiB !== undefined ? { memoryLimitMiB: o.memoryLimitMiB } : {}) };
  const results: Compared[] = [];
  for (const pods of o.sizes) {
    console.error(`N=${pods}: spire-reconciler`);
    const a = await measureController('ours', pods, opts, ours);
    console.error(`N=${pods}: peer`);
    const b = await measureController('peer', pods, opts, ours);
    const diff = entryDifferences(a.finalEntries, b.finalEntries);
    results.push({ pods, ours: a, peer: b, sameEntries: { onlyOurs: diff.onlyA, onlyPeer: diff.onlyB }, statusDifferences: statusDifferences(a.statuses, b.statuses) });
  }

  const round = (xs: number[]) => xs.map((x) => Number(x.toFixed(1)));
  const load = { start: round(loadAtStart), end: round(loadavg()) };
  const header = ['pods', 'controller', 'cold ms', 'cold CPU s', 'idle CPU s per resync', 'idle SPIRE calls per resync', 'idle writes', 'event latency p50/p99/max ms', 'CPU s / 1000 events', 'RSS MiB steady/peak'];
  const table = [header, ...results.flatMap((r) => [row(r.pods, r.ours), row(r.pods, r.peer), ratioRow(r.ours, r.peer)])];
  const widths = header.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const text = table.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
  const machine = { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${process.platform} ${process.arch}` };
  const peer = peerVersion(o.peer);
  console.log(`spire-reconciler vs ${peer}: ${machine.cores} cores (${machine.cpu}), Node ${machine.node}; ${o.apiserver === 'real' ? 'a real kube-apiserver' : 'the in-process fake API server'}; load average ${load.start.join('/')} at the start, ${load.end.join('/')} at the end; gcInterval ${o.gcIntervalSeconds}s; ${o.events} pod events at ${o.ratePerSecond}/s; ours ${o.memoryLimitMiB !== undefined ? `through the image's entrypoint with a ${o.memoryLimitMiB} MiB memory limit` : 'with Node\'s defaults (no memory limit)'}${o.bundle ? ', bundled as the image is' : ''}; one run each`);
  console.log(text);
  for (const r of results) {
    const same = r.sameEntries.onlyOurs.length === 0 && r.sameEntries.onlyPeer.length === 0;
    for (const f of [r.ours, r.peer]) {
      if (f.fixedByResync > 0) console.log(`\nN=${r.pods}: right after the events, ${f.kind === 'ours' ? 'spire-reconciler' : 'the peer'} held ${f.fixedByResync} entries its next resync replaced`);
    }
    console.log(`\nN=${r.pods}: ${same ? `same entries (${r.ours.finalEntries.length})` : `entries differ: ${r.sameEntries.onlyOurs.length} only ours, ${r.sameEntries.onlyPeer.length} only the peer's`}; ${r.statusDifferences.length === 0 ? `same ClusterSPIFFEID stats (ours also writes ${[...OURS_ONLY_STATS].join(', ')})` : 'ClusterSPIFFEID stats differ:'}`);
    for (const line of [...r.sameEntries.onlyOurs.slice(0, 3).map((e) => `  only ours: ${e}`), ...r.sameEntries.onlyPeer.slice(0, 3).map((e) => `  only peer: ${e}`)]) console.log(line);
    for (const line of r.statusDifferences) console.log(`  ${line}`);
  }
  // Compiled (.bench/bench/), the results still go to the repository's bench/results/.
  const resultsDir = import.meta.url.endsWith('.js') ? join(here, '..', '..', 'bench', 'results') : join(here, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}-side-by-side.json`);
  const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
  const slim = results.map((r) => ({
    ...r,
    ours: { ...r.ours, finalEntries: r.ours.finalEntries.length, latencyMs: summary(r.ours.latencyMs) },
    peer: { ...r.peer, finalEntries: r.peer.finalEntries.length, latencyMs: summary(r.peer.latencyMs) },
  }));
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), machine, load, apiserver: o.apiserver, command, peer, gcIntervalSeconds: o.gcIntervalSeconds, memoryLimitMiB: o.memoryLimitMiB ?? null, bundle: o.bundle === true, events: o.events, ratePerSecond: o.ratePerSecond, results: slim }, null, 2)}\n`);
  console.log(`\nwritten to ${file}`);
}

export const summary = (l: number[]) => ({ count: l.length, p50: percentile(l, 50), p99: percentile(l, 99), max: Math.max(...l) });
