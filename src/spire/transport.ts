import type * as grpc from '@grpc/grpc-js';
import { diagnoseSocket } from './errors.js';
import { DEFAULT_SOCKET, parseSocket } from './target.js';

/**
 * A TCP way to the SPIRE server: its agent-facing port, where it serves the
 * admin API to callers it authorizes as admin (their SVID's SPIFFE ID is in
 * `admin_ids`, or an entry of that SPIFFE ID is marked admin). src/spire/
 * takes it ready-made and knows nothing of where the credentials come from
 * (src/workloadapi/ builds SPIFFE mTLS ones from the agent's Workload API).
 */
export interface SpireTcpTransport {
  /** "host:port" (`spireServerAddress`). */
  readonly address: string;
  /** How the connection is secured, in words for messages, e.g. "SPIFFE mTLS". */
  readonly security: string;
  readonly credentials: grpc.ChannelCredentials;
  /** Added to the client's channel options (e.g. the TLS server name). */
  readonly channelOptions?: grpc.ChannelOptions;
  /**
   * Subscribes to renewals of the credentials (an SVID rotation): after each,
   * the client opens a fresh channel for new calls and closes the old one once
   * its calls are done, so no connection outlives the certificate it was made
   * with. Returns the unsubscribe function.
   */
  onRenewal?(listener: () => void): () => void;
  /** Why calls may fail right now, in one line, when the transport knows (no certificate yet, a refused server). */
  diagnose?(): string | undefined;
  /**
   * Dials the server once as the channel does and says in one line why that
   * fails (connection refused, a certificate that does not verify), or
   * undefined when it succeeds. The client runs it when its channel fails to
   * connect, since gRPC keeps a failed connection's reason to itself.
   */
  probe?(): Promise<string | undefined>;
  /** A channel connected: what an earlier probe found is over. */
  connected?(): void;
}

/** Where a client's calls go, resolved: the gRPC target, the words messages use, and what can be said when it does not answer. */
export interface ResolvedTransport {
  readonly target: string;
  readonly credentials: grpc.ChannelCredentials;
  readonly channelOptions: grpc.ChannelOptions;
  /** For messages: the socket path, or "host:port (security)". */
  readonly where: string;
  /** The admin socket's path; '' over TCP. */
  readonly socketPath: string;
  readonly tcp: SpireTcpTransport | undefined;
  /** Why the server may not answer, when it can be told without a call. */
  diagnose(): string | undefined;
  /** A channel failed to connect: find out why, for `diagnose` (over TCP, with the transport's probe). */
  connectFailed(): void;
  /** A channel connected: what an earlier probe found is over. */
  connected(): void;
}

export function resolveTransport(opts: { socket?: string; transport?: SpireTcpTransport }, insecure: () => grpc.ChannelCredentials): ResolvedTransport {
  if (opts.transport) {
    if (opts.socket !== undefined) throw new Error('SpireClient takes a socket or a TCP transport, not both');
    const t = opts.transport;
    let found: string | undefined;
    let probing = false;
    return {
      target: `dns:${t.address}`,
      credentials: t.credentials,
      channelOptions: t.channelOptions ?? {},
      where: `${t.address} (${t.security})`,
      socketPath: '',
      tcp: t,
      diagnose: () => t.diagnose?.() ?? found,
      connectFailed() {
        if (probing || !t.probe) return;
        probing = true;
        t.probe().then(
          (why) => {
            found = why;
            probing = false;
          },
          () => (probing = false),
        );
      },
      connected() {
        found = undefined;
        t.connected?.();
      },
    };
  }
  const { target, path } = parseSocket(opts.socket ?? DEFAULT_SOCKET);
  return {
    target,
    credentials: insecure(),
    channelOptions: {},
    where: path,
    socketPath: path,
    tcp: undefined,
    // The file system tells why a socket does not answer, at the moment it is asked.
    diagnose: () => diagnoseSocket(path),
    connectFailed: () => undefined,
    connected: () => undefined,
  };
}
