/**
 * Listening and closing plumbing for the HTTP servers: metrics and health
 * (manager/) and the admission webhook (webhook/). Below both, so neither
 * imports the other; it imports nothing of ours.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** What listen() and closeServer() work on: the metrics and health servers, and the webhook's HTTPS server. */
type AnyHttpServer = Server | HttpsServer;

/** Where to listen. `host` undefined means every interface, as Go's ":8080" does. */
export interface BindAddress {
  host?: string;
  port: number;
}

/**
 * Reads a bind address in the forms controller-runtime accepts: ":8080",
 * "0.0.0.0:8082", "localhost:8080", "[::1]:8080", port 0 for an ephemeral
 * port. "0" and "" return undefined: upstream uses them to switch a server off.
 * `what` names the setting in errors ("metrics bind address").
 */
export function parseBindAddress(value: string, what: string): BindAddress | undefined {
  const v = value.trim();
  if (v === '' || v === '0') return undefined;
  const bad = (why: string) => new Error(`${what} "${value}": ${why}`);
  let host: string;
  let port: string;
  if (v.startsWith('[')) {
    const close = v.indexOf(']');
    if (close < 0 || v[close + 1] !== ':') throw bad('expected [ipv6]:port');
    host = v.slice(1, close);
    port = v.slice(close + 2);
  } else {
    const colon = v.lastIndexOf(':');
    if (colon < 0) throw bad('expected host:port or :port');
    host = v.slice(0, colon);
    port = v.slice(colon + 1);
    // An unbracketed IPv6 address is ambiguous (which colon ends the host?); Go refuses it too.
    if (host.includes(':')) throw bad('put an IPv6 address in brackets, e.g. [::1]:8080');
  }
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw bad('port must be a number from 0 to 65535');
  return host === '' ? { port: Number(port) } : { host, port: Number(port) };
}

/** An address as an operator writes it: "127.0.0.1:8080", "[::1]:8080", ":8080" for every interface. */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Would binding both collide? Then metrics and health share one server.
 * Port 0 never collides: each request gets its own ephemeral port.
 */
export function sameBindAddress(a: BindAddress, b: BindAddress): boolean {
  return a.port !== 0 && a.port === b.port && (a.host ?? '').toLowerCase() === (b.host ?? '').toLowerCase();
}

/** An HTTP answer as plain data, for a server that answers on another thread's behalf. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What a request is, as one thread hands it to another to answer. */
export interface HttpAsk {
  method: string;
  /** The request target: path and query. */
  url: string;
}

/**
 * A listener started before the rest of the program was loaded (bin.ts's
 * early probes), answering at an address since the process began. Whoever
 * serves there next either binds beside it (SO_REUSEPORT, so the address is
 * never closed between the two) and then `release`s it, or, where it can,
 * `attach`es: the listener goes on listening and hands the requests it does
 * not answer itself to `serve`; `answered` resolves once it has answered a
 * readiness probe itself.
 */
interface OfferedListener {
  release(): Promise<void>;
  attach?(serve: (ask: HttpAsk) => Promise<HttpAnswer>): { address: string; answered: Promise<void>; close(): Promise<void> };
}

/**
 * Listeners offered at addresses, for the program's own servers to take
 * over. Global, not module state: bin.ts loads this module on its own, and
 * the CLI's bundle carries its own copy.
 */
const OFFERED = Symbol.for('spire-reconciler.offered-listeners');

function offered(): Map<string, OfferedListener> {
  const g = globalThis as unknown as Record<symbol, Map<string, OfferedListener> | undefined>;
  return (g[OFFERED] ??= new Map());
}

const offerKey = (bind: BindAddress) => `${(bind.host ?? '').toLowerCase()}|${bind.port}`;

/** Leaves a listener at `bind` for the next server there to take over (port 0 is never taken over). */
export function offerListener(bind: BindAddress, listener: OfferedListener): void {
  if (bind.port !== 0) offered().set(offerKey(bind), listener);
}

/** The listener offered at `bind`, if any, now the caller's to release or attach to. */
export function takeOfferedListener(bind: BindAddress): OfferedListener | undefined {
  const key = offerKey(bind);
  const listener = offered().get(key);
  offered().delete(key);
  return listener;
}

/**
 * Starts an HTTP server, or listens with one already made (the webhook's
 * HTTPS server), and resolves once it listens, with the actual address (the
 * port is known only now when 0 was asked for). A failure to bind rejects
 * with an error naming what was being served and where; the server can then
 * be given to listen() again. `reusePort` binds beside a listener already
 * there (an offered one, which the caller then releases).
 */
export function listen(handler: RequestListener, bind: BindAddress, what: string, written: string, opts?: { reusePort?: boolean }): Promise<{ server: Server; address: string }>;
export function listen<S extends AnyHttpServer>(server: S, bind: BindAddress, what: string, written: string, opts?: { reusePort?: boolean }): Promise<{ server: S; address: string }>;
export function listen(serve: RequestListener | AnyHttpServer, bind: BindAddress, what: string, written: string, opts: { reusePort?: boolean } = {}): Promise<{ server: AnyHttpServer; address: string }> {
  const server = typeof serve === 'function' ? createServer(serve) : serve;
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      const reason = err.code === 'EADDRINUSE' ? 'address already in use' : err.code === 'EACCES' ? 'permission denied' : (err.code ?? err.message);
      reject(new Error(`cannot serve ${what} on ${written}: ${reason}`, { cause: err }));
    };
    server.once('error', onError);
    // Node's listen options: absent, not undefined, as Node documents them (no
    // host: every address; reusePort only where asked, as not every OS has it).
    server.listen({ port: bind.port, ...(bind.host !== undefined ? { host: bind.host } : {}), ...(opts.reusePort ? { reusePort: true } : {}) }, () => {
      server.off('error', onError);
      const a = server.address() as AddressInfo;
      resolve({ server, address: hostPort(a.address, a.port) });
    });
  });
}

/**
 * Stops accepting, drops idle keep-alive connections (a scraper holds one),
 * and waits for requests in flight; with `graceMs`, cuts the connections
 * still busy after that long.
 */
export function closeServer(server: AnyHttpServer, graceMs?: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const force = graceMs === undefined ? undefined : setTimeout(() => server.closeAllConnections(), graceMs);
    server.close((err) => {
      clearTimeout(force);
      if (err) reject(err);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
