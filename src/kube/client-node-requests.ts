import type { KubeConfig } from '@kubernetes/client-node';
import { type Dispatcher, request } from 'undici';
import type { Answer, ConnectionPool, PoolRequest } from './http-pool.js';

/**
 * Requests for a kubeconfig only client-node reads (exec plugins, auth
 * providers, a proxy): client-node authenticates them and makes their TLS
 * settings into an undici dispatcher, so they go out through undici. Loaded
 * only for such a kubeconfig (rest.ts), with client-node and undici.
 */

/** The headers client-node authenticates a request with, and the dispatcher it made for the cluster's TLS settings (none: undici's global one). */
export async function clientNodeAuthentication(kc: KubeConfig, method: PoolRequest['method'], url: URL): Promise<{ headers: Record<string, string>; dispatcher: Dispatcher | undefined }> {
  // Imported here, not above: bundled, a package left out of the bundle is imported where the bundle starts.
  const { HttpMethod, RequestContext } = await import('@kubernetes/client-node');
  const ctx = new RequestContext(url.toString(), HttpMethod[method as keyof typeof HttpMethod]);
  await kc.applySecurityAuthentication(ctx);
  return { headers: ctx.getHeaders(), dispatcher: ctx.getDispatcher() };
}

/** A pool that sends through an undici dispatcher (undici's global one when none). */
export class UndiciPool implements ConnectionPool {
  constructor(readonly dispatcher: Dispatcher | undefined) {}

  async send(url: URL, req: PoolRequest): Promise<Answer> {
    const res = await request(url, {
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      // undici takes an undefined dispatcher as its global one (a destructuring
      // default), and an undefined body or signal as none.
      dispatcher: this.dispatcher,
      body: req.body,
      signal: req.signal,
    });
    return { statusCode: res.statusCode, headers: res.headers, body: res.body };
  }

  close(): void {
    void this.dispatcher?.close();
  }
}
