/**
 * `npx tsx bench/module-cost.ts [--runs N] [--compile-cache DIR]`: what loading
 * each package and each of the controller's entry modules costs, in resident
 * memory and CPU seconds, next to bare Node. Every figure comes from a fresh
 * Node process that imports one module and then reports its own RSS and
 * `process.cpuUsage()` (user and system); the median of N processes is shown.
 * Alone: the module in a process of its own. In order: a process that loads
 * it after every module listed above it, and in brackets what it adds to the
 * row above (shared dependencies counted once); single steps are within a
 * few MiB of noise (when V8 grows its heap), their sum is not.
 * The compiled modules are read from dist/ (`npm run build` first);
 * dist/x509/index.js is @peculiar/x509, which needs reflect-metadata first.
 * With `--compile-cache DIR` every process runs with NODE_COMPILE_CACHE=DIR
 * (warmed by one process that loads everything before the runs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './stats.js';

const root = fileURLToPath(new URL(import.meta.url.endsWith('.js') ? '../..' : '..', import.meta.url));

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}
const runs = Number(arg('runs') ?? 5);
const cacheDir = arg('compile-cache');

/** The packages `run` loads at start, then our entry modules; a path is a compiled module under dist/. */
const MODULES = [
  'commander',
  'pino',
  'pino-pretty',
  'yaml',
  'ajv',
  're2js',
  'uuid',
  'undici',
  'prom-client',
  '@grpc/grpc-js',
  '@grpc/proto-loader',
  'reflect-metadata',
  'dist/x509/index.js',
  'dist/spire/index.js',
  'dist/kube/cluster.js',
  'dist/webhook/index.js',
  'dist/manager/live.js',
  'dist/cli/run.js',
];

const specifier = (m: string) => (m.startsWith('dist/') ? pathToFileURL(join(root, m)).href : m);

interface Sample {
  rssMiB: number;
  userS: number;
  systemS: number;
}

/** One fresh process importing `modules` in order; its figures after the last one. */
function sample(modules: string[]): Sample {
  const body = [
    `for (const m of ${JSON.stringify(modules.map(specifier))}) await import(m);`,
    'const c = process.cpuUsage();',
    'console.log(JSON.stringify({ rssMiB: process.memoryUsage.rss() / 2 ** 20, userS: c.user / 1e6, systemS: c.system / 1e6 }));',
  ].join('\n');
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
  if (cacheDir) env.NODE_COMPILE_CACHE = cacheDir;
  else delete env.NODE_COMPILE_CACHE;
  // Run from the repository so bare specifiers resolve to its node_modules.
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', body], { cwd: root, env, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as Sample;
}


function medianOf(modules: string[]): Sample {
  const xs = Array.from({ length: runs }, () => sample(modules));
  return {
    rssMiB: median(xs.map((x) => x.rssMiB)),
    userS: median(xs.map((x) => x.userS)),
    systemS: median(xs.map((x) => x.systemS)),
  };
}

if (!existsSync(join(root, 'dist/manager/live.js'))) throw new Error('dist/ is missing: run npm run build first');
if (cacheDir) sample(MODULES);

const bare = medianOf([]);
const f = (x: number, d = 0) => x.toFixed(d);
console.log(`Node ${process.versions.node}, ${runs} processes each, median${cacheDir ? `, NODE_COMPILE_CACHE=${cacheDir}` : ''}`);
const cpu = (s: Sample) => s.userS + s.systemS;
console.log('| module | alone: RSS MiB (over bare) | alone: CPU s (system) | in order: RSS MiB (step) | in order: CPU s (step) |');
console.log('|---|---|---|---|---|');
console.log(`| bare Node | ${f(bare.rssMiB)} | ${f(cpu(bare), 2)} (${f(bare.systemS, 2)}) | ${f(bare.rssMiB)} | ${f(cpu(bare), 2)} |`);
let previous = bare;
for (const [i, m] of MODULES.entries()) {
  const alone = medianOf([m]);
  const upTo = medianOf(MODULES.slice(0, i + 1));
  const step = (a: number, b: number, d: number) => `${a - b >= 0 ? '+' : ''}${f(a - b, d)}`;
  console.log(`| ${m} | ${f(alone.rssMiB)} (+${f(alone.rssMiB - bare.rssMiB)}) | ${f(cpu(alone), 2)} (${f(alone.systemS, 2)}) | ${f(upTo.rssMiB)} (${step(upTo.rssMiB, previous.rssMiB, 0)}) | ${f(cpu(upTo), 2)} (${step(cpu(upTo), cpu(previous), 2)}) |`);
  previous = upTo;
}
