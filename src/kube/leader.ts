import type { KubeConfig } from './connection.js';
import type { Logger } from 'pino';
import { KubeApiError, kubeRequest } from './rest.js';

interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

interface LeaderElectionOptions {
  kc: KubeConfig;
  log: Logger;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  now?: () => number;
}

const DEADLINE_MISSED = 'failed to renew the lease within the renew deadline';

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go does it:
 * acquire when the lease is free or expired, renew every retry period, and
 * give leadership up when a renewal has not succeeded within the renew
 * deadline (so two replicas never both believe they lead for longer than
 * leaseDuration - renewDeadline). Each term comes with an AbortSignal that
 * aborts the moment leadership is lost; writers pass it to their writes.
 * The deadline is kept by a timer and each renewal request is cut off at it:
 * waiting for a hung request to return (up to the 60 s every request gets)
 * would keep a term the standby has already taken over.
 */
export class LeaderElector {
  private stopped = false;
  /** Ends the wait between attempts when stop() is called: shutdown need not sit out a retry period. */
  private readonly stopping = new AbortController();
  private term: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private observedRv: string | undefined;
  /** When the request that last won or renewed the lease was sent: the term lasts renewDeadline from then. */
  private renewedAt = 0;
  private readonly path: string;
  private readonly now: () => number;

  constructor(
    private readonly opts: LeaderElectionOptions,
    private readonly handlers: { onStartedLeading: (signal: AbortSignal) => void; onStoppedLeading: () => void },
  ) {
    if (!(opts.leaseDurationMs > opts.renewDeadlineMs && opts.renewDeadlineMs > opts.retryPeriodMs * 1.2)) {
      throw new Error('leader election needs leaseDuration > renewDeadline > 1.2 * retryPeriod');
    }
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(opts.namespace)}/leases/${encodeURIComponent(opts.name)}`;
    this.now = opts.now ?? Date.now;
  }

  get isLeader(): boolean {
    return this.term !== undefined && !this.term.signal.aborted;
  }

  /**
   * Whether this replica still leads, read off the clock rather than left to
   * the deadline timer, and the term ended at once if its renew deadline has
   * passed. Writers ask it right before every write: a process that was
   * stopped past its deadline (SIGSTOP, a frozen VM, a stalled event loop)
   * runs the I/O callbacks that finish its in-flight writes before any timer
   * when it resumes, and without this would send its next writes as leader
   * after a standby has taken over.
   */
  holdsLease(): boolean {
    if (this.term && this.now() - this.renewedAt >= this.opts.renewDeadlineMs) this.lose(DEADLINE_MISSED);
    return this.isLeader;
  }

  start(): void {
    this.loop ??= this.run();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.stopping.signal.removeEventListener('abort', done);
        resolve();
      };
      // Jitter as client-go's wait.JitterUntil, so replicas do not move in lockstep.
      const timer = setTimeout(done, ms * (1 + Math.random() * 0.2)).unref();
      this.stopping.signal.addEventListener('abort', done, { once: true });
    });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      // A term is counted from when the request that won it was sent, not from when it returned:
      // the standby starts its clock at the write, which is in between.
      const started = this.now();
      const left = this.term ? this.renewedAt + this.opts.renewDeadlineMs - started : this.opts.renewDeadlineMs;
      const ok = left > 0 && (await this.tryAcquireOrRenew(started, AbortSignal.timeout(left)));
      // A success that returns after the deadline came too late: the timer has ended the term, or is about to.
      // One that returns after stop() starts no term: stop() releases the lease it won.
      if (ok && !this.stopped && this.now() - started < this.opts.renewDeadlineMs) {
        this.renewedAt = started;
        if (!this.term) {
          this.term = new AbortController();
          this.opts.log.info(`became leader (lease ${this.opts.namespace}/${this.opts.name} as ${this.opts.identity})`);
          this.handlers.onStartedLeading(this.term.signal);
        }
        clearTimeout(this.deadline);
        this.deadline = setTimeout(() => this.lose(DEADLINE_MISSED), started + this.opts.renewDeadlineMs - this.now());
        this.deadline.unref();
      }
      await this.sleep(this.opts.retryPeriodMs);
    }
  }

  private lose(why: string): void {
    clearTimeout(this.deadline);
    const term = this.term;
    if (!term) return;
    this.term = undefined;
    this.opts.log.warn(`lost leadership: ${why}`);
    term.abort(new Error(`leadership lost: ${why}`));
    this.handlers.onStoppedLeading();
  }

  private async tryAcquireOrRenew(now: number, signal: AbortSignal): Promise<boolean> {
    const durationSeconds = Math.ceil(this.opts.leaseDurationMs / 1000);
    let lease: Lease | undefined;
    try {
      lease = await kubeRequest<Lease>(this.opts.kc, 'GET', this.path, { signal });
    } catch (err) {
      if (!(err instanceof KubeApiError && err.statusCode === 404)) {
        this.opts.log.warn({ err }, 'reading the lease failed');
        return false;
      }
    }
    if (!lease) {
      try {
        await kubeRequest(this.opts.kc, 'POST', this.path.replace(/\/[^/]+$/, ''), {
          body: {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: this.opts.name, namespace: this.opts.namespace },
            spec: { holderIdentity: this.opts.identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
          },
          signal,
        });
        return true;
      } catch (err) {
        this.opts.log.debug({ err }, 'creating the lease failed');
        return false;
      }
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const mine = holder === this.opts.identity;
    // Expiry is judged on our own clock from when we last saw the lease change, not on the
    // holder's renewTime, so clock skew between nodes cannot steal a live lease.
    if (lease.metadata.resourceVersion !== this.observedRv) {
      this.observedRv = lease.metadata.resourceVersion;
      this.observedAt = now;
    }
    const expired = now - this.observedAt >= (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
    if (holder !== '' && !mine && !expired) return false;
    const next: Lease = {
      ...lease,
      spec: {
        holderIdentity: this.opts.identity,
        leaseDurationSeconds: durationSeconds,
        acquireTime: mine ? spec.acquireTime ?? microTime(now) : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
      },
    };
    try {
      const updated = await kubeRequest<Lease>(this.opts.kc, 'PUT', this.path, { body: next, signal });
      this.observedRv = updated.metadata.resourceVersion;
      this.observedAt = now;
      return true;
    } catch (err) {
      // 409: someone else wrote first (optimistic concurrency); we try again next period.
      this.opts.log.debug({ err }, 'updating the lease failed');
      return false;
    }
  }

  private observedAt = 0;

  /**
   * Stops campaigning; a lease that names us is released so a standby takes over at once.
   * Whether we led when stop() was called does not decide it: an acquire in flight may still
   * have won the lease.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    this.lose('shutting down');
    if (!this.loop) return;
    await this.loop;
    // Every replica asks now, not just a leader: shutdown is not held up by a server that does not answer.
    const signal = AbortSignal.timeout(this.opts.renewDeadlineMs);
    try {
      const lease = await kubeRequest<Lease>(this.opts.kc, 'GET', this.path, { signal });
      if (lease.spec?.holderIdentity !== this.opts.identity) return;
      await kubeRequest(this.opts.kc, 'PUT', this.path, {
        body: { ...lease, spec: { ...lease.spec, holderIdentity: null, leaseDurationSeconds: 1, renewTime: microTime(this.now()) } },
        signal,
      });
      this.opts.log.info('released the lease');
    } catch (err) {
      if (err instanceof KubeApiError && err.statusCode === 404) return;
      this.opts.log.warn({ err }, 'releasing the lease failed');
    }
  }
}
