import { type KubeConfig, type KubernetesListObject, type KubernetesObject, ListWatch, Watch } from '@kubernetes/client-node';
import { Backoff } from '../net/backoff.js';
import { KubeApiError, kubeRequest } from './rest.js';

/** Cached objects drop managedFields: nothing reads them, and on pods they are most of the bytes. */
export function stripManagedFields<T extends KubernetesObject>(obj: T): T {
  if (obj.metadata?.managedFields) delete obj.metadata.managedFields;
  return obj;
}

/**
 * What the cache keeps of a pod: templates read only its metadata and spec,
 * and the engine only status.phase (terminal pods get no entry). The rest
 * of the status (conditions, container statuses, IPs) is a large share of a
 * real pod and changes all the time.
 */
export function compactPod<T extends KubernetesObject & { status?: { phase?: string } }>(obj: T): T {
  stripManagedFields(obj);
  if (obj.status) obj.status = obj.status.phase === undefined ? {} : { phase: obj.status.phase };
  return obj;
}

/**
 * Server-side rotation of each watch stream. The API server ends a stream
 * after timeoutSeconds and, when bookmarks are asked for, sends one 2 s
 * before that end (its cacher's rule) carrying the current resourceVersion,
 * so the next stream resumes from there without a relist. A short rotation
 * bounds how long a healthy stream can stay silent, which is what lets a
 * stalled one be told apart quickly (WATCH_STALL_MS).
 */
export const WATCH_TIMEOUT_SECONDS = 10;

/**
 * A stream that has sent nothing (no event, no bookmark) and not ended for
 * this long is stalled (a half-open connection, a frozen proxy): it is given
 * up and a new one opened at once, from the same resourceVersion. A healthy
 * stream either sends its pre-end bookmark or ends within
 * WATCH_TIMEOUT_SECONDS, so this is that plus a margin; client-node alone
 * waits 30 s.
 */
export const WATCH_STALL_MS = 15_000;

/*
 * A watch from a resourceVersion the API server has not reached (etcd
 * restored from a backup) is accepted and sends nothing, not even bookmarks,
 * until the server gets there: then it goes on in a different history,
 * having missed everything in between. So after a stream that ended having
 * delivered nothing, and before resuming after a failed watch (an
 * API server restarting is how a restore shows), the informer asks the
 * server whether it can serve its resourceVersion: a one-item list at that
 * version. "Too large resource version" (504) or "Expired" (410) relists.
 * An empty stream alone is no reason to relist: kube-apiserver sends no
 * bookmark on a stream of a resource where nothing changed (measured on
 * v1.36.3: every idle informer's stream ended empty), and relisting every
 * third stream would list 100,000 pods every 30 s.
 */

/** Backoff after an error: from 1 s doubling to this. */
const MAX_BACKOFF_MS = 30_000;

export type RelistReason = 'expired' | 'resource-version-too-large' | 'silent';

/**
 * Whether a watch ERROR event's Status says our resourceVersion can no
 * longer be watched from, as client-go's reflector reads it: expired (410
 * Gone / Expired: compacted history), or too large (504 Timeout with a
 * ResourceVersionTooLarge cause, or the message older API servers send).
 * Either way the reflector relists; so does ResilientInformer.
 */
export function staleResourceVersion(status: unknown): Exclude<RelistReason, 'silent'> | undefined {
  if (!status || typeof status !== 'object') return undefined;
  const s = status as { code?: unknown; reason?: unknown; message?: unknown; details?: { causes?: { reason?: unknown; message?: unknown }[] } };
  if (s.code === 410 || s.reason === 'Expired' || s.reason === 'Gone') return 'expired';
  const causes = Array.isArray(s.details?.causes) ? s.details.causes : [];
  if (causes.some((c) => c?.reason === 'ResourceVersionTooLarge' || c?.message === 'Too large resource version')) return 'resource-version-too-large';
  if (s.code === 504 && typeof s.message === 'string' && s.message.includes('Too large resource version')) return 'resource-version-too-large';
  return undefined;
}

interface StreamHooks {
  /** An event or a bookmark arrived. */
  onData(): void;
  /** An event's object is about to be applied to the cache. */
  beforeApply(obj: KubernetesObject): void;
  /** An ERROR event arrived, with its Status. */
  onErrorEvent(status: unknown): void;
  /** A stream ended cleanly, having delivered this many events and bookmarks. */
  onCleanEnd(delivered: number): void;
}

/**
 * client-node's Watch, asking for bookmarks (so a quiet resource's
 * resourceVersion stays fresh and a reconnect rarely needs a relist) and for
 * server-side stream rotation every WATCH_TIMEOUT_SECONDS, giving up a
 * silent stream after `stallMs`, and compacting an object (at least dropping
 * its managedFields) before the cache stores it.
 */
class BookmarkWatch extends Watch {
  constructor(
    kc: KubeConfig,
    private readonly timeoutSeconds: number,
    stallMs: number,
    private readonly hooks: StreamHooks,
    private readonly compact: (obj: KubernetesObject) => void,
  ) {
    super(kc);
    // client-node's inactivity timeout (private in its types, 30 s by default): a stream that
    // sends nothing for this long ends with a TimeoutError, and ListWatch reconnects at once.
    (this as unknown as { requestTimeoutMs: number }).requestTimeoutMs = stallMs;
  }

  override watch(
    path: string,
    queryParams: Record<string, unknown>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    let delivered = 0;
    return super.watch(
      path,
      { ...queryParams, allowWatchBookmarks: true, timeoutSeconds: this.timeoutSeconds },
      (phase, obj, raw) => {
        if (phase === 'ERROR') this.hooks.onErrorEvent(obj);
        else {
          delivered++;
          this.hooks.onData();
          if (obj && typeof obj === 'object') {
            this.compact(obj as KubernetesObject);
            this.hooks.beforeApply(obj as KubernetesObject);
          }
        }
        callback(phase, obj, raw);
      },
      (err) => {
        if (!err) this.hooks.onCleanEnd(delivered);
        done(err);
      },
    );
  }
}

export interface InformerOptions<T extends KubernetesObject> {
  /** A short name for logs and readiness, e.g. "pods". */
  name: string;
  /** The watch path, e.g. /api/v1/pods. */
  path: string;
  /** Narrows the watch (the list is `list`'s: give it the same selectors). */
  labelSelector?: string;
  fieldSelector?: string;
  /** Lists every object, calling `onPage` with each page's items as they arrive (before the next page is read). */
  list: (onPage: (items: T[]) => void) => Promise<KubernetesListObject<T>>;
  /**
   * Sees each page of the first list as it arrives, compacted, before the
   * cache holds any of it (and before hasSynced): work can start on the
   * first pages while the rest are listed. Relists do not call it.
   */
  onFirstListPage?: (items: T[]) => void;
  /**
   * Called on every add, update and delete (after the cache holds the
   * change), with the object the change replaced, when there was one: the
   * cached one for a watch event, and for a relist's object the one the cache
   * it replaces held. So a caller can tell what changed without keeping a
   * copy of every object. `listed`: a list brought the change (the first
   * list, or a relist), not a watch event.
   */
  onChange: (kind: 'add' | 'update' | 'delete', obj: T, previous: T | undefined, listed: boolean) => void;
  /** Trims an object before the cache stores it, in place. Default: stripManagedFields. */
  compact?: (obj: T) => void;
  /** Called when a relist has replaced the whole cache. */
  onResync?: () => void;
  onError?: (err: unknown, retryInMs: number) => void;
  /** Called when the informer starts a relist, with the reason (for metrics; onError has the words). */
  onRelist?: (reason: RelistReason) => void;
  /** Relist when nothing (not even a bookmark) arrived for this long. Default 5 min. */
  silenceMs?: number;
  /** Give up a stream silent for this long (see WATCH_STALL_MS). */
  stallMs?: number;
  /** Server-side rotation of each stream (see WATCH_TIMEOUT_SECONDS). */
  watchTimeoutSeconds?: number;
}

/** Since when, and why, an informer's cache may not be current. */
export interface Staleness {
  since: number;
  reason: string;
}

/**
 * An informer that does not stay stopped. client-node's ListWatch stops for
 * good on any list or watch error other than 410; this one restarts it with
 * jittered exponential backoff (single-flight), relists as client-go's
 * reflector does when the resourceVersion cannot be watched from (expired,
 * or ahead of the server, which it asks after a stream that ended empty),
 * relists after a long silence, and reports whether the initial list
 * has completed and whether the cache may be stale.
 */
export class ResilientInformer<T extends KubernetesObject> {
  /** The ListWatch whose cache is served. */
  private lw: ListWatch<T> | undefined;
  /** A relist in progress: its list replaces `lw` once complete. */
  private fresh: ListWatch<T> | undefined;
  private synced = false;
  private stopped = true;
  private readonly backoff = new Backoff(1000, MAX_BACKOFF_MS);
  private lastActivity = Date.now();
  private watchdog: NodeJS.Timeout | undefined;
  private stale_: Staleness | undefined;

  constructor(
    private readonly kc: KubeConfig,
    private readonly opts: InformerOptions<T>,
  ) {}

  get name(): string {
    return this.opts.name;
  }

  /** True once a list has completed; stays true across restarts (the cache keeps serving). */
  get hasSynced(): boolean {
    return this.synced;
  }

  /**
   * Set while the cache may not be current: from a list or watch failure, a
   * resourceVersion the server cannot watch from, or a silence, until a list
   * completes or the watch delivers again.
   */
  get staleness(): Staleness | undefined {
    return this.stale_;
  }

  list(): readonly T[] {
    return this.lw?.list() ?? [];
  }

  get(name: string, namespace?: string): T | undefined {
    return this.lw?.get(name, namespace);
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.lw = this.makeListWatch();
    const silence = this.opts.silenceMs ?? 300_000;
    this.watchdog = setInterval(() => {
      if (!this.stopped && !this.fresh && Date.now() - this.lastActivity > silence) this.relist('silent', `nothing received for ${Math.round(silence / 1000)} s`);
    }, Math.min(silence, 10_000));
    this.watchdog.unref();
    await this.lw.start();
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.retries.values()) clearTimeout(t);
    this.retries.clear();
    clearInterval(this.watchdog);
    void this.lw?.stop();
    void this.fresh?.stop();
  }

  private markStale(reason: string): void {
    this.stale_ ??= { since: Date.now(), reason };
    this.stale_.reason = reason;
  }

  private makeListWatch(): ListWatch<T> {
    const compact = this.opts.compact ?? stripManagedFields;
    const first = this.opts.onFirstListPage;
    // The object the change being applied replaces. ListWatch reports an add or update after storing the new
    // object, so the old one is looked up before: for a watch event, just before it is applied; for a list,
    // in the cache the list replaces (the served one for a relist, or this one's own, copied, when it lists
    // again itself after an expired watch).
    let replaced: ((obj: T) => T | undefined) | undefined;
    // Whether the changes being applied are a list's (set as `replaced` is, for the same span).
    let listed = false;
    const keyOf = (obj: KubernetesObject) => `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
    const cached = (cache: ListWatch<T> | Map<string, T>, obj: KubernetesObject) => (cache instanceof Map ? cache.get(keyOf(obj)) : cache.get(obj.metadata?.name ?? '', obj.metadata?.namespace));
    // The closures below read `lw`, assigned at the end: they run only once it is started.
    const list = async () => {
      const firstList = first !== undefined && !this.synced;
      // Each page is compacted as it arrives: a list never holds every object whole.
      const result = await this.opts.list((items) => {
        for (const item of items) compact(item);
        if (firstList) first(items);
      });
      const own = lw === this.fresh ? undefined : lw.list();
      const old = own === undefined ? this.lw : own.length > 0 ? new Map(own.map((o) => [keyOf(o), o])) : undefined;
      const fromList = old ? (obj: T) => cached(old, obj) as T | undefined : undefined;
      replaced = fromList;
      listed = true;
      // ListWatch applies the list once this resolves, before anything else runs: then the copy can go.
      setImmediate(() => {
        if (replaced === fromList) replaced = undefined;
        listed = false;
      });
      this.synced = true;
      this.backoff.reset();
      this.lastActivity = Date.now();
      this.stale_ = undefined;
      // A relist's ListWatch fills its cache right after the list resolves, before it opens the
      // watch (which may not connect at all on a stalled server): take it over on the next turn.
      if (lw === this.fresh) setImmediate(() => this.swap(lw));
      return result;
    };
    const hooks: StreamHooks = {
      beforeApply: (obj) => {
        const old = cached(lw, obj) as T | undefined;
        replaced = () => old;
        listed = false;
      },
      onData: () => {
        if (lw !== this.lw) return;
        this.lastActivity = Date.now();
          this.stale_ = undefined;
      },
      onErrorEvent: (status) => {
        if (lw !== this.lw) return;
        const why = staleResourceVersion(status);
        const message = (status as { message?: unknown } | undefined)?.message;
        const words = `watch ERROR: ${typeof message === 'string' ? message : JSON.stringify(status)}`;
        if (why) this.relist(why, words);
        else this.opts.onError?.(new Error(`${this.opts.name}: ${words}`), 0);
      },
      onCleanEnd: (delivered) => {
        if (lw !== this.lw || this.fresh) return;
        if (delivered === 0) void this.servable(lw);
      },
    };
    const watch = new BookmarkWatch(this.kc, this.opts.watchTimeoutSeconds ?? WATCH_TIMEOUT_SECONDS, this.opts.stallMs ?? WATCH_STALL_MS, hooks, compact as (obj: KubernetesObject) => void);
    const lw: ListWatch<T> = new ListWatch<T>(this.opts.path, watch, list, false, this.opts.labelSelector, this.opts.fieldSelector);
    // A relist's list reports what it adds or changes too: the caller compares each with what it saw.
    lw.on('add', (obj) => this.opts.onChange('add', obj, replaced?.(obj), listed));
    lw.on('update', (obj) => this.opts.onChange('update', obj, replaced?.(obj), listed));
    lw.on('delete', (obj) => this.opts.onChange('delete', obj, undefined, listed));
    lw.on('error', (err) => this.failed(lw, err));
    return lw;
  }

  /** One restart pending per ListWatch (the served one and a relist can both fail). */
  private readonly retries = new Map<ListWatch<T>, NodeJS.Timeout>();

  private failed(lw: ListWatch<T>, err: unknown): void {
    if (this.stopped || this.retries.has(lw) || (lw !== this.lw && lw !== this.fresh)) return;
    const ceiling = this.backoff.next();
    const wait = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
    this.markStale(err instanceof Error ? err.message : String(err));
    this.opts.onError?.(err, wait);
    const timer = setTimeout(() => {
      this.retries.delete(lw);
      if (this.stopped) return;
      // A relist whose list failed starts over; the served ListWatch restarts from its
      // resourceVersion, so a short outage resumes the watch without a relist.
      if (lw === this.fresh) this.startFresh();
      else if (lw === this.lw) {
        void this.servable(lw).then((ok) => {
          if (ok && lw === this.lw && !this.stopped) void lw.start();
        });
      }
    }, wait);
    this.retries.set(lw, timer);
  }

  /**
   * Whether the API server can serve the served ListWatch's resourceVersion
   * (see the comment at the top); relists when it says it cannot. Any
   * other answer, an error included, counts as yes: the watch then tells.
   */
  private async servable(lw: ListWatch<T>): Promise<boolean> {
    const rv = lw.latestResourceVersion();
    if (!rv) return true;
    try {
      await kubeRequest(this.kc, 'GET', this.opts.path, { query: { limit: '1', resourceVersion: rv, resourceVersionMatch: 'NotOlderThan' }, signal: AbortSignal.timeout(15_000) });
      return true;
    } catch (err) {
      const why = err instanceof KubeApiError ? staleResourceVersion(err.status) : undefined;
      if (!why) return true;
      if (lw === this.lw && !this.stopped) this.relist(why, `the API server cannot serve resourceVersion ${rv} (${(err as Error).message})`);
      return false;
    }
  }

  /**
   * Lists afresh and then watches from the new list's resourceVersion. The
   * old cache keeps serving until the new list is complete: a pass that saw
   * a half-empty cache would plan deletes for everything missing. When the
   * old resourceVersion is known to be unusable (expired, or ahead of the
   * server), the old ListWatch stops watching at once.
   */
  private relist(reason: RelistReason, words: string): void {
    if (this.stopped || this.fresh) return;
    this.opts.onError?.(new Error(`${this.opts.name}: ${words}; relisting`), 0);
    this.opts.onRelist?.(reason);
    this.markStale(words);
    this.lastActivity = Date.now();
    if (reason !== 'silent') void this.lw?.stop();
    this.startFresh();
  }

  private startFresh(): void {
    this.fresh = this.makeListWatch();
    void this.fresh.start();
  }

  private swap(fresh: ListWatch<T>): void {
    if (this.fresh !== fresh) return;
    this.fresh = undefined;
    if (this.stopped) {
      void fresh.stop();
      return;
    }
    const old = this.lw;
    this.lw = fresh;
    void old?.stop();
    this.opts.onResync?.();
  }
}
