import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { MemorySpireServer, type SpireSeed } from '../memspire/index.js';
import { checkEntryShape } from '../spire/index.js';
import { requirePaths } from './paths.js';
import { errorMessage } from '../api/errors.js';
import { commandDescription } from './command-help.js';

/**
 * Reads a seed file: `spire-server entry show -output json` output
 * (`{"entries": [...]}`, snake_case, int64 as strings), optionally with
 * `federated_bundles` and `federation_relationships` beside it.
 */
export function readSeedFile(path: string): SpireSeed {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`seed file ${path}: ${errorMessage(err)}`, { cause: err });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new Error(`seed file ${path}: expected a JSON object with "entries", "federated_bundles" or "federation_relationships"`);
  }
  const o = doc as Record<string, unknown>;
  const list = (key: string): never[] => {
    const v = o[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw new Error(`seed file ${path}: "${key}" must be an array`);
    return v as never[];
  };
  const entries = list('entries');
  // The server's wire codec would turn a field it cannot read into its zero value.
  entries.forEach((e, i) => {
    try {
      checkEntryShape(e);
    } catch (err) {
      throw new Error(`seed file ${path}: entries[${i}]: ${errorMessage(err)}`, { cause: err });
    }
  });
  return { entries, federatedBundles: list('federated_bundles'), federationRelationships: list('federation_relationships') };
}

export function registerMemorySpire(program: Command): void {
  program
    .command('memory-spire')
    .description(commandDescription('memory-spire'))
    .requiredOption('--socket <path>', 'Unix socket path to listen on')
    .option('--trust-domain <name>', "the server's trust domain", 'example.org')
    .option('--seed <file>', 'JSON file with entries (as `spire-server entry show -output json` prints), federated_bundles, federation_relationships')
    .option('--delay <ms>', 'answer every call this many milliseconds late, as a slow SPIRE server does', (v) => {
      const ms = Number(v);
      if (!Number.isInteger(ms) || ms < 0) throw new InvalidArgumentError('expected a whole number of milliseconds');
      return ms;
    })
    .action(async (opts: { socket: string; trustDomain: string; seed?: string; delay?: number }) => {
      requirePaths('--seed', opts.seed);
      const seed = opts.seed ? readSeedFile(opts.seed) : undefined;
      const server = await MemorySpireServer.start({
        socketPath: resolve(opts.socket),
        trustDomain: opts.trustDomain,
        seed,
      });
      if (opts.delay) server.faults.delay(opts.delay);
      console.log(`in-memory SPIRE server for ${server.trustDomain} listening on ${server.address} (${server.entries.size} entries)`);
      const shutdown = (signal: string) => {
        console.log(`${signal}: stopping`);
        void server.stop().then(() => process.exit(0));
      };
      process.once('SIGINT', () => shutdown('SIGINT'));
      process.once('SIGTERM', () => shutdown('SIGTERM'));
    });
}
