import { statSync } from 'node:fs';
import type { ControllerConfig } from '../api/index.js';
import { type RpcObserver, SpireClient } from '../spire/index.js';
import type { Logger } from 'pino';
import type { ControllerMetrics } from './metrics.js';
import type { SpireIdentity } from './spire-identity.js';
import { periodicWaits, type WaitOptions, type WaitReporter } from './wait-reports.js';

/**
 * The SPIRE client a config describes: the admin socket, or with
 * `spireServerAddress` the TCP port over `identity`'s SPIFFE mTLS (required
 * then: one per process, SpireIdentity.for); per-call deadline and largest
 * response.
 */
export function spireClientFor(config: ControllerConfig, observe?: RpcObserver, identity?: SpireIdentity): SpireClient {
  if (config.spireServerAddress && !identity) throw new Error(`spireServerAddress ${config.spireServerAddress} needs the controller's SVID: no SpireIdentity given`);
  return new SpireClient({
    // One of the two: SpireClient refuses options naming both a socket and a transport.
    ...(identity ? { transport: identity.transport } : { socket: config.spireServerSocketPath }),
    rpcTimeoutMs: config.spireRpcTimeoutMs,
    // 0 or less as unset: the client's own limit (read with ??).
    maxReceiveMessageBytes: config.grpcMaxCallRecvMsgSize > 0 ? config.grpcMaxCallRecvMsgSize : undefined,
    observe,
  });
}

/**
 * The controller's SVID and transport when the config names the SPIRE
 * server's TCP port (SpireIdentity.for), else undefined. Loaded only then:
 * the Workload API client and its X.509 handling are code the sidecar
 * layout never runs, and its start should not pay for them.
 */
export async function spireIdentityFor(config: ControllerConfig, opts: { log?: Logger; metrics?: ControllerMetrics } = {}): Promise<SpireIdentity | undefined> {
  if (!config.spireServerAddress) return undefined;
  const { SpireIdentity } = await import('./spire-identity.js');
  return SpireIdentity.for(config, opts);
}

/** A socket path that names something else: waiting will not make it a socket. */
class NotASocketError extends Error {
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
 * What a wait for this SPIRE server is reported as, and how soon: at once
 * when there is no socket yet, after a moment when the server does not
 * answer; over TCP, with why (no SVID to present, a refused handshake).
 */
function spireWait(spire: SpireClient, at: 'socket' | 'absent'): [string, WaitOptions] {
  return [`the SPIRE server at ${spire.where}`, { graceMs: at === 'absent' ? 0 : 250, why: spire.tcpAddress ? () => spire.diagnose() : undefined }];
}

/** Where the SPIRE client's socket stands; a TCP client has none to look at. */
function socketState(spire: SpireClient): 'socket' | 'absent' {
  return spire.tcpAddress ? 'socket' : checkSocketPath(spire.socketPath);
}

/**
 * Waits up to `timeoutMs` for SPIRE to accept connections, saying so through
 * `waits` while it lasts, so a command never sits silent. A path that is not
 * a socket fails at once.
 */
export async function waitForSpire(spire: SpireClient, opts: { timeoutMs: number; waits: WaitReporter }): Promise<void> {
  const [what, when] = spireWait(spire, socketState(spire));
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
    at = socketState(spire);
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
