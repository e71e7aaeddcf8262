import { performance } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/*
 * The metric names spire-controller-manager's dashboards and alerts read,
 * exported beside ours: controller-runtime's per-controller reconcile and
 * workqueue metrics (controller-runtime v0.24: pkg/internal/controller/
 * metrics/metrics.go, pkg/internal/metrics/workqueue.go, pkg/metrics/
 * leaderelection.go), and the one metric of spire-controller-manager's own
 * pkg/metrics (cluster_static_entry_failures). Names, types, labels and
 * buckets are theirs; the mapping onto our single coalescing queue is
 * described in docs/observability.md.
 */

/**
 * controller-runtime names a controller built `For()` a kind after the
 * lowercased kind, and its workqueue after the controller. Ours watch these
 * resources (upstream's five, plus namespaces and nodes, and EndpointSlices
 * where upstream reads Endpoints).
 */
export const CONTROLLER_OF_RESOURCE: Readonly<Record<string, string>> = {
  clusterspiffeids: 'clusterspiffeid',
  clusterstaticentries: 'clusterstaticentry',
  clusterfederatedtrustdomains: 'clusterfederatedtrustdomain',
  pods: 'pod',
  namespaces: 'namespace',
  nodes: 'node',
  endpointslices: 'endpointslice',
  endpoints: 'endpoints',
};

/** controller-runtime's reconcile_time_seconds buckets. */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10,
  15, 20, 25, 30, 40, 50, 60,
];
/** The workqueue's: prometheus.ExponentialBuckets(10e-9, 10, 12), 10 ns to 1000 s. */
const QUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1)));

const RESULTS = ['success', 'error', 'requeue', 'requeue_after'] as const;

/** A series bound to its labels: a 100,000-pod start records each change, and label lookups per call cost more than the recording. */
interface Bound {
  inc(n: number): void;
}
interface BoundHistogram {
  observe(v: number): void;
}

/** One controller's queue: changes waiting (by the time each was added), and the changes a pass is working on. */
interface Queue {
  /** Runs of [added at (ms, monotonic), count]: changes at start come by the thousand in the same millisecond. */
  pending: [number, number][];
  depth: number;
  working: { since: number; count: number } | undefined;
  adds: Bound;
  queueDuration: BoundHistogram;
  workDuration: BoundHistogram;
  reconcileTime: BoundHistogram;
}

/**
 * controller-runtime's queue metrics over our queue. A change to a watched
 * object is an add to its controller's queue; the pass that takes it is the
 * work, and the reconcile of every change it took: each counts once in
 * reconcile_total with the pass's outcome, and observes the pass's duration.
 * A failed pass puts its changes back (retries_total), as a Reconcile error
 * does with a rate-limited requeue.
 */
export class UpstreamMetrics {
  private readonly queues = new Map<string, Queue>();
  private readonly reconcileTotal: Counter<'controller' | 'result'>;
  private readonly reconcileErrors: Counter<'controller'>;
  private readonly reconcileTime: Histogram<'controller'>;
  private readonly zeroCounters: Counter<'controller'>[];
  private readonly maxConcurrent: Gauge<'controller'>;
  private readonly adds: Counter<'name' | 'controller'>;
  private readonly retries: Counter<'name' | 'controller'>;
  private readonly queueDuration: Histogram<'name' | 'controller'>;
  private readonly workDuration: Histogram<'name' | 'controller'>;
  private readonly leader: Gauge<'name'>;
  private readonly staticEntryFailures: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    const queues = this.queues;
    const now = () => performance.now();
    this.reconcileTotal = new Counter({ name: 'controller_runtime_reconcile_total', help: 'Total number of reconciliations per controller', labelNames: ['controller', 'result'], registers });
    this.reconcileErrors = new Counter({ name: 'controller_runtime_reconcile_errors_total', help: 'Total number of reconciliation errors per controller', labelNames: ['controller'], registers });
    // Kept at zero: no reconcile of ours ends in a terminal error, a panic or a timeout of controller-runtime's kind.
    this.zeroCounters = [
      new Counter({ name: 'controller_runtime_terminal_reconcile_errors_total', help: 'Total number of terminal reconciliation errors per controller', labelNames: ['controller'], registers }),
      new Counter({ name: 'controller_runtime_reconcile_panics_total', help: 'Total number of reconciliation panics per controller', labelNames: ['controller'], registers }),
      new Counter({ name: 'controller_runtime_reconcile_timeouts_total', help: 'Total number of reconciliation timeouts per controller', labelNames: ['controller'], registers }),
    ];
    this.reconcileTime = new Histogram({ name: 'controller_runtime_reconcile_time_seconds', help: 'Length of time per reconciliation per controller', labelNames: ['controller'], buckets: RECONCILE_BUCKETS, registers });
    this.maxConcurrent = new Gauge({ name: 'controller_runtime_max_concurrent_reconciles', help: 'Maximum number of concurrent reconciles per controller', labelNames: ['controller'], registers });
    new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
      collect() {
        for (const [controller, q] of queues) this.set({ controller }, q.working ? 1 : 0);
      },
    });
    new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue by workqueue and priority',
      labelNames: ['name', 'controller', 'priority'],
      registers,
      collect() {
        for (const [controller, q] of queues) this.set({ name: controller, controller, priority: '' }, q.depth);
      },
    });
    this.adds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name', 'controller'], registers });
    this.queueDuration = new Histogram({ name: 'workqueue_queue_duration_seconds', help: 'How long in seconds an item stays in workqueue before being requested', labelNames: ['name', 'controller'], buckets: QUEUE_BUCKETS, registers });
    this.workDuration = new Histogram({ name: 'workqueue_work_duration_seconds', help: 'How long in seconds processing an item from workqueue takes.', labelNames: ['name', 'controller'], buckets: QUEUE_BUCKETS, registers });
    new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
      labelNames: ['name', 'controller'],
      registers,
      collect() {
        for (const [controller, q] of queues) this.set({ name: controller, controller }, q.working ? ((now() - q.working.since) / 1000) * q.working.count : 0);
      },
    });
    new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running.',
      labelNames: ['name', 'controller'],
      registers,
      collect() {
        for (const [controller, q] of queues) this.set({ name: controller, controller }, q.working ? (now() - q.working.since) / 1000 : 0);
      },
    });
    this.retries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit RequeueAfter or AddAfter calls)',
      labelNames: ['name', 'controller'],
      registers,
    });
    this.leader = new Gauge({
      name: 'leader_election_master_status',
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ['name'],
      registers,
    });
    this.staticEntryFailures = new Gauge({ name: 'cluster_static_entry_failures', help: 'Number of cluster static entry render failures', registers });
  }

  /** A controller's series, at zero, as controller-runtime creates them when the controller starts. */
  ensure(controller: string): Queue {
    let q = this.queues.get(controller);
    if (q) return q;
    const queue = { name: controller, controller };
    q = {
      pending: [],
      depth: 0,
      working: undefined,
      adds: this.adds.labels(queue),
      queueDuration: this.queueDuration.labels(queue),
      workDuration: this.workDuration.labels(queue),
      reconcileTime: this.reconcileTime.labels({ controller }),
    };
    this.queues.set(controller, q);
    for (const result of RESULTS) this.reconcileTotal.inc({ controller, result }, 0);
    this.reconcileErrors.inc({ controller }, 0);
    for (const c of this.zeroCounters) c.inc({ controller }, 0);
    this.maxConcurrent.set({ controller }, 1);
    q.adds.inc(0);
    this.retries.inc(queue, 0);
    return q;
  }

  /** A change to an object of this controller's kind, waiting for the next pass. */
  add(controller: string, count = 1): void {
    const q = this.ensure(controller);
    const at = Math.floor(performance.now());
    const last = q.pending.at(-1);
    if (last && last[0] === at) last[1] += count;
    else q.pending.push([at, count]);
    q.depth += count;
    q.adds.inc(count);
  }

  /** A pass starts: it takes every change waiting. Call `done` on the result when it ends. */
  take(): { done(ok: boolean): void } {
    const started = performance.now();
    const taken: [string, Queue, number][] = [];
    for (const [controller, q] of this.queues) {
      if (q.depth === 0) continue;
      for (const [at, count] of q.pending) for (let i = 0; i < count; i++) q.queueDuration.observe((started - at) / 1000);
      taken.push([controller, q, q.depth]);
      q.working = { since: started, count: q.depth };
      q.pending = [];
      q.depth = 0;
    }
    return {
      done: (ok) => {
        const seconds = (performance.now() - started) / 1000;
        for (const [controller, q, count] of taken) {
          q.working = undefined;
          for (let i = 0; i < count; i++) {
            q.workDuration.observe(seconds);
            q.reconcileTime.observe(seconds);
          }
          this.reconcileTotal.inc({ controller, result: ok ? 'success' : 'error' }, count);
          if (ok) continue;
          this.reconcileErrors.inc({ controller }, count);
          // The failed pass is retried with backoff: its changes wait again, as a rate-limited requeue.
          this.retries.inc({ name: controller, controller }, count);
          this.add(controller, count);
        }
      },
    };
  }

  /** Leadership lost: a standby runs no controllers, so nothing is waiting. */
  dropPending(): void {
    for (const q of this.queues.values()) {
      q.pending = [];
      q.depth = 0;
    }
  }

  setLeader(lease: string, isLeader: boolean): void {
    this.leader.set({ name: lease }, isLeader ? 1 : 0);
  }

  /** Upstream adds each failing ClusterStaticEntry of every pass (a gauge that only grows). */
  addStaticEntryFailures(n: number): void {
    if (n > 0) this.staticEntryFailures.inc(n);
  }
}
