/**
 * `npm run bench:node-cold -- [--pods 3000,10000] [--runs 3]`: a cold start
 * against the real SPIRE server on the e2e lane's real node, ours against
 * spire-controller-manager (test/e2e/cold-start.ts says how each figure is
 * taken). The table goes to stdout, and with every figure to
 * bench/results/<time>-node-cold.json (or --out FILE). Needs what
 * `npm run test:e2e` needs (run it once first: it builds the binaries and images).
 */
import { parseArgs } from 'node:util';
import { coldStartTable, measureColdStart } from '../test/e2e/cold-start.js';
import { onRealNode, writeResults } from './on-real-node.js';

const { values } = parseArgs({ options: { pods: { type: 'string', default: '3000,10000' }, runs: { type: 'string', default: '3' }, out: { type: 'string' } } });
const podCounts = values.pods.split(',').map(Number);
const runs = Number(values.runs);
if (podCounts.some((n) => !(n > 0)) || [...podCounts].sort((a, b) => a - b).join() !== podCounts.join() || !(runs >= 1)) throw new Error('--pods takes growing counts (3000,10000), --runs a positive number');

const { result: figures, versions } = await onRealNode('bench:node-cold', (plane, node) => measureColdStart(plane, node, { podCounts, runs, log: (l) => console.log(`bench:node-cold: ${l}`) }));
const table = coldStartTable(figures);
console.log(table.join('\n'));
const command = `npm run bench:node-cold -- ${process.argv.slice(2).join(' ')}`.trim();
console.log(`bench:node-cold: written to ${writeResults('node-cold', values.out, { command, versions, podCounts, runs, table, figures })}`);
