import type { KubeConfig } from './connection.js';
import type { Logger } from 'pino';
import { Backoff } from '../net/backoff.js';
import { KubeApiError, kubeRequest } from './rest.js';

const PLURALS = { ClusterSPIFFEID: 'clusterspiffeids', ClusterStaticEntry: 'clusterstaticentries', ClusterFederatedTrustDomain: 'clusterfederatedtrustdomains' } as const;
export type StatusKind = keyof typeof PLURALS;
/** Retries back off from 1 s, doubling up to this. */
const MAX_BACKOFF_MS = 30_000;

interface Pending {
  kind: StatusKind;
  name: string;
  status: object;
  backoff: Backoff;
  timer?: NodeJS.Timeout;
}

/**
 * Writes status subresources with merge patches, off the reconcile path: a
 * write never blocks a pass, a failure is retried with backoff, and a newer
 * status for the same object replaces one still waiting. Only differences
 * are written; the caller compares with the cached object.
 */
export class StatusWriter {
  private readonly pending = new Map<string, Pending>();
  private inFlight = 0;

  constructor(
    private readonly kc: KubeConfig,
    private readonly log: Logger,
  ) {}

  write(kind: StatusKind, name: string, status: object): void {
    const key = `${kind}/${name}`;
    const old = this.pending.get(key);
    clearTimeout(old?.timer);
    const p: Pending = { kind, name, status, backoff: new Backoff(1000, MAX_BACKOFF_MS) };
    this.pending.set(key, p);
    void this.send(key, p);
  }

  /** Resolves when nothing is pending or in flight. */
  async idle(): Promise<void> {
    while (this.pending.size > 0 || this.inFlight > 0) await new Promise((r) => setTimeout(r, 20));
  }

  stop(): void {
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
  }

  private async send(key: string, p: Pending): Promise<void> {
    this.inFlight++;
    try {
      await kubeRequest(this.kc, 'PATCH', `/apis/spire.spiffe.io/v1alpha1/${PLURALS[p.kind]}/${encodeURIComponent(p.name)}/status`, {
        body: { status: p.status },
        contentType: 'application/merge-patch+json',
      });
      if (this.pending.get(key) === p) this.pending.delete(key);
    } catch (err) {
      if (this.pending.get(key) !== p) return; // superseded
      if (err instanceof KubeApiError && err.statusCode === 404) {
        this.pending.delete(key); // the object is gone: nothing to write
        return;
      }
      const wait = p.backoff.next();
      this.log.warn({ err, object: key, retryInMs: wait }, 'status not written; retrying');
      p.timer = setTimeout(() => void this.send(key, p), wait);
      p.timer.unref();
    } finally {
      this.inFlight--;
    }
  }
}
