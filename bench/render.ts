/**
 * Micro-benchmark: render N pod entries from cached templates (declareEntries
 * over a synthetic cluster). Not a test: it prints figures and asserts nothing.
 * Besides wall time it reports the CPU time of the process per render, which
 * other load on a shared machine disturbs far less.
 *   npx tsx bench/render.ts [--pods 100000] [--runs 5]
 */
import { performance } from 'node:perf_hooks';
import { declareEntries, RenderCache } from '../src/entries/index.js';
import { benchSettings, syntheticCluster } from './cluster.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

const settings = benchSettings();

if (import.meta.url === `file://${process.argv[1]}`) {
  const pods = arg('pods', 100_000);
  const runs = arg('runs', 5);
  const snapshot = syntheticCluster(pods);
  const times: number[] = [];
  const cpu: number[] = [];
  let entries = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const state = declareEntries(snapshot, settings);
    const used = process.cpuUsage(c0);
    times.push(performance.now() - t0);
    cpu.push((used.user + used.system) / 1000);
    entries = state.entries.length;
    if (state.renderFailures.length > 0) throw new Error(`render failures: ${state.renderFailures[0]?.message}`);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(`node ${process.version}, ${pods} pods, ${entries} entries rendered per run, ${runs} runs`);
  console.log(`cold: median ${median.toFixed(0)} ms per full render (${((median * 1000) / entries).toFixed(2)} µs per entry); min ${times[0]!.toFixed(0)} ms, max ${times[times.length - 1]!.toFixed(0)} ms`);
  console.log(`cold CPU time: median ${cpu[Math.floor(cpu.length / 2)]!.toFixed(0)} ms per full render; min ${cpu[0]!.toFixed(0)} ms, max ${cpu[cpu.length - 1]!.toFixed(0)} ms`);

  // Warm: the pass after a pass, with the render cache live mode keeps (one pod changed).
  const renderCache = new RenderCache();
  declareEntries(snapshot, { ...settings, renderCache });
  const warm: number[] = [];
  for (let r = 0; r < runs; r++) {
    const pods2 = [...snapshot.pods];
    pods2[r] = { ...pods2[r]!, metadata: { ...pods2[r]!.metadata, annotations: { touched: String(r) } } };
    const t0 = performance.now();
    declareEntries({ ...snapshot, pods: pods2 }, { ...settings, renderCache });
    warm.push(performance.now() - t0);
  }
  warm.sort((a, b) => a - b);
  console.log(`warm (render cache, one pod changed): median ${warm[Math.floor(warm.length / 2)]!.toFixed(0)} ms per pass`);
  console.log(`heap used after: ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`);
}
