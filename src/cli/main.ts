#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerDemo } from './demo.js';
import { CliError, Exit } from './exit.js';
import { registerExplain } from './explain.js';
import { registerMemorySpire } from './memory-spire.js';
import { registerPlan } from './plan.js';
import { registerRender } from './render.js';
import { registerRun } from './run.js';
import { registerValidate } from './validate.js';
import { fromUpstreamArgv } from './upstream-argv.js';
import { errorMessage } from '../api/errors.js';

/** The package's version: package.json sits two levels up from both src/cli and dist/cli. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export function buildProgram(): Command {
  const program = new Command('spire-reconciler')
    .description('Registers Kubernetes workloads with SPIRE: a drop-in replacement for spire-controller-manager')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--debug', 'print stack traces with errors')
    .showHelpAfterError()
    .exitOverride();
  registerRun(program);
  registerPlan(program);
  registerRender(program);
  registerExplain(program);
  registerValidate(program);
  registerDemo(program);
  registerMemorySpire(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    // Upstream's container arguments (flags, no command) mean `run`.
    const commands = new Set(program.commands.map((c) => c.name()));
    await program.parseAsync(fromUpstreamArgv(argv.slice(2), commands), { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? Exit.ok : Exit.cannotRun);
    // Operators read this in a pod log or a terminal: one line, no stack trace unless asked.
    const debug = program.opts<{ debug?: boolean }>().debug === true;
    console.error(`spire-reconciler: ${debug ? (err as Error).stack : errorMessage(err)}`);
    process.exit(err instanceof CliError ? err.exitCode : Exit.cannotRun);
  }
}

await main(process.argv);
