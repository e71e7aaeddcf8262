/** What the micro-benchmarks (full-pass-stretches.ts, full-pass-steps.ts) share: numeric flags, and the main thread's own CPU clock. */

/** `--name N` from the command line, or the fallback. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

/** The main thread's CPU time in ms: a loaded machine does not stretch it as it stretches wall time. */
export function threadCpuMs(): number {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
}
