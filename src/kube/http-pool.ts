import { Agent as HttpAgent, type IncomingHttpHeaders, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';

/** An API server's answer: its status, its headers, and its body, still to be read. */
export interface Answer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

export interface PoolRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** Ends the request, and the reading of its body, when aborted. */
  signal?: AbortSignal | undefined;
}

/** Where requests to one API server go out: connections kept open between requests. */
export interface ConnectionPool {
  send(url: URL, req: PoolRequest): Promise<Answer>;
  /** Takes no new request; a request under way (a watch) runs to its end. */
  close(): void;
}

/** What the server's certificate is checked against, and what this client presents. */
export interface TlsSettings {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized: boolean;
  servername?: string;
}

/**
 * Requests through Node's own HTTP client, its connections kept alive
 * between requests (an agent per protocol). Node's client, not undici's:
 * undici is a package of its own, 1.3 MB of code that a process loading it
 * keeps resident (about 27 MiB with what it pulls in: WHATWG streams, Node's
 * own copy of undici), which at a small cluster is a fifth of the controller
 * (docs/performance.md "Small clusters").
 */
export class NodeHttpPool implements ConnectionPool {
  private readonly http = new HttpAgent({ keepAlive: true });
  private readonly https: HttpsAgent;

  constructor(tls: TlsSettings) {
    this.https = new HttpsAgent({ keepAlive: true, ...tls });
  }

  send(url: URL, req: PoolRequest): Promise<Answer> {
    const { signal } = req;
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const secure = url.protocol === 'https:';
    const headers = req.body === undefined ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) };
    return new Promise((resolve, reject) => {
      let answer: IncomingMessage | undefined;
      // Aborted, the request or its answer's body fails with the signal's reason, as undici's do.
      const abort = () => (answer ?? request).destroy(signal!.reason as Error);
      const request = (secure ? httpsRequest : httpRequest)(url, { method: req.method, headers, agent: secure ? this.https : this.http }, (res) => {
        answer = res;
        res.once('close', () => signal?.removeEventListener('abort', abort));
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
      });
      signal?.addEventListener('abort', abort, { once: true });
      // Before the answer, the request fails; after it, its body does (the reader sees the error).
      request.on('error', (err) => {
        if (!answer) signal?.removeEventListener('abort', abort);
        reject(err);
      });
      request.end(req.body);
    });
  }

  close(): void {
    for (const agent of [this.http, this.https]) {
      // Connections idle now are closed, and those in use are closed when their request ends.
      agent.keepSocketAlive = () => false;
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of (sockets ?? []) as Socket[]) socket.destroy();
    }
  }
}
