/**
 * The image's entrypoint (scripts/image/entrypoint.sh) sizes V8 and malloc from
 * the container's memory limit. Run here in the image's layout (bin/ beside
 * dist/), with a dist/cli/bin.js that prints the settings it was started with.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';

const MiB = 2 ** 20;

describe('the image entrypoint', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'entrypoint-'));
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'dist/cli'), { recursive: true });
    copyFileSync(join(repoRoot, 'scripts/image/entrypoint.sh'), join(dir, 'bin/entrypoint.sh'));
    writeFileSync(join(dir, 'dist/cli/bin.js'), "console.log(JSON.stringify({ options: process.env.NODE_OPTIONS ?? '', arenas: process.env.MALLOC_ARENA_MAX, v8: process.execArgv, args: process.argv.slice(2) }));\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** What bin.js was started with under a memory limit (bytes, or cgroup v2's "max"), with `env` added. */
  function start(limit: string, env: Record<string, string> = {}): { options: string; arenas: string; v8: string[]; args: string[] } {
    writeFileSync(join(dir, 'memory.max'), `${limit}\n`);
    const base: Record<string, string | undefined> = { ...process.env, NODE_OPTIONS: undefined, MALLOC_ARENA_MAX: undefined, SPIRE_RECONCILER_V8_FLAGS: undefined };
    const r = spawnSync('sh', [join(dir, 'bin/entrypoint.sh'), 'run', '--config', 'c.yaml'], {
      encoding: 'utf8',
      env: { ...base, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, SPIRE_RECONCILER_CGROUP_MEMORY_MAX: join(dir, 'memory.max'), ...env } as NodeJS.ProcessEnv,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout) as { options: string; arenas: string; v8: string[]; args: string[] };
  }

  it('runs dist/cli/bin.js with the arguments given', () => {
    expect(start('max').args).toEqual(['run', '--config', 'c.yaml']);
  });

  it('under a limit below 512 MiB holds the young generation to 2 MiB semi-spaces', () => {
    expect(start(String(256 * MiB))).toMatchObject({ options: '--expose-gc --max-old-space-size=128 --max-semi-space-size=2', arenas: '2' });
    expect(start(String(384 * MiB)).options).toBe('--expose-gc --max-old-space-size=224 --max-semi-space-size=2');
  });

  it('from 512 MiB gives 16 MiB semi-spaces, and the old space the limit less 160 MiB', () => {
    expect(start(String(512 * MiB)).options).toBe('--expose-gc --max-old-space-size=352 --max-semi-space-size=16');
    expect(start(String(1024 * MiB)).options).toBe('--expose-gc --max-old-space-size=864 --max-semi-space-size=16');
  });

  it('without a limit sets no size', () => {
    expect(start('max').options).toBe('--expose-gc');
    expect(start(String(2 ** 62)).options).toBe('--expose-gc');
  });

  it("turns V8's optimizing compilers off under a limit below 512 MiB only, unless SPIRE_RECONCILER_V8_FLAGS says otherwise", () => {
    expect(start(String(256 * MiB)).v8).toEqual(['--max-opt=1']);
    expect(start(String(511 * MiB)).v8).toEqual(['--max-opt=1']);
    expect(start(String(512 * MiB)).v8).toEqual([]);
    expect(start('max').v8).toEqual([]);
    expect(start(String(256 * MiB), { SPIRE_RECONCILER_V8_FLAGS: '' }).v8).toEqual([]);
    expect(start('max', { SPIRE_RECONCILER_V8_FLAGS: '--no-maglev --max-lazy' }).v8).toEqual(['--no-maglev', '--max-lazy']);
  });

  it('leaves each size NODE_OPTIONS sets, and MALLOC_ARENA_MAX the environment sets', () => {
    expect(start(String(256 * MiB), { NODE_OPTIONS: '--max-old-space-size=192' }).options).toBe('--max-old-space-size=192 --expose-gc --max-semi-space-size=2');
    expect(start(String(256 * MiB), { NODE_OPTIONS: '--max-semi-space-size=8' }).options).toBe('--max-semi-space-size=8 --expose-gc --max-old-space-size=128');
    expect(start(String(256 * MiB), { MALLOC_ARENA_MAX: '4' }).arenas).toBe('4');
  });
});
