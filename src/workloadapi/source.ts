import * as grpc from '@grpc/grpc-js';
import type { SpiffeWorkloadAPIClient } from '../gen/SpiffeWorkloadAPI.js';
import type { X509SVIDResponse__Output } from '../gen/X509SVIDResponse.js';
import { Backoff } from '../net/backoff.js';
import { parseTrustDomain } from '../spiffe/index.js';
import { errorMessage } from '../api/errors.js';
import { type Authority, parseX509Response, type X509Context, type X509Svid } from './context.js';
import { bundleExpired, foreignSvid, noBundle, silentAgent, streamProblem, svidExpired, unusableAnswer, type WorkloadApiProblem } from './problems.js';
import { loadWorkloadGrpc, workloadMetadata } from './proto.js';
import { workloadApiSocket } from './socket.js';

export interface X509SourceOptions {
  /** `unix:///path` or `/path` (workloadAPISocketPath); when unset, SPIFFE_ENDPOINT_SOCKET. */
  socket?: string;
  /** The controller's trust domain: the SVID must be in it, and the bundles must hold its X.509 authorities. */
  trustDomain: string;
  /** How long a new stream may go without its first response before the agent counts as not answering. Default 15 s. */
  answerTimeoutMs?: number;
  /** Delays between attempts, doubling from `minMs` to `maxMs`. Default 1 s to 30 s. */
  backoff?: { minMs: number; maxMs: number };
  /** Where SPIFFE_ENDPOINT_SOCKET is read. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * The SVID to present when the agent gives several (the pod matches more
   * than one entry): the one with this SPIFFE ID, else the agent's first.
   */
  preferredId?: string;
}

/** The longest timer Node keeps (about 24.8 days); a later expiry is checked again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The controller's X.509 identity from the SPIRE agent's Workload API: one
 * FetchX509SVID stream, held open, whose every response replaces the context
 * (a rotation arrives as a new response, well before the old SVID expires).
 * A response that is unusable (unparseable, another trust domain, expired)
 * is a problem and leaves the context as it was. When the stream fails or
 * ends, the source dials again after a backoff, keeping the last good
 * context while its SVID and bundle are valid, and drops it when they expire.
 * It never throws and never waits silently: every failed attempt is a
 * classified problem, told to `onProblem` listeners.
 */
export class X509Source {
  readonly socketPath: string;
  readonly trustDomain: string;
  private readonly target: string;
  private readonly answerTimeoutMs: number;
  private readonly preferredId: string | undefined;
  private readonly backoff: Backoff;
  private context: X509Context | undefined;
  private lastProblem: WorkloadApiProblem | undefined;
  private readonly updateListeners = new Set<(context: X509Context | undefined) => void>();
  private readonly problemListeners = new Set<(problem: WorkloadApiProblem | undefined) => void>();
  private readonly waiters = new Set<{ resolve: (c: X509Context) => void; reject: (e: Error) => void }>();
  private client: SpiffeWorkloadAPIClient | undefined;
  private call: grpc.ClientReadableStream<X509SVIDResponse__Output> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private accepted = 0;

  constructor(opts: X509SourceOptions) {
    const { target, path } = workloadApiSocket(opts.socket, opts.env);
    this.target = target;
    this.socketPath = path;
    this.trustDomain = parseTrustDomain(opts.trustDomain);
    this.answerTimeoutMs = opts.answerTimeoutMs ?? 15_000;
    this.preferredId = opts.preferredId;
    this.backoff = new Backoff(opts.backoff?.minMs ?? 1000, opts.backoff?.maxMs ?? 30_000);
    this.attempt();
  }

  /** Responses accepted since start (1 for the first SVID, then one per rotation or bundle change). */
  get updates(): number {
    return this.accepted;
  }

  /** The newest usable context, or undefined before the first one and after it expired. */
  current(): X509Context | undefined {
    return this.context;
  }

  /** The SVID the controller presents: the preferred one, else the first the agent listed (the Workload API's default). */
  svid(): X509Svid | undefined {
    return this.context?.svids[0];
  }

  /** The X.509 authorities of a trust domain in the current context. */
  authorities(trustDomain: string): readonly Authority[] | undefined {
    return this.context?.bundles.get(trustDomain);
  }

  /** Why the last attempt failed or the last response was refused; undefined once a response is accepted. */
  get problem(): WorkloadApiProblem | undefined {
    return this.lastProblem;
  }

  /** Resolves with the current context, or the first one to come; rejects only when `signal` aborts or the source closes. */
  ready(opts: { signal?: AbortSignal } = {}): Promise<X509Context> {
    if (this.context) return Promise.resolve(this.context);
    if (this.closed) return Promise.reject(new Error('the X509Source is closed'));
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: (c: X509Context) => {
          opts.signal?.removeEventListener('abort', onAbort);
          resolve(c);
        },
        reject: (e: Error) => {
          opts.signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      const onAbort = () => {
        this.waiters.delete(waiter);
        reject(opts.signal?.reason instanceof Error ? opts.signal.reason : new Error('aborted'));
      };
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  /**
   * Told about every accepted context (each rotation), and with undefined
   * when the context expired unreplaced. Listeners run in the order they
   * were added. Returns a function that removes the listener.
   */
  onUpdate(listener: (context: X509Context | undefined) => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  /** Told about every failed attempt and refused response, and with undefined when a response is accepted after one. */
  onProblem(listener: (problem: WorkloadApiProblem | undefined) => void): () => void {
    this.problemListeners.add(listener);
    return () => this.problemListeners.delete(listener);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.expiryTimer);
    this.endStream();
    for (const w of this.waiters) w.reject(new Error('the X509Source is closed'));
    this.waiters.clear();
  }

  private attempt(): void {
    if (this.closed) return;
    const Api = loadWorkloadGrpc().SpiffeWorkloadAPI;
    // A client per attempt: a fresh channel dials at once, where a failed one would wait out gRPC's own reconnect backoff.
    const client = new Api(this.target, grpc.credentials.createInsecure());
    const call = client.FetchX509SVID({}, workloadMetadata());
    this.client = client;
    this.call = call;
    let answered = false;
    const silence = setTimeout(() => {
      if (answered || this.call !== call) return;
      this.endStream();
      this.retryAfter(silentAgent(this.socketPath, this.answerTimeoutMs));
    }, this.answerTimeoutMs);
    call.on('data', (res: X509SVIDResponse__Output) => {
      answered = true;
      clearTimeout(silence);
      if (this.call === call) this.receive(res);
    });
    // Failures are read from 'status', which always comes; without an 'error' listener an error would be thrown.
    call.on('error', () => undefined);
    call.on('status', (status: grpc.StatusObject) => {
      clearTimeout(silence);
      if (this.call !== call) return; // ended by us: superseded or closed
      this.endStream();
      if (status.code === grpc.status.OK) this.retryAfter(undefined);
      else this.retryAfter(streamProblem(this.socketPath, status));
    });
  }

  private endStream(): void {
    const call = this.call;
    const client = this.client;
    this.call = undefined;
    this.client = undefined;
    call?.cancel();
    client?.close();
  }

  /** Reports `problem` (none: the agent ended the stream cleanly) and dials again after the next backoff delay. */
  private retryAfter(problem: WorkloadApiProblem | undefined): void {
    if (this.closed) return;
    if (problem) this.report(problem);
    this.retryTimer = setTimeout(() => this.attempt(), this.backoff.next());
  }

  private report(problem: WorkloadApiProblem | undefined): void {
    this.lastProblem = problem;
    for (const l of this.problemListeners) l(problem);
  }

  private receive(res: X509SVIDResponse__Output): void {
    let context: X509Context;
    try {
      context = preferredFirst(parseX509Response(res), this.preferredId);
    } catch (err) {
      this.report(unusableAnswer(this.socketPath, errorMessage(err)));
      return;
    }
    const refusal = this.refusal(context);
    if (refusal) {
      this.report(refusal);
      return;
    }
    this.backoff.reset();
    this.accept(context);
  }

  /** Why a parsed context cannot serve the controller, if it cannot. */
  private refusal(context: X509Context, now = Date.now()): WorkloadApiProblem | undefined {
    const svid = context.svids[0];
    if (!svid) return unusableAnswer(this.socketPath, 'it holds no SVID');
    if (svid.trustDomain !== this.trustDomain) return foreignSvid(this.socketPath, svid.spiffeId, this.trustDomain);
    const authorities = context.bundles.get(this.trustDomain) ?? [];
    if (authorities.length === 0) return noBundle(this.socketPath, this.trustDomain);
    if (svid.notAfter.getTime() <= now) return svidExpired(this.socketPath, svid.spiffeId, svid.notAfter);
    const last = lastExpiry(authorities);
    if (last.getTime() <= now) return bundleExpired(this.socketPath, this.trustDomain, last);
    return undefined;
  }

  private accept(context: X509Context): void {
    const hadProblem = this.lastProblem !== undefined;
    this.context = context;
    this.accepted++;
    if (hadProblem) this.report(undefined);
    this.armExpiry(context);
    for (const l of this.updateListeners) l(context);
    for (const w of this.waiters) w.resolve(context);
    this.waiters.clear();
  }

  /** Drops the context when its SVID or its bundle expires unreplaced. */
  private armExpiry(context: X509Context): void {
    clearTimeout(this.expiryTimer);
    const svid = context.svids[0] as X509Svid;
    const bundleEnd = lastExpiry(context.bundles.get(this.trustDomain) ?? []);
    const end = Math.min(svid.notAfter.getTime(), bundleEnd.getTime());
    this.expiryTimer = setTimeout(
      () => {
        if (this.context !== context || this.closed) return;
        const refusal = this.refusal(context);
        if (!refusal) return this.armExpiry(context); // a timer capped at MAX_TIMER_MS fired early
        this.context = undefined;
        this.report(refusal);
        for (const l of this.updateListeners) l(undefined);
      },
      Math.min(MAX_TIMER_MS, Math.max(0, end - Date.now())),
    );
    // The controller's other work keeps the process alive; an expiry check alone must not.
    this.expiryTimer.unref();
  }
}

function lastExpiry(authorities: readonly Authority[]): Date {
  return new Date(Math.max(0, ...authorities.map((a) => a.notAfter.getTime())));
}

/** The context with the SVID of `id` first, where it holds one: every reader takes the first SVID as the one presented. */
function preferredFirst(context: X509Context, id: string | undefined): X509Context {
  const i = id === undefined ? -1 : context.svids.findIndex((s) => s.spiffeId === id);
  if (i <= 0) return context;
  return { ...context, svids: [context.svids[i]!, ...context.svids.filter((_, j) => j !== i)] };
}
