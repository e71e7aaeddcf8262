import type { KubeConfig } from './connection.js';
import type { Logger } from 'pino';
import { isForbidden, type OptionalAccessReporter } from './forbidden.js';
import { kubeRequest } from './rest.js';
import { errorMessage } from '../api/errors.js';
import { GROUP_VERSION } from '../api/crds.js';

/** How often a warning that persists is posted again by default. */
export const EVENT_REPEAT_MS = 5 * 60_000;

export interface EventSubject {
  kind: 'ClusterSPIFFEID' | 'ClusterStaticEntry' | 'ClusterFederatedTrustDomain';
  name: string;
  uid: string;
}

/**
 * Kubernetes Events about our objects (render failures, conflicts), so
 * `kubectl describe clusterspiffeid X` says what is wrong. Rate-limited per
 * object, reason and message: a failure that persists is reported again only
 * after `intervalMs`, not on every pass. Cluster-scoped objects' events go to
 * the `default` namespace, as kubectl looks for them there.
 */
export class EventRecorder {
  // In the order of sending (a resend moves its key to the end), so what has aged out is always at the front.
  private readonly lastSent = new Map<string, number>();
  /** Told when events may not be created (403; the SPIRE helm chart grants them in its own namespace only), and when they may again. */
  onOptionalAccess: OptionalAccessReporter | undefined;
  private denied = false;

  constructor(
    private readonly kc: KubeConfig,
    private readonly log: Logger,
    /** How long a warning is not posted again: callers that filter warnings themselves use the same interval. */
    readonly intervalMs = EVENT_REPEAT_MS,
    private readonly now: () => number = Date.now,
    private readonly capacity = 10_000,
  ) {}

  /** Keys remembered for deduplication; never more than `capacity`. */
  get remembered(): number {
    return this.lastSent.size;
  }

  warn(subject: EventSubject, reason: string, message: string): void {
    const key = `${subject.uid}\u0000${reason}\u0000${message}`;
    const now = this.now();
    this.forgetOld(now);
    const last = this.lastSent.get(key);
    if (last !== undefined) {
      if (now - last < this.intervalMs) return;
      this.lastSent.delete(key);
    } else if (this.lastSent.size >= this.capacity) {
      // Every remembered key is still fresh. Evicting one would re-post its event on the next
      // pass, and messages unique per pod (a template failing for 100k pods) would then post
      // every event on every pass; dropping the new one bounds the posts as well as the memory,
      // and a failure that persists is reported once the oldest keys age out.
      this.log.debug(`event not recorded: more than ${this.capacity} distinct events within ${this.intervalMs} ms`);
      return;
    }
    this.lastSent.set(key, now);
    const time = new Date(now).toISOString();
    void kubeRequest(this.kc, 'POST', '/api/v1/namespaces/default/events', {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { generateName: `${subject.name}.`, namespace: 'default' },
        involvedObject: { apiVersion: GROUP_VERSION, kind: subject.kind, name: subject.name, uid: subject.uid },
        reason,
        // The API server caps messages at 1 KiB.
        message: message.length > 1024 ? `${message.slice(0, 1021)}...` : message,
        type: 'Warning',
        source: { component: 'spire-reconciler' },
        reportingComponent: 'spire-reconciler',
        firstTimestamp: time,
        lastTimestamp: time,
        count: 1,
      },
    }).then(
      () => {
        if (!this.denied) return;
        this.denied = false;
        this.onOptionalAccess?.('events', undefined);
      },
      (err: unknown) => {
        if (!isForbidden(err)) return this.log.debug({ err }, 'event not recorded');
        // Once per denial, not once per event: statuses and the log still say what events would.
        if (!this.denied) this.log.warn({ err }, 'events cannot be recorded (reconciling goes on)');
        this.denied = true;
        this.onOptionalAccess?.('events', { message: errorMessage(err) });
      },
    );
  }

  private forgetOld(now: number): void {
    for (const [k, t] of this.lastSent) {
      if (now - t < this.intervalMs) return;
      this.lastSent.delete(k);
    }
  }
}
