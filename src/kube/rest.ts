import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { type KubeConfig, KubeConnection } from './connection.js';
import { type Answer, type ConnectionPool, NodeHttpPool } from './http-pool.js';
import { textWithoutManagedFields } from './managed-fields.js';
import { errorMessage } from '../api/errors.js';

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
 * One pool of connections per KubeConfig and TLS material: client-node
 * builds a new undici Agent for every request it authenticates whenever the
 * cluster has TLS settings (a CA, client certificates, or skipTLSVerify), so
 * every request would open a new connection, TLS handshake included, and the
 * old agent would keep its idle socket until it timed out. A change of
 * cluster or credentials files in a client-node KubeConfig replaces its pool.
 * A KubeConnection's TLS material is fixed: it keeps one pool until a
 * connection fails.
 */
const pools = new WeakMap<KubeConfig, { key: string; pool: ConnectionPool }>();

function tlsIdentity(kc: Exclude<KubeConfig, KubeConnection>): string {
  const c = kc.getCurrentCluster();
  const u = kc.getCurrentUser();
  return JSON.stringify([c?.server, c?.caData, c?.caFile, c?.skipTLSVerify, c?.tlsServerName, c?.proxyUrl, u?.certData, u?.certFile, u?.keyData, u?.keyFile]);
}

function reusedPool(kc: KubeConfig, key: string, fresh: () => ConnectionPool): ConnectionPool {
  const kept = pools.get(kc);
  if (kept?.key === key) return kept.pool;
  const made = fresh();
  kept?.pool.close();
  pools.set(kc, { key, pool: made });
  return made;
}

function forgetPool(kc: KubeConfig): void {
  const kept = pools.get(kc);
  pools.delete(kc);
  kept?.pool.close();
}

/** The headers and pool a request to the API server is authenticated with. */
async function authenticated(kc: KubeConfig, method: Method, url: URL): Promise<{ headers: Record<string, string>; pool: ConnectionPool }> {
  if (kc instanceof KubeConnection) {
    const token = kc.bearerToken();
    // Absent, not undefined: Node's http.request refuses a header whose value is undefined.
    return { headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, pool: reusedPool(kc, '', () => new NodeHttpPool(kc.tlsSettings())) };
  }
  // A kubeconfig only client-node reads (loadKubeConfig loaded it already): its authentication, its TLS settings, through undici, loaded only then.
  const { clientNodeAuthentication, UndiciPool } = await import('./client-node-requests.js');
  const { headers, dispatcher } = await clientNodeAuthentication(kc, method, url);
  const pool = reusedPool(kc, tlsIdentity(kc), () => new UndiciPool(dispatcher));
  if (dispatcher !== undefined && (pool as InstanceType<typeof UndiciPool>).dispatcher !== dispatcher) void dispatcher.close();
  return { headers: { ...headers, accept: 'application/json' }, pool };
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

type Method = 'GET' | 'PATCH' | 'POST' | 'PUT' | 'DELETE';

const gunzipped = promisify(gunzip);

/** Every request but a watch is given this long unless its caller ends it sooner. */
const REQUEST_DEADLINE_MS = 60_000;

/**
 * Sends a request authenticated as the KubeConfig says, through its pool
 * (Node's HTTP client for a KubeConnection, undici's request API for a
 * client-node KubeConfig: fetch hands a body over through WHATWG streams,
 * whose cost per chunk is a large share of a big list's CPU). A connection
 * that fails (a rotated CA, a server gone) is not reused: the next request
 * starts afresh. The error names the server and the reason, unless the
 * caller ended it.
 */
async function send(
  kc: KubeConfig,
  method: Method,
  path: string,
  opts: { query?: Record<string, string> | undefined; body?: string | undefined; headers?: Record<string, string>; signal?: AbortSignal | undefined },
): Promise<Answer> {
  const { url, server } = requestUrl(kc, path, opts.query);
  const { headers, pool } = await authenticated(kc, method, url);
  try {
    return await pool.send(url, { method, headers: { ...headers, ...opts.headers }, body: opts.body, signal: opts.signal });
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    forgetPool(kc);
    throw new Error(`${method} ${path}: cannot reach the Kubernetes API server at ${server}: ${failureReason(err)}`, { cause: err });
  }
}

/**
 * An answer's bytes, decoded. Requests ask for gzip only, as client-go
 * does: the API server compresses a large answer (a list page), and gzip is
 * the coding it offers. Any other coding was not asked for, so it is an
 * error, not data. A body left half read would keep its connection from
 * the next request, so it is destroyed on failure.
 */
async function answerBytes(res: Answer, method: Method, path: string): Promise<Buffer> {
  const header = res.headers['content-encoding'];
  const encoding = Array.isArray(header) ? header.join(',') : header;
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const coding = encoding?.trim().toLowerCase() ?? '';
    if (coding === '' || coding === 'identity') return bytes;
    if (coding === 'gzip' || coding === 'x-gzip') return await gunzipped(bytes);
    throw new Error(`${method} ${path}: the API server answered with content-encoding "${encoding}", and only gzip was asked for`);
  } catch (err) {
    res.body.destroy();
    throw err;
  }
}

const ok = (res: Answer) => res.statusCode >= 200 && res.statusCode < 300;

/**
 * A request authenticated as the KubeConfig says (as client-node's Watch
 * authenticates, for a kubeconfig that needs client-node), with
 * the JSON left as the API server sent it. client-node's typed list calls
 * turn timestamps into Date objects, while watch events stay JSON: a cache
 * filled from both would hold two shapes, and templates read the JSON one.
 * `signal` ends the request sooner than the 60 s every request is given.
 */
export async function kubeRequest<T>(kc: KubeConfig, method: Method, path: string, opts: { query?: Record<string, string>; body?: unknown; contentType?: string; dropManagedFields?: boolean; signal?: AbortSignal } = {}): Promise<T> {
  const deadline = AbortSignal.timeout(REQUEST_DEADLINE_MS);
  const res = await send(kc, method, path, {
    query: opts.query,
    // Absent, not undefined, without a body: Node's http.request refuses an undefined header.
    headers: { 'accept-encoding': 'gzip', ...(opts.body !== undefined ? { 'content-type': opts.contentType ?? 'application/json' } : {}) },
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    signal: opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline,
  });
  const bytes = await answerBytes(res, method, path);
  if (!ok(res)) throw apiError(method, path, res.statusCode, bytes.toString('utf8'));
  return JSON.parse(opts.dropManagedFields ? textWithoutManagedFields(bytes) : bytes.toString('utf8')) as T;
}

/**
 * A streaming GET (a watch), authenticated and dispatched as kubeRequest's
 * requests are: resolves with the body's bytes once the server has answered
 * 200, rejects with a KubeApiError for any other answer. The stream has no
 * deadline of its own: it lasts until the server ends it or `signal` aborts
 * it, which also ends the body's iteration.
 */
export async function kubeStream(kc: KubeConfig, path: string, opts: { query?: Record<string, string>; signal: AbortSignal }): Promise<AsyncIterable<Uint8Array>> {
  const res = await send(kc, 'GET', path, { query: opts.query, signal: opts.signal });
  if (!ok(res)) throw apiError('GET', path, res.statusCode, (await answerBytes(res, 'GET', path)).toString('utf8'));
  return res.body;
}

function failureReason(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) return cause.message;
  return errorMessage(err);
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
      // Absent, not undefined or '': requestUrl sets every entry as a query parameter.
      query: {
        limit: String(opts.pageSize ?? 500),
        ...(cont ? { continue: cont } : {}),
        ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
        ...(opts.fieldSelector ? { fieldSelector: opts.fieldSelector } : {}),
      },
      dropManagedFields: opts.dropManagedFields,
    });
    opts.onPage?.(page.items);
    items.push(...page.items);
    cont = page.metadata?._continue ?? (page.metadata as { continue?: string } | undefined)?.continue ?? '';
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
  } while (cont);
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion }, items };
}
