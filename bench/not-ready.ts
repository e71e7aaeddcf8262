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
import { parseArgs } from 'node:util';
import { measureNotReady, notReadyTable } from '../test/e2e/not-ready.js';
import { onRealNode, writeResults } from './on-real-node.js';

const { values } = parseArgs({ options: { pods: { type: 'string', default: '0,3000,10000' }, runs: { type: 'string', default: '3' }, outage: { type: 'string', default: '60' }, out: { type: 'string' } } });
const podCounts = values.pods.split(',').map(Number);
const runs = Number(values.runs);
const outageMs = Number(values.outage) * 1000;
if (podCounts.some((n) => !(n >= 0)) || !(runs >= 1) || !(outageMs >= 0)) throw new Error('--pods takes counts (0,3000), --runs a positive number, --outage seconds');

const { result: run, versions } = await onRealNode('bench:not-ready', (plane, node) =>
  measureNotReady(plane, node, { podCounts, runs, outage: outageMs > 0 ? ['ours', 'peer'] : [], outageMs, log: (l) => console.log(`bench:not-ready: ${l}`) }),
);
const table = notReadyTable(run.figures);
console.log(table.join('\n'));
console.log(`bench:not-ready: entries unchanged over the outage: ${JSON.stringify(run.entriesKept)}`);
const command = `npm run bench:not-ready -- ${process.argv.slice(2).join(' ')}`.trim();
console.log(`bench:not-ready: written to ${writeResults('not-ready', values.out, { command, versions, podCounts, runs, outageSeconds: outageMs / 1000, table, ...run })}`);
