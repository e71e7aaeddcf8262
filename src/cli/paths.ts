import { statSync } from 'node:fs';
import { CliError } from './exit.js';
import { errorMessage } from '../api/errors.js';

/**
 * Why a path given on the command line cannot be read, or undefined when it
 * exists. The readers that follow would only warn and go on with nothing
 * (a manifest path), which turns a typo into an empty plan.
 */
function pathProblem(path: string): string | undefined {
  try {
    statSync(path);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'no such file or directory';
    return `cannot read: ${code ?? errorMessage(err)}`;
  }
}

/**
 * Ends the command (exit 2) when a path given by `source` (a flag such as
 * `--manifests`, or a config field) does not exist, naming the source and the path.
 */
export function requirePaths(source: string, paths: string | readonly string[] | undefined): void {
  if (paths === undefined) return;
  for (const p of typeof paths === 'string' ? [paths] : paths) {
    const problem = pathProblem(p);
    if (problem !== undefined) throw new CliError(`${source} ${p}: ${problem}`);
  }
}
