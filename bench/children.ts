/**
 * Stopping the bench's child processes. A child that started others (the real
 * API server's, which runs etcd and kube-apiserver) stops them when its IPC
 * channel closes, so it is disconnected rather than signalled: a signal would
 * leave its own children running.
 */
import type { ChildProcess } from 'node:child_process';

/** Asks `child` to end with `ask`, then SIGKILLs it after `graceMs`. */
async function stopWith(child: ChildProcess, ask: () => void, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  ask();
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export function stopBySignal(child: ChildProcess, graceMs = 10_000): Promise<void> {
  return stopWith(child, () => child.kill('SIGTERM'), graceMs);
}

/** Closes the IPC channel (the child cleans up and exits), then SIGKILL after `graceMs`. */
export function stopByDisconnect(child: ChildProcess, graceMs = 30_000): Promise<void> {
  return stopWith(child, () => child.disconnect(), graceMs);
}
