import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { hasOwnPrefix } from '../entries/index.js';
import { MemorySpireServer } from '../memspire/index.js';
import { loadContext, passOptions } from './context.js';
import { readSeedFile } from './memory-spire.js';
import { runOnce } from './one-pass.js';
import { createLogger } from './logger.js';
import { commandDescription } from './command-help.js';

export const DEMO_DIR = fileURLToPath(new URL('../../examples/demo', import.meta.url));

function banner(print: (s: string) => void, title: string, what: string): void {
  print(`\n=== ${title} ===\n${what}\n`);
}

/**
 * The quick start: the real reconcile path against an in-memory SPIRE server
 * seeded with a previous state, and a cluster snapshot in examples/demo/.
 * Returns the exit code (non-zero if anything is left to do afterwards).
 */
export async function runDemo(print: (s: string) => void): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'spire-reconciler-demo-'));
  const socket = join(dir, 'api.sock');
  const seed = readSeedFile(join(DEMO_DIR, 'spire-entries.json'));
  const spire = await MemorySpireServer.start({ socketPath: socket, trustDomain: 'demo.example', seed });
  const log = createLogger('warn', 'console');
  const flags = { config: join(DEMO_DIR, 'config.yaml'), manifests: [join(DEMO_DIR, 'manifests')], socket };
  try {
    print(`In-memory SPIRE server on ${socket}, seeded with ${spire.entries.size} entries from a previous state of the cluster.`);
    banner(print, '1. plan', 'What a reconcile would do. Nothing is written (spire-reconciler plan).');
    const calls = spire.calls.length;
    await runOnce(flags, { apply: false, log, print });
    const writes = spire.calls.slice(calls).filter((c) => c.method.startsWith('Batch'));
    print(`\n(plan sent ${writes.length} write calls to SPIRE)`);

    banner(print, '2. reconcile --once', 'The same plan, applied: creates and updates first, then deletes.');
    const applied = await runOnce(flags, { apply: true, log, print });

    banner(print, '3. plan again', 'SPIRE now holds exactly what the cluster declares.');
    const again = await runOnce(flags, { apply: false, log, print });
    const left = again.result.plan.creates.length + again.result.plan.updates.length + again.result.plan.deletes.length;
    print(`\n${left === 0 ? 'Nothing left to do.' : `${left} changes still planned.`} SPIRE holds ${spire.entries.size} entries.`);
    const prefix = passOptions(loadContext(flags).config).ownership.entryIDPrefix;
    const foreign = spire.entries.all().filter((e) => !hasOwnPrefix(e.id, prefix));
    for (const e of foreign) {
      print(`Untouched: ${e.id} (spiffe://${e.spiffeId.trustDomain}${e.spiffeId.path}) has no ${prefix} prefix, so it is not ours (entryScope: prefixed).`);
    }
    print('\nNext: `plan` against your own snapshot (docs/commands.md), or swap it in for spire-controller-manager (docs/migration.md).');
    return left === 0 && applied.result.applied?.failures.length === 0 ? 0 : 1;
  } finally {
    await spire.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(commandDescription('demo'))
    .action(async () => {
      process.exitCode = await runDemo((s) => console.log(s));
    });
}
