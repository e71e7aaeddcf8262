/**
 * Fault injection: the failures a controller meets on real clusters (dropped
 * and stalled watch streams, 5xx and throttling, compacted history), on
 * demand and deterministic.
 */
import { injectedFailure, KubeApiError } from './errors.js';
import type { Store, StoreBackup } from './store.js';
import type { WatchStream } from './watch.js';

export interface FailureMatch {
  method?: string;
  /** A substring of the request path (no query), e.g. '/pods' or '/status'. */
  pathIncludes?: string;
  /** A substring of the query string, e.g. 'continue=' for the pages of a list after the first. */
  queryIncludes?: string;
  /** The bearer token the request carries: one client of several (see kubeConfig's token). */
  token?: string;
}

interface FailureRule {
  remaining: number;
  /** A status to answer with, or a hold: the request is answered as usual once it resolves (perhaps never). */
  status: 500 | 429 | 503 | { hold: Promise<void> } | { forbidden: string };
  match: FailureMatch;
}

export interface Faults {
  /** Ends every open watch stream now, cleanly (the client sees the body end and reconnects). */
  dropWatches(opts?: { reset?: boolean }): void;
  /**
   * Keeps the open watch streams connected but silent (no events, no
   * bookmarks) for `ms`, then delivers what queued up; 'forever' never
   * resumes. Streams opened later are not affected, as with a half-open
   * connection that the client abandons. A later call replaces the stall of
   * the streams it reaches, so `stallWatches(0)` resumes them now.
   */
  stallWatches(ms: number | 'forever'): void;
  /** Answers the next `n` matching requests with `status` and a Status body (429 adds Retry-After: 1). */
  failNext(n: number, status: 500 | 429 | 503, match?: FailureMatch): void;
  /**
   * Holds the next `n` matching requests unanswered, as a server or path that
   * has stopped responding: only the client's own deadline ends them. The
   * returned function lets them through (handled and answered as usual),
   * for a request that is slow rather than lost; unreleased, they wait until
   * the server closes.
   */
  hangNext(n: number, match?: FailureMatch): () => void;
  /**
   * Answers every matching request, from now on, 403 Forbidden with `message` (say what RBAC
   * would: `endpointslices.discovery.k8s.io is forbidden: User "..." cannot list resource ...`),
   * as an API server does for a client whose role lacks the permission.
   */
  forbid(match: FailureMatch, message?: string): void;
  /** Compacts history: watches and exact lists from any older resourceVersion get 410; open watches get an ERROR 410 and close. */
  expireResourceVersions(): void;
  /** Takes a backup of the store, for restoreBackup. */
  backup(): StoreBackup;
  /**
   * The API server comes back on etcd restored from `b`: objects as they
   * were, the resourceVersion counter back at the backup's (lower than what
   * clients hold), every open watch dropped (the API server restarted). As
   * the real server does, a plain watch from a resourceVersion ahead of it is
   * accepted and stays silent until the store passes it; a list or a
   * sendInitialEvents watch from one answers 504 "Too large resource version".
   */
  restoreBackup(b: StoreBackup): void;
}

export class FaultInjector implements Faults {
  private readonly rules: FailureRule[] = [];

  constructor(
    private readonly store: Store,
    private readonly watches: () => Iterable<WatchStream>,
  ) {}

  dropWatches(opts: { reset?: boolean } = {}): void {
    for (const w of [...this.watches()]) w.drop(opts.reset ?? false);
  }

  stallWatches(ms: number | 'forever'): void {
    for (const w of this.watches()) w.stall(ms);
  }

  failNext(n: number, status: 500 | 429 | 503, match: FailureMatch = {}): void {
    this.rules.push({ remaining: n, status, match });
  }

  hangNext(n: number, match: FailureMatch = {}): () => void {
    let release = (): void => {};
    const hold = new Promise<void>((r) => (release = r));
    this.rules.push({ remaining: n, status: { hold }, match });
    return release;
  }

  forbid(match: FailureMatch, message = 'forbidden by the test'): void {
    this.rules.push({ remaining: Number.POSITIVE_INFINITY, status: { forbidden: message }, match });
  }

  expireResourceVersions(): void {
    this.store.compact();
    for (const w of [...this.watches()]) w.expire();
  }

  backup(): StoreBackup {
    return this.store.backup();
  }

  restoreBackup(b: StoreBackup): void {
    this.store.restore(b);
    for (const w of [...this.watches()]) w.drop(true);
  }

  /** The injected failure for this request, if a rule matches (and uses one of its count). */
  take(method: string, path: string, query = '', authorization = ''): KubeApiError | { hold: Promise<void> } | undefined {
    for (const rule of this.rules) {
      if (rule.remaining <= 0) continue;
      if (rule.match.method && rule.match.method.toUpperCase() !== method.toUpperCase()) continue;
      if (rule.match.pathIncludes && !path.includes(rule.match.pathIncludes)) continue;
      if (rule.match.queryIncludes && !query.includes(rule.match.queryIncludes)) continue;
      if (rule.match.token !== undefined && authorization !== `Bearer ${rule.match.token}`) continue;
      rule.remaining--;
      if (typeof rule.status !== 'object') return injectedFailure(rule.status);
      return 'forbidden' in rule.status ? new KubeApiError(403, 'Forbidden', rule.status.forbidden) : rule.status;
    }
    return undefined;
  }
}
