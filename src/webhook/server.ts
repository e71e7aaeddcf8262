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
import { StringDecoder } from 'node:string_decoder';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import { errorMessage } from '../api/index.js';
import { DEFAULT_WEBHOOK_TLS, type WebhookTlsProfile } from '../api/tls-profile.js';
import { closeServer, hostPort, listen } from '../net/http.js';
import { Backoff } from '../net/backoff.js';
import { jsonValueCount } from '../manifests/budget.js';
import { nestingProblem } from '../manifests/nesting.js';
import { discardBody, readBody } from './body.js';
import { AdmissionGate, type GateLimits } from './gate.js';
import { evaluateReview, malformedReview, type ReviewOutcome } from './review.js';
import { Serial } from './serial.js';
import { noteBodyBytes } from './young-garbage.js';
import { type ServingCertificate, type WebhookKind, WEBHOOK_PATHS } from './types.js';

/**
 * The API server caps a request body at 3 MiB and an UPDATE review carries
 * the object twice, plus JSON escaping; anything larger is not from an API
 * server, and is answered 413 without being kept.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * JSON values (objects, arrays, strings, numbers: see jsonValueCount) in one
 * body. A review of a real object holds a few thousand; 8 MiB of `{},{},...`
 * holds 2.8 million, which JSON.parse turns into about 90 MiB of heap.
 */
export const MAX_BODY_VALUES = 100_000;

/**
 * What the webhook holds for request bodies, whoever sends them (the port
 * takes requests without client authentication, as upstream's): at most
 * `reviews` requests are read and checked at once, their bodies together in
 * at most `bytes` (one BodySlab), and `waiting` more wait for a turn with
 * their bodies unread. 16 MiB is two bodies of the largest size read, or
 * five of the largest an API server sends (3 MiB); reviews of real objects
 * are a few KiB, so a burst of those is paced by the eight turns, each held
 * for the milliseconds a review takes. Checking (decoding, parsing) takes
 * one body at a time (Serial).
 *
 * A request waits rather than being refused while there is room in the
 * queue, because the API server does not retry a webhook's 429: the
 * webhook's failurePolicy (Fail in deploy/) decides, and the create or
 * update fails. That is the trade-off: more turns or bytes let a larger
 * burst through at once, and raise what a flood can make the process hold;
 * a longer queue keeps more connections open (Node reads some of a waiting
 * request's body ahead, until its buffer is full). Past the queue the
 * answer is 429 at once, with Retry-After.
 *
 * test/faults/webhook-flood.slow.test.ts floods the webhook under deploy/'s
 * settings and bounds what it makes the process hold; docs/webhook.md
 * ("Memory under a flood of requests") has the figures.
 */
export const ADMISSION_LIMITS: GateLimits = { bytes: 16 * 1024 * 1024, reviews: 8, waiting: 64 };

/**
 * A body must have arrived whole this long after its turn began. The API
 * server sends the body with the request and gives a webhook 10 s by default
 * (30 s at most); a client that trickles its body loses its turn here instead
 * of holding it for the whole requestTimeout.
 */
const BODY_DEADLINE_MS = 10_000;

/**
 * A whole request, waiting for a turn included, must arrive within this, and
 * its headers within headersTimeout. Node checks both every
 * connectionsCheckingInterval.
 */
const REQUEST_TIMEOUT_MS = 30_000;
const HEADERS_TIMEOUT_MS = 10_000;
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** How long close() lets requests in flight finish before cutting their connections. */
const CLOSE_GRACE_MS = 5000;

const KIND_BY_PATH = new Map<string, WebhookKind>(Object.entries(WEBHOOK_PATHS).map(([k, p]) => [p, k as WebhookKind]));

interface AdmissionServerOptions {
  /** '' listens on every interface. */
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  trustDomain: string;
  log: Logger;
  /** The config's tlsConfig: TLS versions, TLS 1.2 suites and groups; Go's defaults (TLS 1.2 at least) when unset. */
  tls?: WebhookTlsProfile;
  /** Test hook: ADMISSION_LIMITS and BODY_DEADLINE_MS otherwise. */
  limits?: GateLimits;
  bodyDeadlineMs?: number;
}

function tlsOptions(cert: ServingCertificate, profile: WebhookTlsProfile): SecureContextOptions {
  return { cert: cert.certPem, key: cert.keyPem, minVersion: profile.minVersion, ciphers: profile.ciphers, ecdhCurve: profile.ecdhCurve };
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

/**
 * The body as a string in V8's heap. Buffer#toString makes a string of more
 * than about a megabyte of ASCII an external one, a copy malloc'd outside
 * V8's heap, which glibc keeps resident after it is freed. StringDecoder
 * makes an ordinary string, which V8's collections free.
 */
function decode(body: Buffer): string {
  const decoder = new StringDecoder('utf8');
  return decoder.write(body) + decoder.end();
}

/** A refusal: its status, its text, its headers. */
type Refusal = [status: number, text: string, headers?: Record<string, string>];

export class AdmissionServer {
  private server: Server | undefined;
  private current_: ServingCertificate | undefined;
  private boundPort = 0;
  private closed = false;
  private listenProblem_: string | undefined;
  private listening_: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private readonly backoff = new Backoff(1000, 60_000);
  private readonly gate: AdmissionGate;
  private readonly checking = new Serial();
  private readonly bodyDeadlineMs: number;

  constructor(private readonly opts: AdmissionServerOptions) {
    this.gate = new AdmissionGate(opts.limits ?? ADMISSION_LIMITS);
    this.bodyDeadlineMs = opts.bodyDeadlineMs ?? BODY_DEADLINE_MS;
  }

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

  /** Requests holding a turn (being read or checked), the body bytes they hold, and requests waiting for a turn. */
  get load(): { reviewing: number; bytes: number; waiting: number } {
    return this.gate.load;
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
    const options = tlsOptions(cert, this.opts.tls ?? DEFAULT_WEBHOOK_TLS);
    createSecureContext(options);
    if (this.server) {
      this.server.setSecureContext(options);
    } else {
      this.server = createServer(
        { ...options, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
        (req, res) => void this.handle(req, res),
      );
      this.server.on('error', (err) => {
        if (this.server?.listening) this.opts.log.error({ err }, 'webhook server error');
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
      const problem = errorMessage(err);
      // Once per distinct failure: a port held for minutes would otherwise log every retry.
      if (problem !== this.listenProblem_) this.opts.log.error({ err, retryInMs }, 'webhook server cannot listen');
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
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const kind = KIND_BY_PATH.get(path);
    if (!kind) return sendText(res, 404, `no webhook at ${path}; served: ${[...KIND_BY_PATH.keys()].join(', ')}\n`);
    if (req.method !== 'POST') return sendText(res, 405, 'AdmissionReviews are POSTed\n', { Allow: 'POST' });
    // Node's parser has checked the header: a number, or absent for a chunked body.
    const length = req.headers['content-length'];
    const declared = length === undefined ? undefined : Number(length);
    if (declared !== undefined && declared > MAX_BODY_BYTES) return this.refuse(req, res, kind, 'body too large', [413, TOO_LARGE]);

    const gone = new AbortController();
    const onClose = () => gone.abort();
    req.once('close', onClose);
    const pass = await this.gate.enter(declared, gone.signal);
    req.off('close', onClose);
    if (pass === 'gone') return;
    if (pass === 'busy') return this.refuse(req, res, kind, 'too many at once', this.busy());
    try {
      const read = await readBody(req, pass, { maxBytes: MAX_BODY_BYTES, deadlineMs: this.bodyDeadlineMs });
      if ('refused' in read) {
        // Nothing of a refused body is kept: its turn and bytes go back before the rest is thrown away.
        pass.release();
        if (read.refused === 'gone') return;
        if (read.refused === 'too-large') return await this.refuse(req, res, kind, 'body too large', [413, TOO_LARGE]);
        if (read.refused === 'over-budget') return await this.refuse(req, res, kind, 'too many bytes at once', this.busy());
        return this.timedOut(req, res, kind);
      }
      const outcome = await this.checking.run(() => this.review(read.body, kind));
      noteBodyBytes(read.body.length);
      const r = outcome.review.response;
      if (!r.allowed) this.opts.log.info({ kind, uid: r.uid, status: r.status?.code, reason: r.status?.message }, 'admission denied');
      sendJson(res, outcome.httpStatus, outcome.review);
    } catch (err) {
      this.opts.log.error({ err }, 'admission request failed');
      if (!res.headersSent) sendText(res, 500, 'internal error\n');
      else res.destroy();
    } finally {
      pass.release();
    }
  }

  private busy(): Refusal {
    const { bytes, reviews, waiting } = this.gate.limits;
    return [429, `too many admission requests at once (${reviews} read and checked, holding at most ${bytes} bytes, ${waiting} waiting)\n`, { 'Retry-After': '1' }];
  }

  /** Answers once the rest of the body has been thrown away, so that the client can read the answer. */
  private async refuse(req: IncomingMessage, res: ServerResponse, kind: WebhookKind, why: string, [status, text, headers]: Refusal): Promise<void> {
    this.opts.log.warn({ kind, status, contentLength: req.headers['content-length'], ...this.gate.load }, `admission request refused: ${why}`);
    await discardBody(req);
    if (!res.destroyed) sendText(res, status, text, headers);
  }

  /** A client too slow to send its body: answered, and its connection closed with whatever it has not sent. */
  private timedOut(req: IncomingMessage, res: ServerResponse, kind: WebhookKind): void {
    this.opts.log.warn({ kind, deadlineMs: this.bodyDeadlineMs }, 'admission request refused: body not received in time');
    if (res.destroyed) return;
    res.once('finish', () => req.socket.destroy());
    sendText(res, 408, `request body not received within ${this.bodyDeadlineMs} ms\n`, { Connection: 'close' });
  }

  /**
   * Checks one review. Its cost is bounded before each step that could be
   * expensive: the number of values before it is decoded and parsed, the
   * nesting before anything walks it by recursion.
   */
  private review(body: Buffer, kind: WebhookKind): ReviewOutcome {
    const values = jsonValueCount(body);
    if (values > MAX_BODY_VALUES) {
      return malformedReview(`request body holds about ${values} JSON values, over the limit of ${MAX_BODY_VALUES}: an AdmissionReview of a valid object holds far fewer`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(decode(body));
    } catch (err) {
      return malformedReview(`request body is not JSON: ${errorMessage(err)}`);
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
