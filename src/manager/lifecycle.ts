import { v4 as uuidv4 } from 'uuid';
import type { Logger } from 'pino';

/** A pass's logger: every line it logs carries the pass's reconcileID (as controller-runtime tags a reconcile). */
export function passLog(log: Logger): Logger {
  return log.child({ reconcileID: uuidv4() });
}

/** Resolves once `signal` aborts (at once if it has): the long-running modes wait here until SIGTERM. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Resolves after `ms` without holding the process open: the bound on a graceful shutdown. */
export function boundAfter(ms: number): Promise<void> {
  return new Promise<void>((r) => setTimeout(r, ms).unref());
}
