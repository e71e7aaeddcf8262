/**
 * Child process: the floors the controller is compared with, measured with a
 * bare client on the same socket and batch sizes, so none of our engine runs:
 * pushing the pre-rendered entries (cold convergence) and a paged list of all
 * of them (idle pass). Prints one JSON line, with the wall-clock moment the
 * push finished and its CPU seconds (for the list-and-push floor, see barrier.ts).
 */
import { performance } from 'node:perf_hooks';
import { declareEntries, toSpire, WRITE_MASK } from '../src/entries/index.js';
import { SpireClient } from '../src/spire/index.js';
import { barrier } from './barrier.js';
import { benchSettings, syntheticCluster } from './cluster.js';

const pods = Number(process.argv[2]);
const socket = process.argv[3] as string;
const lists = Number(process.argv[4] ?? 3);

const declared = declareEntries(syntheticCluster(pods), benchSettings()).entries;
const entries = declared.map((d, i) => toSpire(d.spec, `scm-floor-${i}`));

const spire = new SpireClient({ socket, rpcTimeoutMs: 120_000 });
await spire.waitUntilReady({ timeoutMs: 60_000 });
await barrier();
const cpu0 = process.cpuUsage();
let t = performance.now();
// As the controller writes: the revision and the compared fields echoed back.
const outcome = await spire.createEntries(entries, { outputMask: WRITE_MASK });
const pushMs = performance.now() - t;
const pushEndAt = Date.now();
const pushCpu = process.cpuUsage(cpu0);
const failed = outcome.results.filter((r) => !r.status.ok).length;
const listMs: number[] = [];
for (let i = 0; i < lists; i++) {
  t = performance.now();
  const all = await spire.listEntries();
  listMs.push(performance.now() - t);
  if (all.length !== entries.length) throw new Error(`listed ${all.length} of ${entries.length}`);
}
spire.close();
console.log(JSON.stringify({ entries: entries.length, failed, pushMs, pushEndAt, pushCpuSeconds: (pushCpu.user + pushCpu.system) / 1e6, listMs }));
