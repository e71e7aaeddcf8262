import type { Logger } from 'pino';
import { periodicWaits, type WaitReporter } from '../manager/wait-reports.js';
import type { LogSettings } from './log-settings.js';

/**
 * The CLI's waits (for SPIRE, for the API server) on stderr, whatever the
 * log level: they are progress, not log lines, and `logLevel: warn` must not
 * turn a wait into silence. Plain lines (`waiting for the SPIRE server at
 * /run/api.sock (5 s)…`); with json logs, JSON lines of the log's own shape,
 * so that a pod's log stays one object per line.
 */
export function cliWaits(encoding: LogSettings['encoding'], log: Logger, stream: NodeJS.WriteStream = process.stderr): WaitReporter {
  if (encoding === 'json') {
    const progress = log.child({}, { level: 'info' });
    return periodicWaits((line) => progress.info(line));
  }
  // On a terminal, a progress line being rewritten in place (progress.ts) is cleared first.
  const clear = stream.isTTY ? '\r\u001b[2K' : '';
  return periodicWaits((line) => stream.write(`${clear}${line}\n`));
}
