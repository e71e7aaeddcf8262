import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A loopback TCP proxy that a test can cut: every open connection is
 * destroyed and new ones are refused until it is restored, while the
 * server behind it keeps running for everyone else. TLS passes through.
 */
export interface TcpProxy {
  /** 127.0.0.1:<port> */
  readonly address: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    const s = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const sock of [client, upstream]) {
        sockets.add(sock);
        sock.on('close', () => sockets.delete(sock));
        sock.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', resolve);
    });
    port = (s.address() as { port: number }).port;
    server = s;
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    address: `127.0.0.1:${port}`,
    cut: stop,
    restore: listen,
    close: stop,
  };
}
