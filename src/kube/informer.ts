import { type KubeConfig, type KubernetesListObject, type KubernetesObject, ListWatch, Watch } from '@kubernetes/client-node';
import { Backoff } from '../net/backoff.js';

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
 * client-node's Watch, asking for bookmarks (so a quiet resource's
 * resourceVersion stays fresh and a reconnect rarely needs a relist) and for
 * server-side stream rotation, and compacting an object (at least dropping
 * its managedFields) before the cache stores it.
 */
class BookmarkWatch extends Watch {
  constructor(
    kc: KubeConfig,
    private readonly timeoutSeconds: number,
    private readonly onActivity: () => void,
    private readonly compact: (obj: KubernetesObject) => void,
  ) {
    super(kc);
  }

  override watch(
    path: string,
    queryParams: Record<string, unknown>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    return super.watch(
      path,
      { ...queryParams, allowWatchBookmarks: true, timeoutSeconds: this.timeoutSeconds },
      (phase, obj, raw) => {
        this.onActivity();
        if (obj && typeof obj === 'object') this.compact(obj as KubernetesObject);
        callback(phase, obj, raw);
      },
      done,
    );
  }
}

/** Server-side rotation of each watch stream. */
const WATCH_TIMEOUT_SECONDS = 300;
/** Backoff after an error: from 1 s doubling to this. */
const MAX_BACKOFF_MS = 30_000;

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
  /** Called on every add, update and delete (after the cache holds the change). */
  onChange: (kind: 'add' | 'update' | 'delete', obj: T) => void;
  /** Trims an object before the cache stores it, in place. Default: stripManagedFields. */
  compact?: (obj: T) => void;
  /** Called when a relist has replaced the whole cache. */
  onResync?: () => void;
  onError?: (err: unknown, retryInMs: number) => void;
  /** Relist when nothing (not even a bookmark) arrived for this long. Default 5 min. */
  silenceMs?: number;
}

/**
 * An informer that does not stay stopped. client-node's ListWatch stops for
 * good on any list or watch error other than 410; this one restarts it with
 * jittered exponential backoff (single-flight), relists after a silence
 * (a stalled stream), and reports whether the initial list has completed.
 */
export class ResilientInformer<T extends KubernetesObject> {
  private lw: ListWatch<T> | undefined;
  private synced = false;
  private stopped = true;
  private readonly backoff = new Backoff(1000, MAX_BACKOFF_MS);
  private lastActivity = Date.now();
  private retry: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;

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
      if (!this.stopped && Date.now() - this.lastActivity > silence) void this.relist('watch silent');
    }, Math.min(silence, 10_000));
    this.watchdog.unref();
    await this.lw.start();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    // A relist in progress stops itself when it finds us stopped.
    clearInterval(this.watchdog);
    void this.lw?.stop();
  }

  private makeListWatch(onListed?: () => void): ListWatch<T> {
    const touch = () => {
      this.lastActivity = Date.now();
    };
    const compact = this.opts.compact ?? stripManagedFields;
    const first = this.opts.onFirstListPage;
    const list = async () => {
      const firstList = first !== undefined && !this.synced;
      // Each page is compacted as it arrives: a list never holds every object whole.
      const result = await this.opts.list((items) => {
        for (const item of items) compact(item);
        if (firstList) first(items);
      });
      this.synced = true;
      this.backoff.reset();
      touch();
      onListed?.();
      return result;
    };
    const lw = new ListWatch<T>(
      this.opts.path,
      new BookmarkWatch(this.kc, WATCH_TIMEOUT_SECONDS, touch, compact as (obj: KubernetesObject) => void),
      list,
      false,
      this.opts.labelSelector,
      this.opts.fieldSelector,
    );
    lw.on('add', (obj) => this.opts.onChange('add', obj));
    lw.on('update', (obj) => this.opts.onChange('update', obj));
    lw.on('delete', (obj) => this.opts.onChange('delete', obj));
    lw.on('connect', touch);
    lw.on('error', (err) => this.failed(lw, err));
    return lw;
  }

  private failed(lw: ListWatch<T>, err: unknown): void {
    if (this.stopped || lw !== this.lw || this.retry) return;
    const ceiling = this.backoff.next();
    const wait = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
    this.opts.onError?.(err, wait);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.stopped || lw !== this.lw) return;
      // Restarting keeps the resourceVersion, so a short outage resumes the watch without a relist.
      void lw.start();
    }, wait);
  }

  /**
   * Replaces the ListWatch with a fresh one (a full list, then a new watch).
   * The old cache keeps serving until the new list is complete: a pass that
   * saw a half-empty cache would plan deletes for everything missing.
   */
  private relist(why: string): void {
    this.opts.onError?.(new Error(`${this.opts.name}: ${why}; relisting`), 0);
    this.lastActivity = Date.now();
    // ListWatch fills its cache right after the list resolves, before it opens the watch
    // (which may not connect at all on a stalled server): swap on the next turn.
    const fresh: ListWatch<T> = this.makeListWatch(() => setImmediate(() => this.swap(fresh)));
    void fresh.start();
  }

  private swap(fresh: ListWatch<T>): void {
    if (this.stopped) {
      void fresh.stop();
      return;
    }
    if (this.lw === fresh) return;
    const old = this.lw;
    this.lw = fresh;
    void old?.stop();
    this.opts.onResync?.();
  }
}
