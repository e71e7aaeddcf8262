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
import { jsonValueCount } from '../manifests/budget.js';
import { nestingProblem } from '../manifests/nesting.js';
import { evaluateReview, malformedReview } from './review.js';
import { type ServingCertificate, type WebhookKind, WEBHOOK_PATHS } from './types.js';

/**
 * The API server caps a request body at 3 MiB and an UPDATE review carries the
 * object twice, plus JSON escaping; anything larger is not from an API server.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * JSON values (objects, arrays, strings, numbers: see jsonValueCount) in one
 * body. A review of a real object holds a few thousand; 8 MiB of `{},{},...`
 * holds 2.8 million, which JSON.parse turns into about 90 MiB of heap.
 */
export const MAX_BODY_VALUES = 100_000;

/**
 * Requests read and checked at once; more wait, in arrival order, without
 * their bodies being read. With the limits above a request costs at most
 * about 20 MiB of heap, so four stay well inside deploy/'s 192 MiB.
 */
export const MAX_CONCURRENT_REVIEWS = 4;

/** Requests that may wait for a turn; beyond them the answer is 429 at once. */
export const MAX_WAITING_REVIEWS = 64;

/**
 * A whole request must arrive within this (the API server gives a webhook
 * 10 s by default, 30 s at most), so a client that sends slowly cannot keep a
 * turn from the API server's requests.
 */
const REQUEST_TIMEOUT_MS = 30_000;

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

const TOO_LARGE = `request body over ${MAX_BODY_BYTES} bytes: an AdmissionReview from the API server is smaller (it accepts objects up to 3 MiB)\n`;

/** Over MAX_BODY_BYTES: `drained` settles once the rest of the body has been read and thrown away. */
interface TooLarge {
  drained: Promise<void>;
}

/**
 * The body; or, once it is known to be over MAX_BODY_BYTES (by its
 * Content-Length, or by counting), TooLarge: from there on nothing is kept,
 * but the rest is read and thrown away, so that the client can finish
 * sending and read the 413 (answering while it still sends, then closing,
 * would reset the connection under its feet). Node's requestTimeout bounds
 * how long a body that never ends is read.
 */
function readBody(req: IncomingMessage): Promise<Buffer | TooLarge | undefined> {
  return new Promise((resolve, reject) => {
    const drain = (): TooLarge => ({
      drained: new Promise<void>((done) => {
        req.on('end', done);
        req.on('close', done);
        req.resume();
      }),
    });
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return resolve(drain());
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        req.off('data', onData);
        resolve(drain());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    // The client went away before the end.
    req.on('close', () => resolve(undefined));
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
  private reviewing = 0;
  private readonly waiting: (() => void)[] = [];

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

  /** Requests being read and checked, and requests waiting for a turn. */
  get load(): { reviewing: number; waiting: number } {
    return { reviewing: this.reviewing, waiting: this.waiting.length };
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
      this.server = createServer({ ...options, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS / 3 }, (req, res) => void this.handle(req, res));
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

  /**
   * A turn to read and check one request, or false when too many wait
   * already. A request whose client goes away while it waits gives up its
   * place.
   */
  private async turn(req: IncomingMessage): Promise<boolean> {
    if (this.reviewing < MAX_CONCURRENT_REVIEWS) {
      this.reviewing++;
      return true;
    }
    if (this.waiting.length >= MAX_WAITING_REVIEWS) return false;
    return new Promise((resolve) => {
      const go = () => {
        req.off('close', gone);
        resolve(true);
      };
      const gone = () => {
        const i = this.waiting.indexOf(go);
        if (i !== -1) this.waiting.splice(i, 1);
        resolve(false);
      };
      req.once('close', gone);
      this.waiting.push(go);
    });
  }

  /** Passes the turn to the next request waiting, or frees it. */
  private endTurn(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.reviewing--;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const kind = KIND_BY_PATH.get(path);
    if (!kind) return sendText(res, 404, `no webhook at ${path}; served: ${[...KIND_BY_PATH.keys()].join(', ')}\n`);
    if (req.method !== 'POST') return sendText(res, 405, 'AdmissionReviews are POSTed\n', { Allow: 'POST' });
    if (!(await this.turn(req))) {
      if (req.destroyed) return;
      this.opts.log.warn({ kind, waiting: this.waiting.length }, 'admission request refused: too many waiting');
      return sendText(res, 429, `too many admission requests at once (${MAX_CONCURRENT_REVIEWS} checked, ${MAX_WAITING_REVIEWS} waiting)\n`, { 'Retry-After': '1' });
    }
    let turnHeld = true;
    try {
      const outcome = await this.review(req, kind);
      if (outcome === undefined) return; // The client went away.
      if ('drained' in outcome) {
        // Throwing a body away needs no turn.
        this.endTurn();
        turnHeld = false;
        this.opts.log.warn({ kind, contentLength: req.headers['content-length'] }, 'admission request refused: body too large');
        await outcome.drained;
        if (!res.destroyed) sendText(res, 413, TOO_LARGE);
        return;
      }
      const r = outcome.review.response;
      if (!r.allowed) this.opts.log.info({ kind, uid: r.uid, status: r.status?.code, reason: r.status?.message }, 'admission denied');
      sendJson(res, outcome.httpStatus, outcome.review);
    } catch (err) {
      this.opts.log.error({ err: (err as Error).message }, 'admission request failed');
      if (!res.headersSent) sendText(res, 500, 'internal error\n');
      else res.destroy();
    } finally {
      if (turnHeld) this.endTurn();
    }
  }

  /**
   * Reads and checks one review. Its cost is bounded before each step that
   * could be expensive: the size before the body is kept, the number of
   * values before it is decoded and parsed, the nesting before anything walks
   * it by recursion.
   */
  private async review(req: IncomingMessage, kind: WebhookKind): Promise<ReturnType<typeof evaluateReview> | TooLarge | undefined> {
    const body = await readBody(req);
    if (body === undefined || !Buffer.isBuffer(body)) return body;
    const values = jsonValueCount(body);
    if (values > MAX_BODY_VALUES) {
      return malformedReview(`request body holds about ${values} JSON values, over the limit of ${MAX_BODY_VALUES}: an AdmissionReview of a valid object holds far fewer`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (err) {
      return malformedReview(`request body is not JSON: ${(err as Error).message}`);
    }
    const deep = nestingProblem(parsed);
    if (deep) return malformedReview(`request body: ${deep.field}: ${deep.message}`);
    return evaluateReview(parsed, this.opts.trustDomain, kind);
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
