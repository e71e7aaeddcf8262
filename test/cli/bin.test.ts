/**
 * The `spire-reconciler` command (package.json "bin", src/cli/bin.ts) under a
 * Node older than 24 says what it needs and exits 2, instead of the TypeError
 * undici throws as it loads there. The bin is compiled with
 * tsconfig.build.json's options, as `npm run build` compiles it, and run under
 * the machine's /usr/bin/node (Debian's Node 20 on the project's machines).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';

const SYSTEM_NODE = '/usr/bin/node';
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** The system Node's version, or why the old-Node test cannot run here. */
function systemNode(): { version: string } | { skip: string } {
  if (!existsSync(SYSTEM_NODE)) return { skip: `${SYSTEM_NODE} does not exist` };
  const version = execFileSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).trim();
  const major = Number(version.replace(/^v/, '').split('.')[0]);
  if (major >= 24) return { skip: `${SYSTEM_NODE} is ${version}, not older than 24` };
  return { version };
}
const system = systemNode();
if ('skip' in system) console.warn(`bin.test: the old-Node case is SKIPPED: ${system.skip}`);

/**
 * Compiles src/cli/bin.ts with the build's compiler options (tsconfig.build.json)
 * into outDir/cli/bin.js, where `npm run build` puts it under dist/. Type
 * checking is npm test's `tsc`; this is the emit alone, so it takes no time.
 */
function buildBin(outDir: string): string {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(repoRoot, 'tsconfig.build.json'), { outDir, sourceMap: false }, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  })!;
  // bin.ts and what it loads before main.js: the early probes and the HTTP plumbing they use.
  for (const file of ['cli/bin.ts', 'cli/early-probes.ts', 'net/http.ts']) {
    const source = join(repoRoot, 'src', file);
    // The package is "type": "module", so NodeNext emits these as ES modules.
    // transpileModule does not read package.json; an .mts name tells it the same.
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(source, 'utf8'), {
      compilerOptions: parsed.options,
      fileName: source.replace(/\.ts$/, '.mts'),
      reportDiagnostics: true,
    });
    if (diagnostics?.length) throw new Error(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n'));
    mkdirSync(join(outDir, file, '..'), { recursive: true });
    writeFileSync(join(outDir, file.replace(/\.ts$/, '.js')), outputText);
  }
  writeFileSync(join(outDir, 'package.json'), JSON.stringify({ type: 'module' }));
  return join(outDir, 'cli/bin.js');
}

describe('the spire-reconciler bin', () => {
  let dir: string;
  let bin: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sr-bin-'));
    bin = buildBin(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is what package.json names: dist/cli/bin.js, compiled from src/cli/bin.ts', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin).toEqual({ 'spire-reconciler': 'dist/cli/bin.js' });
    expect(existsSync(bin)).toBe(true);
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it.skipIf('skip' in system)('under a Node older than 24 says it needs Node 24, names the checkout command, and exits 2', () => {
    const r = spawnSync(SYSTEM_NODE, [bin, '--help'], { encoding: 'utf8' });
    const version = (system as { version: string }).version.replace(/^v/, '');
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `spire-reconciler needs Node 24 or newer (this is Node ${version}); from a checkout, npm run cli -- <command> uses the Node 24 the dev dependency installs\n`,
    );
    expect(r.status).toBe(2);
  });

  it('under Node 24 runs main.js beside it with the arguments given', () => {
    writeFileSync(join(dir, 'cli/main.js'), "process.stdout.write('main ' + process.argv.slice(2).join(' '));\n");
    const r = spawnSync(process.execPath, [bin, 'plan', '--config', 'x.yaml'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('main plan --config x.yaml');
    expect(r.status).toBe(0);
  });

  it("keeps compiled code in Node's compile cache, under the temporary directory unless NODE_COMPILE_CACHE names one", () => {
    writeFileSync(join(dir, 'cli/main.js'), "process.stdout.write('main');\n");
    const tmp = mkdtempSync(join(tmpdir(), 'sr-bin-tmp-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
      delete env.NODE_COMPILE_CACHE;
      delete env.NODE_DISABLE_COMPILE_CACHE;
      const r = spawnSync(process.execPath, [bin], { encoding: 'utf8', env });
      expect(r.stdout).toBe('main');
      expect(r.status).toBe(0);
      // One directory per Node version and V8 configuration, holding a file per module compiled
      // once the cache was on: early-probes.js, net/http.js and main.js (bin.js itself was compiled before).
      const [versionDir, ...others] = readdirSync(join(tmp, 'node-compile-cache'));
      expect(others).toEqual([]);
      expect(versionDir).toMatch(/^v24\./);
      expect(readdirSync(join(tmp, 'node-compile-cache', versionDir!)).length).toBe(3);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('runs main.js all the same when the compile cache cannot be written', () => {
    writeFileSync(join(dir, 'cli/main.js'), "process.stdout.write('main');\n");
    // A file where the temporary directory should be: no cache directory can be made under it.
    const notADir = join(dir, 'not-a-directory');
    writeFileSync(notADir, '');
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: notADir };
    delete env.NODE_COMPILE_CACHE;
    const r = spawnSync(process.execPath, [bin], { encoding: 'utf8', env });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('main');
    expect(r.status).toBe(0);
  });

  it('under Node 24 from source runs the real CLI', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const r = spawnSync(process.execPath, ['--import', tsx, join(repoRoot, 'src/cli/bin.ts'), '--version'], { encoding: 'utf8' });
    expect(r.stdout.trim()).toBe(pkg.version);
    expect(r.status).toBe(0);
  });
});
