/**
 * An in-process Kubernetes API server for tests: real HTTP on 127.0.0.1 that
 * @kubernetes/client-node talks to unmodified, backed by the store in
 * store.ts. Test set-up and assertions can also reach the store directly;
 * those writes bump resourceVersions and reach watchers like any other.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify as toYaml } from 'yaml';
import { apiGroupDoc, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION } from './discovery.js';
import { internalError, KubeApiError, notFound, pathNotFound } from './errors.js';
import { FaultInjector, type Faults } from './faults.js';
import { ResourceHandlers } from './handlers.js';
import { mergePatch } from './patch.js';
import { DEFAULT_CRD_FILES, loadCrds, ResourceRegistry, type ResourceType } from './resources.js';
import { route } from './router.js';
import { Store } from './store.js';
import { jsonCopy, type KubeObject, type StoredObject } from './types.js';
import { WatchStream } from './watch.js';

export interface FakeKubeApiServerOptions {
  /** CRD YAML files to serve; default: the three in this repository's crds/. */
  crds?: string[];
  /** How many write events are kept for watch-from-resourceVersion (and exact lists); default 10000. */
  eventHistory?: number;
  /** Interval of BOOKMARK events on watches that allow them; default 1000 ms. */
  bookmarkIntervalMs?: number;
  /** How long an idle keep-alive connection stays open; default Node's 5 s (kube-apiserver's is 90 s). */
  keepAliveTimeoutMs?: number;
  /** Namespace of the kubeconfig's context (KubernetesObjectApi's default); default "default". */
  namespace?: string;
  /**
   * Model the NamespaceLifecycle admission plugin: the system namespaces
   * (default, kube-system, kube-public, kube-node-lease) exist from the start
   * and creating a namespaced object in a namespace that does not exist is
   * 404 NotFound, as on a real cluster. Off by default: set-up code then need
   * not create namespaces first.
   */
  namespaceLifecycle?: boolean;
}

export interface RequestRecord {
  method: string;
  path: string;
  /** The raw query string, without '?'. */
  query: string;
  contentType?: string;
  at: number;
  /** The HTTP status answered (for a watch, 200 once the stream started). */
  status?: number;
}

const SETUP_MANAGER = 'fake-kube-apiserver-setup';
/** Namespaces every cluster has. */
const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
/** The API server's default request body limit (3 MiB). */
const MAX_BODY_BYTES = 3 * 1024 * 1024;

export class FakeKubeApiServer {
  readonly requests: RequestRecord[] = [];
  readonly faults: Faults;
  /** TCP connections accepted so far: clients that reuse connections keep this low. */
  connections = 0;
  private readonly injector: FaultInjector;
  private readonly handlers: ResourceHandlers;
  private readonly watches = new Set<WatchStream>();
  private url_ = '';

  private constructor(
    private readonly http: Server,
    private readonly store: Store,
    private readonly bookmarkIntervalMs: number,
    private readonly contextNamespace: string,
  ) {
    this.handlers = new ResourceHandlers(store);
    this.injector = new FaultInjector(store, () => this.watches);
    this.faults = this.injector;
  }

  static async start(opts: FakeKubeApiServerOptions = {}): Promise<FakeKubeApiServer> {
    const { crds, resources } = loadCrds(opts.crds ?? DEFAULT_CRD_FILES);
    const registry = new ResourceRegistry(resources);
    const store = new Store(registry, opts.eventHistory ?? 10000, opts.namespaceLifecycle ?? false);
    const http = createServer({ noDelay: true });
    if (opts.keepAliveTimeoutMs !== undefined) http.keepAliveTimeout = opts.keepAliveTimeoutMs;
    const server = new FakeKubeApiServer(http, store, opts.bookmarkIntervalMs ?? 1000, opts.namespace ?? 'default');
    if (opts.namespaceLifecycle) {
      for (const name of SYSTEM_NAMESPACES) {
        store.create(registry.namespaces(), { metadata: { name } }, { manager: 'kube-apiserver' });
      }
    }
    const crdType = registry.byKind('apiextensions.k8s.io/v1', 'CustomResourceDefinition')!;
    for (const crd of crds) store.create(crdType, crd, { manager: 'kube-apiserver' });

    http.on('request', (req, res) => void server.serve(req, res));
    http.on('connection', () => server.connections++);
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = http.address() as AddressInfo;
    server.url_ = `http://127.0.0.1:${port}`;
    return server;
  }

  get url(): string {
    return this.url_;
  }

  /** The latest resourceVersion, as a number. */
  get resourceVersion(): number {
    return this.store.resourceVersion;
  }

  /** Open watch streams (for assertions such as "the informer reconnected"). */
  get openWatches(): number {
    return this.watches.size;
  }

  /**
   * A KubeConfig for this server: plain http needs skipTLSVerify in client-node 2.x. The token
   * is not checked; a distinct one lets a fault single out one client (FailureMatch.token).
   */
  kubeConfig(token = 'fake-token'): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'fake', token }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'fake', namespace: this.contextNamespace }],
      currentContext: 'fake',
    });
    return kc;
  }

  /** The same as a kubeconfig file, for child processes (KUBECONFIG). */
  writeKubeconfig(path: string): void {
    const doc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'fake', cluster: { server: this.url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'fake', user: { token: 'fake-token' } }],
      contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake', namespace: this.contextNamespace } }],
      'current-context': 'fake',
    };
    writeFileSync(path, toYaml(doc));
  }

  // ---- direct state access (test set-up and assertions) ----

  private typeOf(apiVersion: unknown, kind: unknown): ResourceType {
    const r = typeof apiVersion === 'string' && typeof kind === 'string' ? this.store.registry.byKind(apiVersion, kind) : undefined;
    if (!r) throw new Error(`fake kube-apiserver does not serve ${String(apiVersion)} ${String(kind)}`);
    return r;
  }

  private typeOfObject(obj: object): ResourceType {
    const o = obj as { apiVersion?: unknown; kind?: unknown };
    return this.typeOf(o.apiVersion, o.kind);
  }

  /**
   * Creates an object as a create request would, except that a given status
   * is kept (set-up stands in for the kubelet and controllers). Throws
   * KubeApiError (e.g. 409 AlreadyExists, 404 for a missing namespace).
   */
  create(obj: object): StoredObject {
    return jsonCopy(this.store.create(this.typeOfObject(obj), obj, { manager: SETUP_MANAGER }));
  }

  /** Replaces an object, status included; a given metadata.resourceVersion must be current (else 409). */
  update(obj: object): StoredObject {
    return jsonCopy(this.store.update(this.typeOfObject(obj), obj, { manager: SETUP_MANAGER, everything: true }));
  }

  /** Applies a JSON merge patch to an object's main resource (status is left alone where it is a subresource). */
  patch(apiVersion: string, kind: string, name: string, patch: object, namespace?: string): StoredObject {
    const r = this.typeOf(apiVersion, kind);
    const current = this.mustGet(r, name, namespace);
    return jsonCopy(this.store.update(r, mergePatch(current, patch), { manager: SETUP_MANAGER }));
  }

  /** Merges `status` into the object's status, as a merge patch of /status would. */
  patchStatus(apiVersion: string, kind: string, name: string, status: object, namespace?: string): StoredObject {
    const r = this.typeOf(apiVersion, kind);
    const current = this.mustGet(r, name, namespace);
    const next = mergePatch(current, { status });
    const subresource = r.statusSubresource ? { subresource: 'status' as const } : {};
    return jsonCopy(this.store.update(r, next, { manager: SETUP_MANAGER, ...subresource }));
  }

  /**
   * Deletes as a DELETE request with a zero grace period would: a pod goes at
   * once, as when its kubelet confirms (finalizers hold an object; a namespace
   * takes its contents along).
   */
  delete(apiVersion: string, kind: string, name: string, namespace?: string): void {
    const r = this.typeOf(apiVersion, kind);
    this.store.delete(r, r.namespaced ? (namespace ?? 'default') : undefined, name, { gracePeriodSeconds: 0 });
  }

  /** Deletes as `kubectl delete` does, with the object's own grace period: a pod on a node is only marked terminating. */
  deleteGracefully(apiVersion: string, kind: string, name: string, namespace?: string): StoredObject | undefined {
    const r = this.typeOf(apiVersion, kind);
    this.store.delete(r, r.namespaced ? (namespace ?? 'default') : undefined, name);
    return this.get(apiVersion, kind, name, namespace);
  }

  get(apiVersion: string, kind: string, name: string, namespace?: string): StoredObject | undefined {
    const r = this.typeOf(apiVersion, kind);
    const obj = this.store.get(r, r.namespaced ? (namespace ?? 'default') : undefined, name);
    return obj ? jsonCopy(obj) : undefined;
  }

  /** Objects of a kind (in one namespace, or all), in key order. */
  list(apiVersion: string, kind: string, namespace?: string): StoredObject[] {
    return this.store.list(this.typeOf(apiVersion, kind), namespace).map((o) => jsonCopy(o));
  }

  /** Sends a BOOKMARK on every open watch that allows them, now. */
  bookmarkNow(): void {
    for (const w of this.watches) w.bookmark();
  }

  private mustGet(r: ResourceType, name: string, namespace: string | undefined): KubeObject {
    const obj = this.store.get(r, r.namespaced ? (namespace ?? 'default') : undefined, name);
    if (!obj) throw notFound(r, name);
    return obj;
  }

  async close(): Promise<void> {
    for (const w of [...this.watches]) w.end();
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
  }

  // ---- HTTP ----

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = (req.method ?? 'GET').toUpperCase();
    const rawType = req.headers['content-type'];
    const record: RequestRecord = {
      method,
      path: url.pathname,
      query: url.search.replace(/^\?/, ''),
      ...(rawType ? { contentType: rawType } : {}),
      at: Date.now(),
    };
    this.requests.push(record);
    try {
      const injected = this.injector.take(method, url.pathname, url.search, req.headers.authorization);
      if (injected && 'hold' in injected) await injected.hold;
      else if (injected) {
        req.resume();
        this.sendError(res, record, injected);
        return;
      }
      const body = await readBody(req);
      await this.dispatch(req, res, record, url, method, body);
    } catch (e) {
      const err = e instanceof KubeApiError ? e : internalError(e instanceof Error ? e.message : String(e));
      if (!res.headersSent) this.sendError(res, record, err);
      else res.end();
    }
  }

  private async dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    record: RequestRecord,
    url: URL,
    method: string,
    body: string,
  ): Promise<void> {
    const registry = this.store.registry;
    const target = route(registry, url.pathname);
    const send = (status: number, payload: unknown): void => this.sendJson(res, record, status, payload);
    switch (target.type) {
      case 'version':
        return send(200, SERVER_VERSION);
      case 'health':
        record.status = 200;
        res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
        return;
      case 'api':
        return send(200, apiVersions(new URL(this.url).host));
      case 'apis':
        return send(200, apiGroupList(registry));
      case 'group': {
        const doc = apiGroupDoc(registry, target.group);
        if (!doc) throw pathNotFound();
        return send(200, doc);
      }
      case 'groupVersion': {
        const doc = apiResourceList(registry, target.group, target.version);
        if (!doc) throw pathNotFound();
        return send(200, doc);
      }
      case 'notFound':
        throw pathNotFound();
      case 'resource': {
        const reply = await this.handlers.handle({
          method,
          resource: target.resource,
          ...(target.namespace !== undefined ? { namespace: target.namespace } : {}),
          ...(target.name !== undefined ? { name: target.name } : {}),
          ...(target.subresource ? { subresource: target.subresource } : {}),
          watchPrefix: target.watchPrefix,
          query: url.searchParams,
          contentType: (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase(),
          body,
          userAgent: req.headers['user-agent'] ?? '',
        });
        if ('watch' in reply) {
          if (res.destroyed) return;
          const stream = new WatchStream(res, this.store, reply.watch, this.bookmarkIntervalMs, (w) => this.watches.delete(w));
          this.watches.add(stream);
          record.status = 200;
          stream.start();
          return;
        }
        return send(reply.status, reply.body);
      }
    }
  }

  private sendJson(res: ServerResponse, record: RequestRecord, status: number, payload: unknown): void {
    record.status = status;
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  private sendError(res: ServerResponse, record: RequestRecord, err: KubeApiError): void {
    if (err.code === 429) res.setHeader('Retry-After', '1');
    this.sendJson(res, record, err.code, err.status);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new KubeApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
