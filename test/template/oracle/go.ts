/**
 * The Go oracle (test/template/go-oracle/): finding Go, building the oracle
 * into a cache directory once per source change, and talking to it.
 *
 * The binary is cached under node_modules/.cache/, keyed by a hash of the
 * oracle's sources and the Go version, so a second run starts at once.
 * Modules come from the Go module proxy on the first build (go.sum pins them);
 * GOTOOLCHAIN=local keeps Go from fetching a toolchain of its own.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Outcome, RenderCase } from './protocol.js';

const run = promisify(execFile);

export const ORACLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'go-oracle');
const REPO_ROOT = join(ORACLE_DIR, '..', '..', '..');
const CACHE_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'spire-reconciler-go-oracle');

/** The Go the oracle needs: go.mod's `go` line. */
const GO_ENV = { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly', CGO_ENABLED: '0' };

/** `go version` output, or undefined when no `go` is on the PATH. */
export async function goVersion(): Promise<string | undefined> {
  try {
    const { stdout } = await run('go', ['version'], { env: GO_ENV });
    return stdout.trim();
  } catch {
    return undefined;
  }
}

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (/\.go$|^go\.(mod|sum)$/.test(entry.name)) out.push(path);
  }
  return out.sort();
}

/** Builds the oracle unless a binary built from the same sources with the same Go is cached; returns its path. */
export async function buildOracle(version: string): Promise<string> {
  const hash = createHash('sha256').update(version);
  for (const file of await sourceFiles(ORACLE_DIR)) {
    hash.update(relative(ORACLE_DIR, file)).update('\0').update(await readFile(file)).update('\0');
  }
  const binary = join(CACHE_DIR, `go-oracle-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(binary)) return binary;
  await mkdir(CACHE_DIR, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  try {
    await run('go', ['build', '-trimpath', '-o', partial, '.'], { cwd: ORACLE_DIR, env: GO_ENV, maxBuffer: 16 << 20 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`building the Go oracle failed: ${e.stderr ?? e.message}`, { cause: err });
  }
  // Another run may have built the same binary meanwhile; either copy will do.
  await rename(partial, binary);
  return binary;
}

/** Go's own Unicode tables, as the oracle prints them. */
export interface GoTables {
  readonly go: string;
  readonly unicode: string;
  readonly print: readonly (readonly [number, number])[];
  readonly letter: readonly (readonly [number, number])[];
  readonly digit: readonly (readonly [number, number])[];
}

export async function goTables(binary: string): Promise<GoTables> {
  const { stdout } = await run(binary, ['tables'], { maxBuffer: 64 << 20 });
  return JSON.parse(stdout) as GoTables;
}

interface Pending {
  resolve(outcome: Outcome): void;
  reject(err: Error): void;
}

/** A running oracle: cases go in as JSON lines, outcomes come back by id. */
export class GoOracle {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: Error | undefined;
  private stderr = '';
  /** The cases in flight, by id, to name the one Go could not finish. */
  private readonly sent = new Map<number, RenderCase>();
  private ranAway: RenderCase | undefined;

  constructor(binary: string) {
    // Upstream's container has no local zone: Go's Local is UTC there, as TZ=UTC makes it here.
    this.child = spawn(binary, [], { env: { ...process.env, TZ: 'UTC' }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const answer = JSON.parse(line) as Outcome & { id: number; outputBase64?: string };
      const waiting = this.pending.get(answer.id);
      if (waiting === undefined) return;
      this.pending.delete(answer.id);
      const { id: _, outputBase64, ...outcome } = answer;
      if (outcome.phase === 'timeout') this.ranAway = this.sent.get(answer.id);
      if (outputBase64 !== undefined) waiting.resolve({ ...outcome, outputBytes: Buffer.from(outputBase64, 'base64') });
      // JSON leaves out an empty output.
      else waiting.resolve(outcome.phase === 'ok' ? { ...outcome, output: outcome.output ?? '' } : outcome);
    });
    this.child.on('exit', (code, signal) => {
      const why = this.ranAway === undefined ? this.stderr : `it could not finish rendering ${JSON.stringify(this.ranAway.template)} (a case that loops for ages)`;
      this.fail(new Error(`the Go oracle exited (${code ?? signal}): ${why}`));
    });
    this.child.on('error', (err) => this.fail(err));
    // Writing to an oracle that has exited fails with EPIPE; the exit says why.
    this.child.stdin.on('error', () => undefined);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const waiting of this.pending.values()) waiting.reject(err);
    this.pending.clear();
  }

  /** Renders the cases with Go, in order. */
  async render(cases: readonly RenderCase[]): Promise<Outcome[]> {
    if (this.failure !== undefined) throw this.failure;
    const answers = cases.map((c) => {
      const id = this.nextId++;
      this.sent.set(id, c);
      const answer = new Promise<Outcome>((resolve, reject) => this.pending.set(id, { resolve, reject })).finally(() => this.sent.delete(id));
      this.child.stdin.write(`${JSON.stringify({ id, name: c.name, template: c.template, data: c.data })}\n`);
      return answer;
    });
    return Promise.all(answers);
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.failure ??= new Error('the Go oracle was closed');
    this.child.stdin.end();
    await exited;
  }
}

/** Removes cached oracle binaries other than the given one (they were built from older sources). */
export async function pruneCache(keep: string): Promise<void> {
  if (!existsSync(CACHE_DIR)) return;
  for (const name of await readdir(CACHE_DIR)) {
    const path = join(CACHE_DIR, name);
    if (path !== keep && !name.endsWith('.partial')) await rm(path, { force: true });
  }
}
