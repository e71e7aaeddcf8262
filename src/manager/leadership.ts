import { v4 as uuidv4 } from 'uuid';
import { hostname } from 'node:os';
import type { KubeConfig } from '../kube/connection.js';
import type { Logger } from 'pino';
import type { ControllerConfig } from '../api/index.js';
import { LeaderElector } from '../kube/leader.js';
import type { SpireClient } from '../spire/index.js';
import type { ControllerMetrics } from './metrics.js';

interface LeadershipOptions {
  config: ControllerConfig;
  kc: KubeConfig;
  log: Logger;
  spire: SpireClient;
  metrics?: ControllerMetrics | undefined;
  /** The Lease holder identity. Default: hostname_uuid, as client-go. */
  identity?: string | undefined;
  /** Namespace for the Lease when leaderElection.resourceNamespace is empty (the pod's own). */
  namespace?: string | undefined;
}

/** What is told when a term of the Lease begins and ends (with leader election only: without it the one term never ends). */
export interface TermHandlers {
  /** A term began: this replica writes until `signal` aborts. */
  onStartedLeading: (signal: AbortSignal) => void;
  /** The term ended: writes still pending must be dropped. */
  onStoppedLeading: () => void;
}

/**
 * Who writes: without leader election this replica, always; with it, only
 * during a term of the Lease, and every SPIRE write batch first asks whether
 * the term still holds. Sets the leader metric either way.
 */
export class Leadership {
  private current: AbortSignal | undefined;
  /** Absent when leader election is off (this replica always writes), and until start(). */
  elector: LeaderElector | undefined;

  constructor(private readonly o: LeadershipOptions) {
    // Without leader election the one term starts now and never ends.
    this.current = o.config.leaderElection.leaderElect ? undefined : new AbortController().signal;
  }

  /** The signal of the term in progress; undefined between terms. */
  term(): AbortSignal | undefined {
    return this.current;
  }

  /** Starts campaigning for the Lease (with leader election), telling `terms` when a term begins and ends. */
  start(terms: TermHandlers): void {
    const { config, metrics } = this.o;
    if (!config.leaderElection.leaderElect) {
      metrics?.setLeader(true);
      return;
    }
    const le = config.leaderElection;
    const elector = new LeaderElector(
      {
        kc: this.o.kc,
        log: this.o.log,
        namespace: le.resourceNamespace || this.o.namespace || 'default',
        name: le.resourceName,
        identity: this.o.identity ?? `${hostname()}_${uuidv4()}`,
        leaseDurationMs: le.leaseDurationMs,
        renewDeadlineMs: le.renewDeadlineMs,
        retryPeriodMs: le.retryPeriodMs,
      },
      {
        onStartedLeading: (signal) => {
          this.current = signal;
          metrics?.setLeader(true, le.resourceName);
          terms.onStartedLeading(signal);
        },
        onStoppedLeading: () => {
          this.current = undefined;
          metrics?.setLeader(false, le.resourceName);
          terms.onStoppedLeading();
        },
      },
    );
    this.elector = elector;
    metrics?.setLeader(false, le.resourceName);
    // Every SPIRE write batch first asks the clock whether the term still holds (see holdsLease).
    this.o.spire.gateWrites(() => (elector.holdsLease() ? undefined : 'this replica does not hold the lease'));
    elector.start();
  }

  /** Releases the Lease (after the last write, so the next leader never overlaps with us). */
  async stop(): Promise<void> {
    await this.elector?.stop();
  }
}
