import { ApiException, type KubeConfig, Watch } from '@kubernetes/client-node';
import { expect } from 'vitest';
import type { FakeKubeApiServer, RequestRecord } from '../support/kube/index.js';

/** Polls until `cond` holds; the timeout is generous because nothing here measures speed. */
export async function eventually(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!cond()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface ApiFailure {
  code: number;
  reason: string;
  message: string;
  headers: Record<string, string>;
}

/** The Status a client-node call failed with (client-node keeps the body as text). */
export async function failure(call: Promise<unknown>): Promise<ApiFailure> {
  try {
    await call;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiException);
    const err = e as ApiException<unknown>;
    const body = typeof err.body === 'string' && err.body ? (JSON.parse(err.body) as Record<string, unknown>) : {};
    expect(body.kind).toBe('Status');
    expect(body.code).toBe(err.code);
    return { code: err.code, reason: String(body.reason), message: String(body.message), headers: err.headers };
  }
  throw new Error('expected the call to fail');
}

export interface WatchEvent {
  type: string;
  object: {
    kind?: string;
    apiVersion?: string;
    metadata?: { name?: string; resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
    code?: number;
    reason?: string;
  };
}

export type WatchQuery = Record<string, string | number | boolean | undefined>;

/** A client-node Watch whose events and end are collected for assertions. */
export class RecordedWatch {
  readonly events: WatchEvent[] = [];
  ended = false;
  endError: unknown = undefined;
  private controller: AbortController | undefined;

  static async open(kc: KubeConfig, path: string, query: WatchQuery = {}): Promise<RecordedWatch> {
    const w = new RecordedWatch();
    w.controller = await new Watch(kc).watch(
      path,
      query,
      (type, object) => w.events.push({ type, object: object as WatchEvent['object'] }),
      (err) => {
        w.ended = true;
        w.endError = err;
      },
    );
    return w;
  }

  /** "TYPE name" for each non-bookmark event, the easiest form to compare. */
  summary(): string[] {
    return this.events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`);
  }

  bookmarks(): WatchEvent[] {
    return this.events.filter((e) => e.type === 'BOOKMARK');
  }

  stop(): void {
    this.controller?.abort();
  }
}

export const isWatch = (r: RequestRecord): boolean => /(^|&)watch=(true|1)(&|$)/.test(r.query);

/** The list and watch requests the server saw for a path, in order. */
export function listsAndWatches(server: FakeKubeApiServer, path: string): { lists: RequestRecord[]; watches: RequestRecord[] } {
  const onPath = server.requests.filter((r) => r.method === 'GET' && r.path === path);
  return { lists: onPath.filter((r) => !isWatch(r)), watches: onPath.filter(isWatch) };
}

export function queryOf(r: RequestRecord): URLSearchParams {
  return new URLSearchParams(r.query);
}

export const namespace = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});

export const pod = (ns: string, name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels },
  spec: { containers: [{ name: 'main', image: 'registry.example/app:1' }], ...spec },
});

export const GROUP = 'spire.spiffe.io';
export const VERSION = 'v1alpha1';

export const clusterSPIFFEID = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'ClusterSPIFFEID',
  metadata: { name },
  spec: { spiffeIDTemplate: 'spiffe://example.org/ns/{{ .PodMeta.Namespace }}', ...spec },
});
