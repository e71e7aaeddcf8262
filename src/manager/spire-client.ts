import { statSync } from 'node:fs';
import type { ControllerConfig } from '../api/index.js';
import { type RpcObserver, SpireClient } from '../spire/index.js';
import { periodicWaits, type WaitReporter } from './waiting.js';

/** The SPIRE client a config describes: socket, per-call deadline and largest response. */
export function spireClientFor(config: ControllerConfig, observe?: RpcObserver): SpireClient {
  return new SpireClient({
    socket: config.spireServerSocketPath,
    rpcTimeoutMs: config.spireRpcTimeoutMs,
    ...(config.grpcMaxCallRecvMsgSize > 0 ? { maxReceiveMessageBytes: config.grpcMaxCallRecvMsgSize } : {}),
    observe,
  });
}

/** A socket path that names something else: waiting will not make it a socket. */
export class NotASocketError extends Error {
  constructor(readonly path: string) {
    super(`${path} exists but is not a socket: spireServerSocketPath (or --socket) must name the SPIRE server's API socket`);
    this.name = 'NotASocketError';
  }
}

/** Throws NotASocketError when the path exists and is not a socket; a missing path may still appear. */
export function checkSocketPath(path: string): 'socket' | 'absent' {
  let isSocket: boolean;
  try {
    isSocket = statSync(path).isSocket();
  } catch {
    return 'absent';
  }
  if (!isSocket) throw new NotASocketError(path);
  return 'socket';
}

/** What a wait for this SPIRE server is reported as, and how soon: at once when there is no socket yet, after a moment when the socket does not answer. */
function spireWait(spire: SpireClient, at: 'socket' | 'absent'): [string, { graceMs: number }] {
  return [`the SPIRE server at ${spire.socketPath}`, { graceMs: at === 'absent' ? 0 : 250 }];
}

/**
 * Waits up to `timeoutMs` for SPIRE to accept connections, saying so through
 * `waits` while it lasts, so a command never sits silent. A path that is not
 * a socket fails at once.
 */
export async function waitForSpire(spire: SpireClient, opts: { timeoutMs: number; waits: WaitReporter }): Promise<void> {
  const [what, when] = spireWait(spire, checkSocketPath(spire.socketPath));
  const end = opts.waits.begin(what, { ...when, limitMs: opts.timeoutMs });
  try {
    await spire.waitUntilReady({ timeoutMs: opts.timeoutMs });
  } finally {
    end();
  }
}

/**
 * The long-running modes' wait for the SPIRE server: without end, said
 * through `waits` while it lasts (by default in the log, at info). True once
 * SPIRE answers; false when `signal` stopped the wait first (shutting down:
 * nothing to start).
 */
export async function waitForSpireServer(spire: SpireClient, log: { info(line: string): void }, signal: AbortSignal, waits?: WaitReporter): Promise<boolean> {
  let at: 'socket' | 'absent' = 'socket';
  try {
    at = checkSocketPath(spire.socketPath);
  } catch {
    // Not a socket: run refuses it before it starts; waiting would only report the connection errors.
  }
  const end = (waits ?? periodicWaits((line) => log.info(line))).begin(...spireWait(spire, at));
  try {
    await spire.waitUntilReady({ timeoutMs: Number.MAX_SAFE_INTEGER, signal });
    return true;
  } catch (err) {
    if (!signal.aborted) throw err;
    return false;
  } finally {
    end();
  }
}
