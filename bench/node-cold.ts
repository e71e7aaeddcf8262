/**
 * `npm run bench:node-cold -- [--pods 3000,10000] [--runs 3]`: a cold start
 * against the real SPIRE server on the e2e lane's real node, ours against
 * spire-controller-manager (test/e2e/cold-start.ts says how each figure is
 * taken). The table goes to stdout, and with every figure to
 * bench/results/<time>-node-cold.json (or --out FILE). Needs what
 * `npm run test:e2e` needs (run it once first: it builds the binaries and images).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../test/support/real-k8s/index.js';
import { nodeUnavailable, startNode } from '../test/support/real-node/node.js';
import { coldStartTable, measureColdStart } from '../test/e2e/cold-start.js';
import { imagesMissing, versionsLine } from '../test/e2e/world.js';

const { values } = parseArgs({ options: { pods: { type: 'string', default: '3000,10000' }, runs: { type: 'string', default: '3' }, out: { type: 'string' } } });
const podCounts = values.pods.split(',').map(Number);
const runs = Number(values.runs);
if (podCounts.some((n) => !(n > 0)) || [...podCounts].sort((a, b) => a - b).join() !== podCounts.join() || !(runs >= 1)) throw new Error('--pods takes growing counts (3000,10000), --runs a positive number');

const missing = nodeUnavailable() ?? imagesMissing();
if (missing) {
  console.error(`bench:node-cold: cannot run: ${missing}`);
  process.exit(2);
}

const plane = await startControlPlane();
const node = await startNode(plane).catch(async (err: unknown) => {
  await plane.stop();
  throw err;
});
const versions = versionsLine(plane, node);
let figures;
try {
  console.log(`bench:node-cold: ${versions}`);
  figures = await measureColdStart(plane, node, { podCounts, runs, log: (l) => console.log(`bench:node-cold: ${l}`) });
} finally {
  await node.stop();
  await plane.stop();
}
const table = coldStartTable(figures);
console.log(table.join('\n'));
const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
const out = values.out ?? join(resultsDir, `${new Date().toISOString().replace(/:/g, '-').slice(0, 19)}-node-cold.json`);
writeFileSync(out, `${JSON.stringify({ command: `npm run bench:node-cold -- ${process.argv.slice(2).join(' ')}`.trim(), versions, podCounts, runs, table, figures }, null, 1)}\n`);
console.log(`bench:node-cold: written to ${out}`);
