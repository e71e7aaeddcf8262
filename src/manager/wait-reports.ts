/**
 * Saying what a command or the controller waits for (the SPIRE server, the
 * Kubernetes API server) while it waits: once soon after the wait starts,
 * then every few seconds with the time waited, so that a wait is never
 * silence. Where the lines go is the caller's: the CLI writes them on stderr
 * whatever the log level (cli/stderr-waits.ts); without it they are info logs.
 */
export interface WaitOptions {
  graceMs?: number;
  limitMs?: number;
  /** Why the wait goes on, asked at each line (a SPIRE server without an SVID to present it with, say); said after the line. */
  why?: () => string | undefined;
}

export interface WaitReporter {
  /**
   * Starts saying that `what` ("the SPIRE server at /run/api.sock") is
   * waited for: after `graceMs` (0 when the wait is known to be one, such as
   * a socket that does not exist yet; a moment otherwise, so an answer that
   * comes at once is not announced), then every few seconds. `limitMs` is
   * how long the waiter gives it, when it gives up. Returns the function
   * that ends it.
   */
  begin(what: string, opts?: WaitOptions): () => void;
}

const WAIT_REPORT_EVERY_MS = 5_000;

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** The line said after `waitedMs` (0: the first one), with why the wait goes on when that is known. */
export function waitLine(what: string, waitedMs: number, limitMs?: number, why?: string): string {
  const line = waitedMs < 1000 ? `waiting for ${what}${limitMs !== undefined ? ` (up to ${seconds(limitMs)})` : ''}` : `waiting for ${what} (${seconds(waitedMs)}${limitMs !== undefined ? ` of ${seconds(limitMs)}` : ''})`;
  return why ? `${line}: ${why}` : `${line}…`;
}

/** A reporter that says each line through `say`, at the times WaitReporter describes. */
export function periodicWaits(say: (line: string) => void, everyMs = WAIT_REPORT_EVERY_MS, now: () => number = Date.now): WaitReporter {
  return {
    begin(what, opts = {}) {
      const started = now();
      let repeat: NodeJS.Timeout | undefined;
      // Timers never keep a process alive: what is awaited does, and ends the wait.
      const first = setTimeout(() => {
        say(waitLine(what, 0, opts.limitMs, opts.why?.()));
        repeat = setInterval(() => say(waitLine(what, now() - started, opts.limitMs, opts.why?.())), everyMs).unref();
      }, opts.graceMs ?? 0).unref();
      return () => {
        clearTimeout(first);
        clearInterval(repeat);
      };
    },
  };
}

/** Says nothing (a caller that reports waits its own way, or a test). */
export const SILENT_WAITS: WaitReporter = { begin: () => () => {} };
