#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { registerMemorySpire } from './memory-spire.js';

export function buildProgram(): Command {
  const program = new Command('spire-reconciler')
    .description('Registers Kubernetes workloads with SPIRE: a drop-in replacement for spire-controller-manager')
    .showHelpAfterError()
    .exitOverride();
  registerMemorySpire(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode);
    // Operators read this line in a pod log: one line, no stack trace.
    console.error(`spire-reconciler: ${(err as Error).message}`);
    process.exit(1);
  }
}

await main(process.argv);
