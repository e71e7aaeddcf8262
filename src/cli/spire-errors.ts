import { SpireConnectError, SpireRpcError } from '../spire/index.js';
import { CliError } from './exit.js';

/** SPIRE errors end a command with their own one-line message. */
export function asCliError(err: unknown): unknown {
  if (err instanceof SpireRpcError || err instanceof SpireConnectError) return new CliError(err.message);
  return err;
}
