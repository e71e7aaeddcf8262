/**
 * Micro-benchmark: would a worker thread take the first list's rendering and
 * encoding off the main thread for less CPU than it costs? Not a test: it
 * prints figures and asserts nothing. For N synthetic pods (bench/cluster.ts)
 * it measures, in CPU time of the thread doing it:
 *
 * - the work a worker would take: declaring (rendering) every pod's entries,
 *   and encoding them as BatchCreateEntry requests of 200;
 * - what handing that work over costs: structured clone (what postMessage
 *   does) of the pods as the cache holds them, and of the declared entries
 *   (the main thread keeps them in its state of SPIRE's entries), each as the
 *   sender's serialize and the receiver's deserialize; and a real
 *   postMessage of the pods to a worker, with the worker's CPU to receive them.
 *
 *   npm run bench -- ... compiles it; then: node .bench/bench/worker-cost.js [--pods 100000] [--runs 3]
 */
import { deserialize, serialize } from 'node:v8';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { declareEntries, toSpire } from '../src/entries/index.js';
import { loadSpireGrpc } from '../src/spire/proto.js';
import { benchSettings, syntheticCluster } from './cluster.js';
import { median } from './stats.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

/** CPU milliseconds of this thread spent in `fn`, and what it returned. */
function cpu<T>(fn: () => T): { ms: number; value: T } {
  const c0 = process.threadCpuUsage();
  const value = fn();
  const c = process.threadCpuUsage(c0);
  return { ms: (c.user + c.system) / 1000, value };
}

if (!isMainThread) {
  // The receiving end: how long taking the pods off the channel costs this thread.
  parentPort!.once('message', () => {
    const c0 = process.threadCpuUsage();
    parentPort!.once('message', (pods: unknown[]) => {
      const c = process.threadCpuUsage(c0);
      parentPort!.postMessage({ received: pods.length, ms: (c.user + c.system) / 1000 });
    });
  });
} else {
  const pods = arg('pods', 100_000);
  const runs = arg('runs', 3);
  const snapshot = syntheticCluster(pods);
  const settings = benchSettings();
  const serializeCreate = loadSpireGrpc().spire.api.server.entry.v1.Entry.service.BatchCreateEntry.requestSerialize as (req: unknown) => Buffer;
  const rows: Record<string, number[]> = {};
  const note = (k: string, ms: number) => (rows[k] ??= []).push(ms);
  for (let r = 0; r < runs; r++) {
    const declared = cpu(() => declareEntries(snapshot, settings).entries);
    note('declare (render) every pod', declared.ms);
    const entries = declared.value;
    const encoded = cpu(() => {
      let bytes = 0;
      for (let i = 0; i < entries.length; i += 200) {
        const chunk = entries.slice(i, i + 200).map((d, j) => toSpire(d.spec, `bench-${i + j}`));
        bytes += serializeCreate({ entries: chunk }).length;
      }
      return bytes;
    });
    note('encode as BatchCreateEntry of 200', encoded.ms);
    const podBytes = cpu(() => serialize(snapshot.pods));
    note('clone pods: serialize', podBytes.ms);
    note('clone pods: deserialize', cpu(() => deserialize(podBytes.value)).ms);
    const specs = entries.map((d) => d.spec);
    const specBytes = cpu(() => serialize(specs));
    note('clone entries: serialize', specBytes.ms);
    note('clone entries: deserialize', cpu(() => deserialize(specBytes.value)).ms);
    // The same clone through a real channel: the sender's postMessage, and the worker's receipt.
    const worker = new Worker(new URL(import.meta.url));
    worker.postMessage('ready');
    const posted = cpu(() => worker.postMessage(snapshot.pods));
    note('postMessage pods: sender', posted.ms);
    const got = await new Promise<{ received: number; ms: number }>((resolve) => worker.once('message', resolve));
    note('postMessage pods: worker receiving', got.ms);
    await worker.terminate();
    if (r === 0) console.log(`node ${process.version}, ${pods} pods, ${entries.length} entries; pods cloned ${(podBytes.value.length / 2 ** 20).toFixed(0)} MiB, entries ${(specBytes.value.length / 2 ** 20).toFixed(0)} MiB, requests ${(encoded.value / 2 ** 20).toFixed(0)} MiB`);
  }
  console.log(`CPU ms of the thread doing it, median of ${runs} (first run in brackets: a start runs each once, before the JIT has warmed up):`);
  for (const [k, xs] of Object.entries(rows)) console.log(`  ${k.padEnd(36)} ${median(xs).toFixed(0).padStart(6)} (${xs[0]!.toFixed(0)})`);
}
