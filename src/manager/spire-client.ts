import { statSync } from 'node:fs';
import type { ControllerConfig } from '../api/index.js';
import { type RpcObserver, SpireClient } from '../spire/index.js';

/** The SPIRE client a config describes: socket, per-call deadline and largest response. */
export function spireClientFor(config: ControllerConfig, observe?: RpcObserver): SpireClient {
  return new SpireClient({
    socket: config.spireServerSocketPath,
    rpcTimeoutMs: config.spireRpcTimeoutMs,
    ...(config.grpcMaxCallRecvMsgSize > 0 ? { maxReceiveMessageBytes: config.grpcMaxCallRecvMsgSize } : {}),
    ...(observe ? { observe } : {}),
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

/**
 * Waits up to `timeoutMs` for SPIRE to accept connections, saying what it
 * waits for at once when there is no socket yet (and after a moment when
 * the socket does not answer), so a command never sits silent. A path that
 * is not a socket fails at once.
 */
export async function waitForSpire(spire: SpireClient, opts: { timeoutMs: number; say: (line: string) => void }): Promise<void> {
  const at = checkSocketPath(spire.socketPath);
  const say = () => opts.say(`waiting for SPIRE at ${spire.socketPath} (up to ${Math.round(opts.timeoutMs / 1000)} s)`);
  if (at === 'absent') say();
  const announce = at === 'absent' ? undefined : setTimeout(say, 250);
  try {
    await spire.waitUntilReady({ timeoutMs: opts.timeoutMs });
  } finally {
    clearTimeout(announce);
  }
}

/**
 * The long-running modes' wait for the SPIRE server: without end, said in the
 * log while it lasts. True once SPIRE answers; false when `signal` stopped
 * the wait first (shutting down: nothing to start).
 */
export async function waitForSpireServer(spire: SpireClient, log: { info(line: string): void }, signal: AbortSignal): Promise<boolean> {
  try {
    await spire.waitUntilReady({
      timeoutMs: Number.MAX_SAFE_INTEGER,
      onWaiting: (ms) => log.info(`waiting for the SPIRE server at ${spire.socketPath} (${Math.round(ms / 1000)}s)`),
      signal,
    });
    return true;
  } catch (err) {
    if (!signal.aborted) throw err;
    return false;
  }
}
