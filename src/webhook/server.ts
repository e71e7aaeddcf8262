/**
 * The HTTPS listener for AdmissionReviews. It is created with the first
 * certificate (there is nothing to serve before one exists) and then keeps
 * listening for good: later certificates replace the TLS context in place,
 * so a rotation never refuses a connection or drops a request in flight.
 *
 * Binding is this server's business, not the certificate source's: a port
 * already taken is retried here with backoff and reported as what it is,
 * while the certificate stays accepted. Were it thrown back from install(),
 * the SPIRE source would count the mint as failed and mint again on every
 * retry, and the file source would blame the Secret.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import { closeServer, hostPort, listen } from '../net/http.js';
import { Backoff } from '../net/backoff.js';
import { evaluateReview, malformedReview } from './review.js';
import { type ServingCertificate, type WebhookKind, WEBHOOK_PATHS } from './types.js';

/**
 * The API server caps a request body at 3 MiB and an UPDATE review carries the
 * object twice, plus JSON escaping; anything larger is not from an API server.
 */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** How long close() lets requests in flight finish before cutting their connections. */
const CLOSE_GRACE_MS = 5000;

const KIND_BY_PATH = new Map<string, WebhookKind>(Object.entries(WEBHOOK_PATHS).map(([k, p]) => [p, k as WebhookKind]));

export interface AdmissionServerOptions {
  /** '' listens on every interface. */
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  trustDomain: string;
  log: Logger;
}

function tlsOptions(cert: ServingCertificate): SecureContextOptions {
  return { cert: cert.certPem, key: cert.keyPem, minVersion: 'TLSv1.2' };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export class AdmissionServer {
  private server: Server | undefined;
  private current_: ServingCertificate | undefined;
  private boundPort = 0;
  private closed = false;
  private listenProblem_: string | undefined;
  private listening_: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private readonly backoff = new Backoff(1000, 60_000);

  constructor(private readonly opts: AdmissionServerOptions) {}

  /** The port listened on; the configured one until listening. */
  get port(): number {
    return this.boundPort || this.opts.port;
  }

  get listening(): boolean {
    return this.server?.listening ?? false;
  }

  /** Why the server does not listen although it has a certificate (the last bind failure). */
  get listenProblem(): string | undefined {
    return this.listenProblem_;
  }

  /** The certificate being served. */
  get current(): ServingCertificate | undefined {
    return this.current_;
  }

  /**
   * Serves `cert` from now on. Throws, and keeps serving the previous one,
   * when the key does not match the certificate or either does not parse: a
   * half-written file or a bad mint must not take the webhook down. Does not
   * throw when the port cannot be bound: see the module comment.
   */
  async install(cert: ServingCertificate): Promise<void> {
    if (this.closed) return;
    const options = tlsOptions(cert);
    createSecureContext(options);
    if (this.server) {
      this.server.setSecureContext(options);
    } else {
      this.server = createServer(options, (req, res) => void this.handle(req, res));
      this.server.on('error', (err) => {
        if (this.server?.listening) this.opts.log.error({ err: err.message }, 'webhook server error');
      });
    }
    this.current_ = cert;
    if (!this.server.listening) await this.openListener();
  }

  /** One bind attempt at a time; a failure schedules the next one. */
  private openListener(): Promise<void> {
    this.listening_ ??= this.tryListen().finally(() => {
      this.listening_ = undefined;
    });
    return this.listening_;
  }

  private async tryListen(): Promise<void> {
    const server = this.server;
    if (!server || this.closed || server.listening) return;
    const { host, port } = this.opts;
    let address: string;
    try {
      ({ address } = await listen(server, host ? { host, port } : { port }, 'the admission webhook', hostPort(host, port)));
    } catch (err) {
      const retryInMs = this.backoff.next();
      const problem = (err as Error).message;
      // Once per distinct failure: a port held for minutes would otherwise log every retry.
      if (problem !== this.listenProblem_) this.opts.log.error({ err: problem, retryInMs }, 'webhook server cannot listen');
      this.listenProblem_ = problem;
      if (!this.closed) this.retry = setTimeout(() => void this.openListener(), retryInMs);
      return;
    }
    this.listenProblem_ = undefined;
    this.backoff.reset();
    this.boundPort = (server.address() as AddressInfo).port;
    this.opts.log.info({ address }, 'webhook server listening');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const kind = KIND_BY_PATH.get(path);
      if (!kind) return sendText(res, 404, `no webhook at ${path}; served: ${[...KIND_BY_PATH.keys()].join(', ')}\n`);
      if (req.method !== 'POST') return sendText(res, 405, 'AdmissionReviews are POSTed\n', { Allow: 'POST' });
      const body = await readBody(req);
      if (body === undefined) return sendText(res, 413, `request body over ${MAX_BODY_BYTES} bytes\n`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch (err) {
        const outcome = malformedReview(`request body is not JSON: ${(err as Error).message}`);
        return sendJson(res, outcome.httpStatus, outcome.review);
      }
      const outcome = evaluateReview(parsed, this.opts.trustDomain, kind);
      const r = outcome.review.response;
      if (!r.allowed) this.opts.log.info({ kind, uid: r.uid, status: r.status?.code, reason: r.status?.message }, 'admission denied');
      sendJson(res, outcome.httpStatus, outcome.review);
    } catch (err) {
      this.opts.log.error({ err: (err as Error).message }, 'admission request failed');
      if (!res.headersSent) sendText(res, 500, 'internal error\n');
      else res.destroy();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.listening_;
    const server = this.server;
    // Requests in flight get a moment to finish (an API server call has a 10 s default timeout); idle connections go at once.
    if (server?.listening) await closeServer(server, CLOSE_GRACE_MS);
  }
}
