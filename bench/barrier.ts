/**
 * For a child that must start its timed work at the same moment as another
 * child (the cold start's list-and-push floor): with `--barrier` among its
 * arguments it prints `ready`, then waits for a line on stdin before going on.
 * Without it, this returns at once.
 */
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export async function barrier(): Promise<void> {
  if (!process.argv.includes('--barrier')) return;
  const lines = createInterface({ input: process.stdin });
  console.log('ready');
  await once(lines, 'line');
  lines.close();
}
