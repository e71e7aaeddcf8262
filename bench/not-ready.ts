/**
 * `npm run bench:not-ready -- [--pods 0,3000,10000] [--runs 3] [--outage 60]`:
 * how long the SPIRE server pod is NotReady (out of its Service) on account
 * of its controller container, ours against spire-controller-manager, on the
 * e2e lane's real node (test/e2e/not-ready.ts says how each figure is taken):
 * over a rollout and a crash of the controller container at each pod count,
 * and over an outage of the API server as the controller sees it, for both.
 *
 * The table goes to stdout, and with every figure to
 * bench/results/<time>-not-ready.json (or --out FILE). Needs what
 * `npm run test:e2e` needs (run it once first: it builds the binaries and images).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../test/support/real-k8s/index.js';
import { nodeUnavailable, startNode } from '../test/support/real-node/node.js';
import { measureNotReady, notReadyTable } from '../test/e2e/not-ready.js';
import { imagesMissing, versionsLine } from '../test/e2e/world.js';

const { values } = parseArgs({ options: { pods: { type: 'string', default: '0,3000,10000' }, runs: { type: 'string', default: '3' }, outage: { type: 'string', default: '60' }, out: { type: 'string' } } });
const podCounts = values.pods.split(',').map(Number);
const runs = Number(values.runs);
const outageMs = Number(values.outage) * 1000;
if (podCounts.some((n) => !(n >= 0)) || !(runs >= 1) || !(outageMs >= 0)) throw new Error('--pods takes counts (0,3000), --runs a positive number, --outage seconds');

const missing = nodeUnavailable() ?? imagesMissing();
if (missing) {
  console.error(`bench:not-ready: cannot run: ${missing}`);
  process.exit(2);
}

const plane = await startControlPlane();
const node = await startNode(plane).catch(async (err: unknown) => {
  await plane.stop();
  throw err;
});
const versions = versionsLine(plane, node);
let run;
try {
  console.log(`bench:not-ready: ${versions}`);
  run = await measureNotReady(plane, node, { podCounts, runs, outage: outageMs > 0 ? ['ours', 'peer'] : [], outageMs, log: (l) => console.log(`bench:not-ready: ${l}`) });
} finally {
  await node.stop();
  await plane.stop();
}
const table = notReadyTable(run.figures);
console.log(table.join('\n'));
console.log(`bench:not-ready: entries unchanged over the outage: ${JSON.stringify(run.entriesKept)}`);
const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
const out = values.out ?? join(resultsDir, `${new Date().toISOString().replace(/:/g, '-').slice(0, 19)}-not-ready.json`);
writeFileSync(out, `${JSON.stringify({ command: `npm run bench:not-ready -- ${process.argv.slice(2).join(' ')}`.trim(), versions, podCounts, runs, outageSeconds: outageMs / 1000, table, ...run }, null, 1)}\n`);
console.log(`bench:not-ready: written to ${out}`);
