/**
 * One watch stream: newline-delimited JSON events over a chunked HTTP
 * response, as the API server sends them. Handles the starting point
 * (current state, replay from a resourceVersion, or 410 for a compacted one),
 * selector transitions, bookmarks, timeoutSeconds, and the faults tests
 * inject (stall, drop, expire).
 */
import type { ServerResponse } from 'node:http';
import { expired, type KubeStatus } from './errors.js';
import type { ResourceType } from './resources.js';
import type { FieldMatcher, LabelMatcher } from './selectors.js';
import type { Store, StoreEvent } from './store.js';
import type { KubeObject } from './types.js';

export interface WatchParams {
  resource: ResourceType;
  /** Only this namespace; undefined watches all namespaces (or a cluster-scoped type). */
  namespace?: string;
  labels?: LabelMatcher;
  fields?: FieldMatcher;
  /** The resourceVersion query parameter as given ('' when absent). */
  resourceVersion: string;
  allowBookmarks: boolean;
  sendInitialEvents: boolean;
  timeoutSeconds?: number;
  /** The stream is one ERROR event with this Status, then ends (a watch that failed once accepted). */
  error?: KubeStatus;
}

/** Stored objects are immutable, so each one is serialized once however many watchers see it. */
const serialized = new WeakMap<KubeObject, string>();

function jsonOf(obj: KubeObject): string {
  let s = serialized.get(obj);
  if (s === undefined) {
    s = JSON.stringify(obj);
    serialized.set(obj, s);
  }
  return s;
}

export class WatchStream {
  private queue: string[] = [];
  private stalled = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private bookmarkTimer: NodeJS.Timeout | undefined;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  /** The resourceVersion the stream started from; nothing at or below it is sent. */
  private from = 0;
  /** The store's resourceVersion at the last event or bookmark this stream was given. */
  private progressSent = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly store: Store,
    private readonly params: WatchParams,
    private readonly bookmarkIntervalMs: number,
    private readonly onClose: (w: WatchStream) => void,
  ) {}

  /** Sends the headers at once: client-node's Watch only reports a connection once the response starts. */
  start(): void {
    const { res, params, store } = this;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    res.on('close', () => this.cleanup());

    if (params.error) {
      this.write(`{"type":"ERROR","object":${JSON.stringify(params.error)}}\n`);
      this.end();
      return;
    }
    const rv = params.resourceVersion;
    if (params.sendInitialEvents || rv === '' || rv === '0') {
      // "Get state and start at most recent": synthetic ADDED events for what exists now.
      for (const obj of store.list(params.resource, params.namespace)) {
        if (this.matches(obj)) this.send('ADDED', obj);
      }
      if (params.sendInitialEvents && params.allowBookmarks) {
        this.bookmark({ 'k8s.io/initial-events-end': 'true' });
      }
    } else {
      const from = Number(rv);
      if (from < store.oldestResourceVersion) {
        this.expire(from);
        return;
      }
      for (const ev of store.eventsAfter(from)) this.deliver(ev);
      // From a version the store has not reached (it was restored from a backup), events up to it
      // are not sent, as the API server's cache sends a watcher only what is newer than its start.
      this.from = from;
    }
    // Subscribing in the same tick as the replay: no event can fall between the two.
    this.unsubscribe = store.subscribe((ev) => this.deliver(ev));
    if (params.allowBookmarks && this.bookmarkIntervalMs > 0) {
      // Periodic bookmarks report progress, so none while nothing has changed since the last
      // one: kube-apiserver v1.36.3 sends none on an idle stream (test/real/idle-watch.test.ts).
      this.progressSent = Math.max(this.progressSent, this.store.resourceVersion);
      this.bookmarkTimer = setInterval(() => {
        if (this.store.resourceVersion > this.progressSent) this.bookmark();
      }, this.bookmarkIntervalMs);
      this.bookmarkTimer.unref();
    }
    if (params.timeoutSeconds !== undefined && params.timeoutSeconds > 0) {
      // The server ends the stream cleanly when the client's timeoutSeconds is up.
      this.timeoutTimer = setTimeout(() => this.end(), params.timeoutSeconds * 1000);
      this.timeoutTimer.unref();
    }
  }

  get resource(): ResourceType {
    return this.params.resource;
  }

  /** A BOOKMARK carrying the current resourceVersion; every event up to it has been sent. */
  bookmark(annotations?: Record<string, string>): void {
    if (this.closed || this.stalled || !this.params.allowBookmarks) return;
    // A bookmark never takes a watcher back: the server's cache sends none older than the watch's start.
    if (this.store.resourceVersion < this.from) return;
    this.progressSent = this.store.resourceVersion;
    const r = this.params.resource;
    const object = {
      kind: r.kind,
      apiVersion: r.apiVersion,
      metadata: { resourceVersion: String(this.store.resourceVersion), ...(annotations ? { annotations } : {}) },
    };
    this.write(`{"type":"BOOKMARK","object":${JSON.stringify(object)}}\n`);
  }

  /** Keeps the connection open but sends nothing (events queue up) until `ms` pass; 'forever' never resumes. */
  stall(ms: number | 'forever'): void {
    if (this.closed) return;
    clearTimeout(this.stallTimer);
    this.stalled = true;
    if (ms === 'forever') return;
    this.stallTimer = setTimeout(() => {
      this.stalled = false;
      const pending = this.queue;
      this.queue = [];
      for (const line of pending) this.write(line);
    }, ms);
    this.stallTimer.unref();
  }

  /**
   * The history this stream would need is gone: queued events are dropped,
   * an ERROR event with a 410 Status is sent and the stream ends, as the API
   * server does for a watch from a compacted resourceVersion.
   */
  expire(from?: number): void {
    if (this.closed) return;
    this.queue = [];
    this.stalled = false;
    const requested = from ?? Number(this.params.resourceVersion);
    const status: KubeStatus = expired(`too old resource version: ${requested} (${this.store.oldestResourceVersion})`).status;
    this.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
    this.end();
  }

  /** Ends the stream: cleanly (the client sees the body end) or by resetting the connection. */
  drop(reset = false): void {
    if (this.closed) return;
    if (reset) this.res.socket?.destroy();
    else this.end();
  }

  end(): void {
    if (this.closed) return;
    this.res.end();
    this.cleanup();
  }

  private matches(obj: KubeObject): boolean {
    const { namespace, labels, fields } = this.params;
    if (namespace !== undefined && obj.metadata.namespace !== namespace) return false;
    if (labels && !labels(obj.metadata.labels)) return false;
    if (fields && !fields(obj)) return false;
    return true;
  }

  /**
   * As the API server's watch cache does: an object that starts matching the
   * selectors arrives as ADDED, one that stops matching as DELETED.
   */
  private deliver(ev: StoreEvent): void {
    if (ev.resource !== this.params.resource || ev.rv <= this.from) return;
    const now = this.matches(ev.object);
    switch (ev.type) {
      case 'ADDED':
        if (now) this.send('ADDED', ev.object);
        break;
      case 'MODIFIED': {
        const before = ev.prev ? this.matches(ev.prev) : false;
        if (before && now) this.send('MODIFIED', ev.object);
        else if (now) this.send('ADDED', ev.object);
        else if (before) this.send('DELETED', ev.object);
        break;
      }
      case 'DELETED':
        if (this.matches(ev.prev ?? ev.object)) this.send('DELETED', ev.object);
        break;
    }
  }

  private send(type: string, obj: KubeObject): void {
    this.progressSent = Math.max(this.progressSent, Number(obj.metadata?.resourceVersion ?? 0));
    this.write(`{"type":"${type}","object":${jsonOf(obj)}}\n`);
  }

  private write(line: string): void {
    if (this.closed) return;
    if (this.stalled) this.queue.push(line);
    else this.res.write(line);
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    clearTimeout(this.stallTimer);
    clearInterval(this.bookmarkTimer);
    clearTimeout(this.timeoutTimer);
    this.unsubscribe?.();
    this.onClose(this);
  }
}

/**
 * A request for a resourceVersion the store has not reached waits (the API
 * server waits up to 3 s for its cache to catch up) before failing with 504.
 */
export function waitForResourceVersion(store: Store, rv: number, ms: number): Promise<boolean> {
  if (store.resourceVersion >= rv) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(false);
    }, ms);
    timer.unref();
    const unsubscribe = store.subscribe(() => {
      if (store.resourceVersion >= rv) {
        clearTimeout(timer);
        unsubscribe();
        resolve(true);
      }
    });
  });
}
