import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_DIR } from '../../src/cli/demo.js';
import { readSeedFile } from '../../src/cli/memory-spire.js';
import { runOnce } from '../../src/cli/one-pass.js';
import { MemorySpireServer } from '../../src/memspire/index.js';

const quiet = pino({ level: 'silent' });
const demoFlags = { config: join(DEMO_DIR, 'config.yaml'), manifests: [join(DEMO_DIR, 'manifests')] };

/**
 * The demo cluster's previous state as spire-controller-manager without
 * entryIDPrefix (upstream's default) leaves it: the same entries, with IDs
 * the SPIRE server generated.
 */
function upstreamState() {
  const seed = readSeedFile(join(DEMO_DIR, 'spire-entries.json'));
  return { ...seed, entries: (seed.entries ?? []).map((e) => ({ ...e, id: e.id!.replace(/^scm-demo\./, '') })) };
}

describe('plan recognises a migration from spire-controller-manager without entryIDPrefix and says what to set', () => {
  let dir: string;
  let spire: MemorySpireServer;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-migration-'));
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'demo.example', seed: upstreamState() });
  });
  afterEach(async () => {
    await spire.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('in the table: the held entries, the stray one, and what each setting would do, with counts', async () => {
    let out = '';
    const { result } = await runOnce({ ...demoFlags, socket: spire.socketPath }, { apply: false, log: quiet, print: (s) => (out += `${s}\n`) });
    // Two declared entries are held by upstream's entries; the third upstream entry's pod is gone.
    expect(result.plan.conflicts).toHaveLength(2);
    expect(result.plan.deletes).toEqual([]);
    const section = out.slice(out.indexOf('\nMigration\n'));
    expect(section).toContain('migration: 2 declared entries are held by entries with server-generated IDs');
    expect(section).toContain('and 1 more such pod entry under this cluster\'s agents is declared by nothing');
    // The held two, the stray one and the operator's entry: all four have IDs without a dot.
    expect(section).toContain('set entryIDPrefixCleanup: "" for one pass, then remove it: this pass it would delete 4 entries');
    expect(section).toContain('create 6 with scm-demo. IDs (2 in place of held ones)');
    expect(section).toContain('set entryScope: all');
  });

  it('in the JSON: the same counts and messages under "migration"', async () => {
    let out = '';
    await runOnce({ ...demoFlags, socket: spire.socketPath, output: 'json' }, { apply: false, log: quiet, print: (s) => (out += s) });
    const json = JSON.parse(out) as { migration: { serverGenerated: Record<string, unknown>; messages: string[] } };
    expect(json.migration.serverGenerated).toMatchObject({ held: 2, strays: 1, withCleanup: { deletes: 4 } });
    expect(json.migration.messages).toHaveLength(3);
  });

  it('with entryIDPrefixCleanup: "" the plan does what the note said, and then says nothing more', async () => {
    let out = '';
    await runOnce({ ...demoFlags, socket: spire.socketPath, output: 'json' }, { apply: false, log: quiet, print: (s) => (out += s) });
    const { deletes, creates } = (JSON.parse(out) as { migration: { serverGenerated: { withCleanup: { deletes: number; creates: number } } } }).migration.serverGenerated.withCleanup;
    const config = join(dir, 'config.yaml');
    writeFileSync(config, `${readFileSync(demoFlags.config, 'utf8')}entryIDPrefixCleanup: ""\n`);
    const { result } = await runOnce({ ...demoFlags, config, socket: spire.socketPath }, { apply: false, log: quiet, print: () => {} });
    expect({ deletes: result.plan.deletes.length, creates: result.plan.creates.length }).toEqual({ deletes, creates });
    expect(result.migration).toEqual({});
  });
});
