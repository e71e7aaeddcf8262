/** Exit codes, documented in docs/commands.md ("Exit codes"). */
export const Exit = {
  ok: 0,
  /** The command ran, but some item failed (an entry not written, an object invalid). */
  itemsFailed: 1,
  /** The command could not run: bad usage, bad config, SPIRE unreachable. */
  cannotRun: 2,
} as const;

/** An error that ends a command with a given exit code and a one-line message. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = Exit.cannotRun,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
