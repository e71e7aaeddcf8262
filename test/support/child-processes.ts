/**
 * Child processes a test harness starts (etcd, kube-apiserver, containerd, the
 * kubelet): output appended to a log file, stopped by their PIDs only, and
 * killed if the test process exits without stopping them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) child.kill('SIGKILL');
});

export function startProcess(bin: string, args: string[], logFile: string): ChildProcess {
  const fd = openSync(logFile, 'a');
  const child = spawn(bin, args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
export async function killProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Polls `probe` until it returns true; fails early, with the log, if the process exits. */
export async function waitFor(what: string, child: ChildProcess, logFile: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${tail(logFile)}`);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${timeoutMs} ms:\n${tail(logFile, 40)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
