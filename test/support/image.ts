/**
 * The controller as the container image runs it (Dockerfile), started by
 * bin/entrypoint.sh (scripts/image/entrypoint.sh), which sizes V8 from the
 * cgroup's memory limit: dist/ compiled from src/ beside proto/, crds/ and
 * package.json, not bundled (the image's bundle holds the packages' code;
 * here node_modules sits beside dist/). For tests whose subject is the process's memory:
 * run from the sources through tsx, the controller idled at 249 MiB
 * resident instead of 170 (a loader thread, the compiler's work), which the
 * image does not have.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, type spawnCli } from './cli.js';

export interface ImageLayout {
  dir: string;
  /** Runs `spire-reconciler <args>` through the entrypoint, in a container whose memory limit is `memoryLimitBytes`, with `env` (the container's) added. */
  spawn(args: string[], opts: { env: Record<string, string>; memoryLimitBytes: number }): ReturnType<typeof spawnCli>;
  remove(): void;
}

/** Compiles src/ (tsconfig.build.json) into a temporary directory laid out as the image's /app. */
export async function buildImageLayout(): Promise<ImageLayout> {
  const dir = mkdtempSync(join(tmpdir(), 'image-layout-'));
  try {
    await promisify(execFile)(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', join(repoRoot, 'tsconfig.build.json'), '--outDir', join(dir, 'dist')]);
    for (const shared of ['node_modules', 'proto', 'crds', 'package.json']) symlinkSync(join(repoRoot, shared), join(dir, shared));
    mkdirSync(join(dir, 'bin'));
    copyFileSync(join(repoRoot, 'scripts/image/entrypoint.sh'), join(dir, 'bin/entrypoint.sh'));
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    dir,
    spawn(args, opts) {
      // Stands for the cgroup's memory.max, which the entrypoint reads; one per layout, so one process at a time.
      writeFileSync(join(dir, 'memory.max'), `${opts.memoryLimitBytes}\n`);
      // This test process's own V8 and malloc settings are not the container's; the image sets NODE_ENV.
      const env: Record<string, string | undefined> = { ...process.env, NODE_OPTIONS: undefined, MALLOC_ARENA_MAX: undefined, NODE_ENV: 'production' };
      // `node` is the one running the tests (Node 24, as in the image).
      Object.assign(env, { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, SPIRE_RECONCILER_CGROUP_MEMORY_MAX: join(dir, 'memory.max') }, opts.env);
      const child = spawn('sh', [join(dir, 'bin/entrypoint.sh'), ...args], { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], env: env as NodeJS.ProcessEnv });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      return Object.assign(child, { output: () => out });
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
