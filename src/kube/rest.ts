import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { type Dispatcher, fetch, request } from 'undici';
import { type KubeConfig, KubeConnection } from './connection.js';
import { textWithoutManagedFields } from './managed-fields.js';

/** An API error with its HTTP status, named after the request. */
export class KubeApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** The Status object the server answered with, when the body was one. */
    readonly status?: unknown,
  ) {
    super(message);
    this.name = 'KubeApiError';
  }
}

/**
 * client-node builds a new undici Agent for every request it authenticates
 * whenever the cluster has TLS settings (a CA, client certificates, or
 * skipTLSVerify): every request then opens a new connection, TLS handshake
 * included, and the old agent keeps its idle socket until it times out. One
 * agent per KubeConfig and TLS material is kept instead; a change of cluster
 * or credentials files in the KubeConfig replaces it. A KubeConnection's TLS
 * material is fixed: it keeps one agent until a connection fails.
 */
const dispatchers = new WeakMap<KubeConfig, { key: string; dispatcher: Dispatcher }>();

function tlsIdentity(kc: Exclude<KubeConfig, KubeConnection>): string {
  const c = kc.getCurrentCluster();
  const u = kc.getCurrentUser();
  return JSON.stringify([c?.server, c?.caData, c?.caFile, c?.skipTLSVerify, c?.tlsServerName, c?.proxyUrl, u?.certData, u?.certFile, u?.keyData, u?.keyFile]);
}

function reusedDispatcher(kc: KubeConfig, key: string, fresh: () => Dispatcher | undefined): Dispatcher | undefined {
  const kept = dispatchers.get(kc);
  if (kept?.key === key) return kept.dispatcher;
  const made = fresh();
  if (kept) void kept.dispatcher.close();
  if (made === undefined) dispatchers.delete(kc);
  else dispatchers.set(kc, { key, dispatcher: made });
  return made;
}

function forgetDispatcher(kc: KubeConfig): void {
  const kept = dispatchers.get(kc);
  dispatchers.delete(kc);
  void kept?.dispatcher.close();
}

/** The headers and dispatcher a request to the API server is authenticated with. */
async function authenticated(kc: KubeConfig, method: 'GET' | 'PATCH' | 'POST' | 'PUT' | 'DELETE', url: URL): Promise<{ headers: Record<string, string>; dispatcher: Dispatcher | undefined }> {
  if (kc instanceof KubeConnection) {
    const token = kc.bearerToken();
    return { headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, dispatcher: reusedDispatcher(kc, '', () => kc.newDispatcher()) };
  }
  // A kubeconfig only client-node reads (loadKubeConfig loaded it already): its authentication, its agent's TLS settings.
  const { HttpMethod, RequestContext } = await import('@kubernetes/client-node');
  const ctx = new RequestContext(url.toString(), HttpMethod[method]);
  await kc.applySecurityAuthentication(ctx);
  const made = ctx.getDispatcher();
  const dispatcher = reusedDispatcher(kc, tlsIdentity(kc), () => made);
  if (made !== undefined && made !== dispatcher) void made.close();
  return { headers: { ...ctx.getHeaders(), accept: 'application/json' }, dispatcher };
}

function requestUrl(kc: KubeConfig, path: string, query: Record<string, string> | undefined): { url: URL; server: string } {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const url = new URL(cluster.server + path);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  return { url, server: cluster.server };
}

/** The error for an answer that is not 2xx, with the Status the server sent when the body is one. */
function apiError(method: string, path: string, statusCode: number, text: string): KubeApiError {
  let message = text;
  let status: unknown;
  try {
    status = JSON.parse(text);
    message = (status as { message?: string }).message ?? text;
  } catch {
    // not a Status object: keep the body as it came
  }
  return new KubeApiError(statusCode, `${method} ${path}: ${statusCode} ${message}`, status);
}

const gunzipped = promisify(gunzip);

/**
 * A list page's bytes, decoded. List pages ask for gzip only, as client-go
 * does: the API server compresses a large answer, and gzip is the coding it
 * offers. Any other coding was not asked for, so it is an error, not data.
 */
async function listPageBytes(body: Readable, contentEncoding: string | undefined, path: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  const coding = contentEncoding?.trim().toLowerCase() ?? '';
  if (coding === '' || coding === 'identity') return bytes;
  if (coding === 'gzip' || coding === 'x-gzip') return gunzipped(bytes);
  throw new Error(`GET ${path}: the API server answered with content-encoding "${contentEncoding}", and only gzip was asked for`);
}

/**
 * A GET whose body is a list page, by undici's own request API rather than
 * its fetch: fetch hands a body over through WHATWG streams, whose cost per
 * chunk is a large share of a big list's CPU.
 */
async function getListPage(url: URL, server: string, path: string, headers: Record<string, string>, dispatcher: Dispatcher | undefined, kc: KubeConfig, signal: AbortSignal | undefined): Promise<{ ok: boolean; status: number; body: Buffer }> {
  let res: Dispatcher.ResponseData;
  try {
    res = await request(url, {
      method: 'GET',
      headers: { 'accept-encoding': 'gzip', ...headers },
      ...(dispatcher ? { dispatcher } : {}),
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(60_000)]) : AbortSignal.timeout(60_000),
    });
  } catch (err) {
    forgetDispatcher(kc);
    if (signal?.aborted) throw err;
    throw new Error(`GET ${path}: cannot reach the Kubernetes API server at ${server}: ${failureReason(err)}`, { cause: err });
  }
  const encoding = res.headers['content-encoding'];
  let body: Buffer;
  try {
    body = await listPageBytes(res.body, Array.isArray(encoding) ? encoding.join(',') : encoding, path);
  } catch (err) {
    // A body left half read would keep its connection from the next request.
    res.body.destroy();
    throw err;
  }
  return { ok: res.statusCode >= 200 && res.statusCode < 300, status: res.statusCode, body };
}

/**
 * A request authenticated as the KubeConfig says (as client-node's Watch
 * authenticates, for a kubeconfig that needs client-node), with
 * the JSON left as the API server sent it. client-node's typed list calls
 * turn timestamps into Date objects, while watch events stay JSON: a cache
 * filled from both would hold two shapes, and templates read the JSON one.
 * `signal` ends the request sooner than the 60 s every request is given.
 */
export async function kubeRequest<T>(kc: KubeConfig, method: 'GET' | 'PATCH' | 'POST' | 'PUT' | 'DELETE', path: string, opts: { query?: Record<string, string>; body?: unknown; contentType?: string; dropManagedFields?: boolean; signal?: AbortSignal } = {}): Promise<T> {
  const { url, server } = requestUrl(kc, path, opts.query);
  const { headers, dispatcher } = await authenticated(kc, method, url);
  if (opts.dropManagedFields && method === 'GET' && opts.body === undefined) {
    const page = await getListPage(url, server, path, headers, dispatcher, kc, opts.signal);
    if (!page.ok) throw apiError(method, path, page.status, page.body.toString('utf8'));
    return JSON.parse(textWithoutManagedFields(page.body)) as T;
  }
  if (opts.body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
  let res: Awaited<ReturnType<typeof fetch>>;
  try {
    res = await fetch(url, {
      method,
      headers,
      dispatcher,
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      signal: opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(60_000)]) : AbortSignal.timeout(60_000),
    });
  } catch (err) {
    // A connection that failed (a rotated CA, a server gone) is not reused: the next request starts afresh.
    forgetDispatcher(kc);
    // undici says only "fetch failed": name the server, and the reason it keeps in `cause`.
    if (opts.signal?.aborted) throw err;
    throw new Error(`${method} ${path}: cannot reach the Kubernetes API server at ${server}: ${failureReason(err)}`, { cause: err });
  }
  const text = opts.dropManagedFields && res.ok ? textWithoutManagedFields(Buffer.from(await res.arrayBuffer())) : await res.text();
  if (!res.ok) throw apiError(method, path, res.status, text);
  return JSON.parse(text) as T;
}

/**
 * A streaming GET (a watch), authenticated and dispatched as kubeRequest's
 * requests are: resolves with the body's bytes once the server has answered
 * 200, rejects with a KubeApiError for any other answer. The stream has no
 * deadline of its own: it lasts until the server ends it or `signal` aborts
 * it, which also ends the body's iteration.
 */
export async function kubeStream(kc: KubeConfig, path: string, opts: { query?: Record<string, string>; signal: AbortSignal }): Promise<AsyncIterable<Uint8Array>> {
  const { url, server } = requestUrl(kc, path, opts.query);
  const { headers, dispatcher } = await authenticated(kc, 'GET', url);
  let res: Awaited<ReturnType<typeof fetch>>;
  try {
    res = await fetch(url, { method: 'GET', headers, dispatcher, signal: opts.signal });
  } catch (err) {
    if (opts.signal.aborted) throw err;
    forgetDispatcher(kc);
    throw new Error(`GET ${path}: cannot reach the Kubernetes API server at ${server}: ${failureReason(err)}`, { cause: err });
  }
  if (!res.ok || !res.body) throw apiError('GET', path, res.status, await res.text());
  return res.body;
}

function failureReason(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) return cause.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * A full list, following `continue` tokens, with the list's resourceVersion.
 * `onPage` sees each page's items as they arrive, so a caller can start work
 * before the last page (the objects are the ones the list returns).
 * `dropManagedFields` cuts them from each page before it is parsed, for a
 * caller that would drop them anyway (see managed-fields.ts).
 */
export async function listAll<T extends KubernetesObject>(
  kc: KubeConfig,
  path: string,
  opts: { pageSize?: number; onPage?: (items: T[]) => void; dropManagedFields?: boolean; labelSelector?: string; fieldSelector?: string } = {},
): Promise<KubernetesListObject<T>> {
  const items: T[] = [];
  let cont = '';
  let resourceVersion = '';
  do {
    const page = await kubeRequest<KubernetesListObject<T>>(kc, 'GET', path, {
      query: {
        limit: String(opts.pageSize ?? 500),
        ...(cont ? { continue: cont } : {}),
        ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
        ...(opts.fieldSelector ? { fieldSelector: opts.fieldSelector } : {}),
      },
      ...(opts.dropManagedFields ? { dropManagedFields: true } : {}),
    });
    opts.onPage?.(page.items);
    items.push(...page.items);
    cont = page.metadata?._continue ?? (page.metadata as { continue?: string } | undefined)?.continue ?? '';
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
  } while (cont);
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion }, items };
}
