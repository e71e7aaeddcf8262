#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Help } from 'commander';
import { COMMAND_HELP } from './command-help.js';
import { CliError, Exit } from './exit.js';
import { fromUpstreamArgv } from './upstream-argv.js';
import { errorMessage } from '../api/errors.js';

type Register = (program: Command) => void;

/**
 * Each command's module, by the commands it registers, in the order help lists
 * them. A command's module is loaded when that command runs, none for the
 * version or `--help` (command-help.ts), all of them for `help` or a name
 * that is none of these: `run` then loads none of the other commands' code
 * (the in-memory SPIRE server, the demo, explain).
 */
const loadPlan = async (): Promise<Register> => (await import('./one-pass.js')).registerPlan;
const COMMANDS: Record<string, () => Promise<Register>> = {
  run: async () => (await import('./run.js')).registerRun,
  plan: loadPlan,
  reconcile: loadPlan,
  render: async () => (await import('./render-command.js')).registerRender,
  explain: async () => (await import('./explain.js')).registerExplain,
  validate: async () => (await import('./validate.js')).registerValidate,
  demo: async () => (await import('./demo.js')).registerDemo,
  'memory-spire': async () => (await import('./memory-spire.js')).registerMemorySpire,
  bootstrap: async () => (await import('./bootstrap.js')).registerBootstrap,
};
const COMMAND_NAMES: ReadonlySet<string> = new Set(Object.keys(COMMANDS));
const VERSION_FLAGS: ReadonlySet<string | undefined> = new Set(['-V', '--version']);
const HELP_FLAGS: ReadonlySet<string | undefined> = new Set(['-h', '--help']);

/** Every command as help lists it, registered from command-help.ts: none of their modules is loaded. */
function listCommands(program: Command): void {
  const terms = new Map<string, string>(COMMAND_HELP.map((c) => [c.name, c.term]));
  for (const c of COMMAND_HELP) program.command(c.name).description(c.description);
  program.configureHelp({
    subcommandTerm(this: Help, cmd: Command) {
      return terms.get(cmd.name()) ?? Help.prototype.subcommandTerm.call(this, cmd);
    },
  });
}

/** The package's version: package.json sits two levels up from both src/cli and dist/cli. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** The program with the command named (its module alone loaded), with none for the version, as listed for `--help`, or with every command. */
async function buildProgram(only?: string): Promise<Command> {
  const program = new Command('spire-reconciler')
    .description('Registers Kubernetes workloads with SPIRE: a drop-in replacement for spire-controller-manager')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--debug', 'print stack traces with errors')
    .showHelpAfterError()
    .exitOverride();
  if (VERSION_FLAGS.has(only)) return program;
  if (HELP_FLAGS.has(only)) {
    listCommands(program);
    return program;
  }
  const loaders = only !== undefined && Object.hasOwn(COMMANDS, only) ? [COMMANDS[only]!] : [...new Set(Object.values(COMMANDS))];
  for (const register of await Promise.all(loaders.map((load) => load()))) register(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  let program: Command | undefined;
  try {
    // Upstream's container arguments (flags, no command) mean `run`.
    const args = fromUpstreamArgv(argv.slice(2), COMMAND_NAMES);
    program = await buildProgram(args.find((a) => a !== '--debug'));
    await program.parseAsync(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? Exit.ok : Exit.cannotRun);
    // Operators read this in a pod log or a terminal: one line, no stack trace unless asked.
    const debug = program?.opts<{ debug?: boolean }>().debug === true;
    console.error(`spire-reconciler: ${debug ? (err as Error).stack : errorMessage(err)}`);
    process.exit(err instanceof CliError ? err.exitCode : Exit.cannotRun);
  }
}

await main(process.argv);
