import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { KubeConfig } from './connection.js';
import { Backoff } from '../net/backoff.js';
import { ObjectStore, type StoreChange } from './object-store.js';
import { KubeApiError, kubeRequest, kubeStream } from './rest.js';
import { LineSplitter, parseWatchEvent, type WatchEvent } from './watch-events.js';
import { errorMessage } from '../api/errors.js';

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
 * WATCH_TIMEOUT_SECONDS, so this is that plus a margin (client-node's Watch
 * waits 30 s).
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
 * bookmark on a stream of a resource where nothing changed, so every idle
 * informer's stream ends empty, and relisting then would list every pod
 * once per stream.
 */

/** Backoff after an error: from 1 s doubling to this. */
const MAX_BACKOFF_MS = 30_000;

export type RelistReason = 'expired' | 'resource-version-too-large' | 'silent' | 'periodic';

/**
 * Whether a watch ERROR event's Status says our resourceVersion can no
 * longer be watched from, as client-go's reflector reads it: expired (410
 * Gone / Expired: compacted history), or too large (504 Timeout with a
 * ResourceVersionTooLarge cause, or the message older API servers send).
 * Either way the reflector relists; so does ResilientInformer.
 */
export function staleResourceVersion(status: unknown): Exclude<RelistReason, 'silent' | 'periodic'> | undefined {
  if (!status || typeof status !== 'object') return undefined;
  const s = status as { code?: unknown; reason?: unknown; message?: unknown; details?: { causes?: { reason?: unknown; message?: unknown }[] } };
  if (s.code === 410 || s.reason === 'Expired' || s.reason === 'Gone') return 'expired';
  const causes = Array.isArray(s.details?.causes) ? s.details.causes : [];
  if (causes.some((c) => c?.reason === 'ResourceVersionTooLarge' || c?.message === 'Too large resource version')) return 'resource-version-too-large';
  if (s.code === 504 && typeof s.message === 'string' && s.message.includes('Too large resource version')) return 'resource-version-too-large';
  return undefined;
}

/** An empty stream the server ended sooner than this after it opened is followed by a backoff wait (a server or proxy that ends every stream at once). */
const SHORTEST_EMPTY_STREAM_MS = 1000;

/** How long the question "can you serve this resourceVersion?" may take. */
const SERVABLE_TIMEOUT_MS = 15_000;

interface InformerOptions<T extends KubernetesObject> {
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
   * change), with the object the change replaced or removed, when there was
   * one: the cached one for a watch event, and for a relist's object the one
   * the cache it replaces held. So a caller can tell what changed without
   * keeping a copy of every object. `listed`: a list brought the change (the
   * first list, or a relist), not a watch event. A list reports each object
   * as added (to the new cache), except one held at the same
   * resourceVersion; a relist reports no deletes (what went in the gap is
   * missing from the new cache, and onResync follows).
   */
  onChange: (kind: 'add' | 'update' | 'delete', obj: T, previous: T | undefined, listed: boolean) => void;
  /** Trims an object before the cache stores it, in place. Default: stripManagedFields. */
  compact?: (obj: T) => void;
  /** Called when a list (the first, or a relist) has replaced the cache and its changes have been reported. */
  onListed?: () => void;
  /** Called when a relist has replaced the whole cache (after onListed). */
  onResync?: () => void;
  onError?: (err: unknown, retryInMs: number) => void;
  /** Called when the informer starts a relist, with the reason (for metrics; onError has the words). */
  onRelist?: (reason: RelistReason) => void;
  /** Relist when nothing (not even a bookmark) arrived for this long. Default 5 min. */
  silenceMs?: number;
  /**
   * Relist this long after the last list completed, whatever the watch says:
   * the one repair for a watch that goes on in a history other than the one
   * its cache came from (etcd restored without its revision bumped and the
   * old range marked compacted), where the API server answers nothing that
   * would call for a relist. 0 or unset: never.
   */
  relistMs?: number;
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
 * A reflector and its store, as client-go's: list (paged, through `list`),
 * replace the store, watch from the list's resourceVersion with bookmarks,
 * and on each event update the store and report the change with the object
 * it replaced. It does not stay stopped: a failed list or watch is retried
 * with jittered exponential backoff; a stream the server ends is reopened
 * from the last resourceVersion seen; a stalled stream is given up and
 * reopened; and it relists when that resourceVersion cannot be watched from
 * (expired, or ahead of the server, which it asks after a stream that ended
 * empty or a failed watch), after a long silence, and, with relistMs, at
 * that period. The store a relist
 * replaces keeps serving until the new list is complete. One loop does all
 * of it, one step at a time: there is never more than one list or stream.
 */
export class ResilientInformer<T extends KubernetesObject> {
  private store = new ObjectStore<T>();
  /** Where the next watch starts; undefined while a list is due (at start, and from a relist until its list completes). */
  private resourceVersion: string | undefined;
  private synced = false;
  private stopped = true;
  private readonly backoff = new Backoff(1000, MAX_BACKOFF_MS);
  private lastActivity = Date.now();
  /** When the last list completed (the first, or a relist): relistMs counts from it. */
  private listedAt = Date.now();
  private watchdog: NodeJS.Timeout | undefined;
  private stale_: Staleness | undefined;
  /** Aborts the open watch stream. */
  private stream: AbortController | undefined;
  /** Aborted by stop(): ends the requests in flight. */
  private readonly stopping = new AbortController();
  /** Ends the backoff wait under way, if any (stop()). */
  private wake: (() => void) | undefined;
  /** Resolves start() (see there). */
  private started: (() => void) | undefined;

  constructor(
    private readonly kc: KubeConfig,
    private readonly opts: InformerOptions<T>,
  ) {}

  get name(): string {
    return this.opts.name;
  }

  /** True once a list has completed; stays true across relists and failures (the cache keeps serving). */
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
    return this.store.list();
  }

  get(name: string, namespace?: string): T | undefined {
    return this.store.get(name, namespace);
  }

  /**
   * Starts listing and watching. Resolves once the first list has failed
   * (it is retried in the background), or has completed and the first watch
   * has connected or failed: from then on a change to the cluster reaches
   * the cache through the watch or a later list.
   */
  async start(): Promise<void> {
    if (!this.stopped || this.stopping.signal.aborted) return;
    this.stopped = false;
    const silence = this.opts.silenceMs ?? 300_000;
    const every = this.opts.relistMs || Infinity;
    this.watchdog = setInterval(() => {
      if (this.resourceVersion === undefined) return;
      if (Date.now() - this.lastActivity > silence) this.relist('silent', `nothing received for ${Math.round(silence / 1000)} s`);
      else if (Date.now() - this.listedAt >= every) this.relist('periodic', `listed ${Math.round(every / 1000)} s ago`);
    }, Math.min(silence, every, 10_000));
    this.watchdog.unref();
    await new Promise<void>((started) => {
      this.started = started;
      this.run().catch((err: unknown) => {
        this.startedNow();
        this.opts.onError?.(new Error(`${this.opts.name}: the informer stopped: ${errorMessage(err)}`, { cause: err }), 0);
      });
    });
  }

  /** Resolves start(), once. */
  private startedNow(): void {
    this.started?.();
    this.started = undefined;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.watchdog);
    this.stopping.abort(new Error(`${this.opts.name}: informer stopped`));
    this.stream?.abort();
    this.wake?.();
    this.startedNow();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.resourceVersion === undefined) await this.listAndReplace();
      else await this.watchFrom(this.resourceVersion);
    }
  }

  private get compact(): (obj: T) => void {
    return this.opts.compact ?? stripManagedFields;
  }

  /** Lists, then replaces the store with the list and reports what changed; a failure waits out a backoff (the loop lists again). */
  private async listAndReplace(): Promise<void> {
    const compact = this.compact;
    const first = this.synced ? undefined : this.opts.onFirstListPage;
    let paged = false;
    let list: KubernetesListObject<T>;
    try {
      // Each page is compacted as it arrives: a list never holds every object whole.
      list = await this.opts.list((items) => {
        paged = true;
        for (const item of items) compact(item);
        first?.(items);
      });
    } catch (err) {
      this.startedNow();
      await this.failed(err);
      return;
    }
    if (this.stopped) return;
    if (!paged) for (const item of list.items) compact(item);
    const replaced = this.store;
    this.store = new ObjectStore(list.items);
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    const relisted = this.synced;
    this.synced = true;
    this.backoff.reset();
    this.lastActivity = Date.now();
    this.listedAt = this.lastActivity;
    this.stale_ = undefined;
    for (const change of replaced.listedChanges(this.store)) this.report(change, true);
    this.opts.onListed?.();
    if (relisted) this.opts.onResync?.();
  }

  private watchQuery(resourceVersion: string): Record<string, string> {
    // Absent, not undefined or '': requestUrl sets every entry as a query parameter.
    return {
      watch: 'true',
      ...(resourceVersion ? { resourceVersion } : {}),
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(this.opts.watchTimeoutSeconds ?? WATCH_TIMEOUT_SECONDS),
      ...(this.opts.labelSelector ? { labelSelector: this.opts.labelSelector } : {}),
      ...(this.opts.fieldSelector ? { fieldSelector: this.opts.fieldSelector } : {}),
    };
  }

  /** One watch stream from `resourceVersion`, applied to the store event by event, and what its end calls for. */
  private async watchFrom(resourceVersion: string): Promise<void> {
    const stream = new AbortController();
    this.stream = stream;
    const stallMs = this.opts.stallMs ?? WATCH_STALL_MS;
    let stalled = false;
    let stallTimer: NodeJS.Timeout | undefined;
    // Any bytes (an event, a bookmark, part of one) prove the stream alive; the connection itself is timed too.
    const alive = () => {
      clearTimeout(stallTimer);
      stallTimer = setTimeout(() => {
        stalled = true;
        stream.abort(new Error(`${this.opts.name}: watch stream silent for ${stallMs} ms`));
      }, stallMs);
    };
    const opened = Date.now();
    let delivered = 0;
    const apply = (line: string) => {
      const event = parseWatchEvent(line, this.opts.path);
      if (event.type === 'ERROR') return this.watchError(event.object);
      delivered++;
      this.apply(event);
      return true;
    };
    try {
      alive();
      const body = await kubeStream(this.kc, this.opts.path, { query: this.watchQuery(resourceVersion), signal: stream.signal }).finally(() => this.startedNow());
      const lines = new LineSplitter();
      for await (const chunk of body) {
        alive();
        for (const line of lines.push(chunk)) if (!apply(line) || this.stream !== stream) return;
      }
      for (const line of lines.end()) if (!apply(line) || this.stream !== stream) return;
    } catch (err) {
      // Stopped or relisting: the loop goes on from there. Stalled: reopened at once from the same resourceVersion.
      if (this.stopped || this.resourceVersion === undefined || stalled) return;
      const why = err instanceof KubeApiError ? (staleResourceVersion(err.status) ?? (err.statusCode === 410 ? 'expired' : undefined)) : undefined;
      if (why) {
        this.relist(why, errorMessage(err));
        return;
      }
      await this.failed(err);
      await this.servable();
      return;
    } finally {
      clearTimeout(stallTimer);
      if (this.stream === stream) this.stream = undefined;
      stream.abort();
    }
    if (delivered > 0 || this.stopped) return;
    if (Date.now() - opened < SHORTEST_EMPTY_STREAM_MS) await this.pause(this.backoff.next());
    await this.servable();
  }

  /** A watch ERROR event: a relist when the resourceVersion cannot be watched from, else a failure (thrown, so the stream ends and is retried). False: the stream is done. */
  private watchError(status: WatchEvent['object']): false {
    const why = staleResourceVersion(status);
    const message = (status as { message?: unknown }).message;
    const words = `watch ERROR: ${typeof message === 'string' ? message : JSON.stringify(status)}`;
    if (!why) throw new Error(`${this.opts.name}: ${words}`);
    this.relist(why, words);
    return false;
  }

  /** An event or bookmark: the store updated, the change reported, the resourceVersion advanced. */
  private apply(event: WatchEvent): void {
    this.lastActivity = Date.now();
    this.stale_ = undefined;
    this.backoff.reset();
    const obj = event.object as unknown as T;
    const rv = obj.metadata?.resourceVersion;
    let change: StoreChange<T> | undefined;
    if (event.type !== 'BOOKMARK') {
      this.compact(obj);
      change = event.type === 'DELETED' ? this.store.remove(obj) : this.store.put(obj);
    }
    // Before the change is reported: a handler may start a relist, which this must not undo.
    if (rv) this.resourceVersion = rv;
    if (change) this.report(change, false);
  }

  private report(change: StoreChange<T>, listed: boolean): void {
    try {
      this.opts.onChange(change.kind, change.obj, change.previous, listed);
    } catch (err) {
      const m = change.obj.metadata;
      this.opts.onError?.(new Error(`${this.opts.name}: the change handler failed on the ${change.kind} of ${m?.namespace ? `${m.namespace}/` : ''}${m?.name}: ${errorMessage(err)}`, { cause: err }), 0);
    }
  }

  private markStale(reason: string): void {
    this.stale_ ??= { since: Date.now(), reason };
    this.stale_.reason = reason;
  }

  /** A failed list or watch: the cache may be stale, the caller is told, and the loop waits a jittered backoff. */
  private async failed(err: unknown): Promise<void> {
    const ceiling = this.backoff.next();
    const wait = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
    this.markStale(errorMessage(err));
    this.opts.onError?.(err, wait);
    await this.pause(wait);
  }

  private pause(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /**
   * Asks the API server whether it can serve the resourceVersion the next
   * watch starts from (see the comment at the top), and relists when it says
   * it cannot. Any other answer, an error included, lets the watch go on:
   * the watch then tells.
   */
  private async servable(): Promise<void> {
    const rv = this.resourceVersion;
    if (!rv || this.stopped) return;
    try {
      const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(SERVABLE_TIMEOUT_MS)]);
      await kubeRequest(this.kc, 'GET', this.opts.path, { query: { limit: '1', resourceVersion: rv, resourceVersionMatch: 'NotOlderThan' }, signal });
    } catch (err) {
      const why = err instanceof KubeApiError ? staleResourceVersion(err.status) : undefined;
      if (why && this.resourceVersion === rv) this.relist(why, `the API server cannot serve resourceVersion ${rv} (${errorMessage(err)})`);
    }
  }

  /**
   * Lists afresh and then watches from the new list's resourceVersion: the
   * open stream ends now, and the loop lists next. The store keeps serving
   * until the new list is complete: a pass that saw a half-empty cache would
   * plan deletes for everything missing. A periodic relist is routine, not a
   * fault: nothing says the cache is behind, so it is neither an error nor
   * staleness (only onRelist hears of it).
   */
  private relist(reason: RelistReason, words: string): void {
    if (this.stopped || this.resourceVersion === undefined) return;
    this.opts.onRelist?.(reason);
    if (reason !== 'periodic') {
      this.opts.onError?.(new Error(`${this.opts.name}: ${words}; relisting`), 0);
      this.markStale(words);
    }
    this.lastActivity = Date.now();
    this.resourceVersion = undefined;
    this.stream?.abort();
  }
}
