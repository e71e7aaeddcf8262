import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EntryPassResult } from '../entries/index.js';
import type { RpcObserver } from '../spire/rpc.js';
import { REGISTRATION_OUTCOMES, REGISTRATION_TRIGGERS, type RegistrationOutcome, type RegistrationTrigger } from './registration-clock.js';
import { UpstreamMetrics } from './upstream-metrics.js';

/** The steps of one reconcile pass, in order (docs/entries.md, "The pass"). */
type Phase = 'list' | 'render' | 'plan' | 'apply' | 'status';

export const PHASES: readonly Phase[] = ['list', 'render', 'plan', 'apply', 'status'];

/** What one finished pass did, as counts. */
interface PassCounts {
  created: number;
  updated: number;
  deleted: number;
  failed: number;
  renderFailures: number;
  /** Objects refused whole (a field invalid or over the limits), by kind: what they declared is unknown, so nothing of theirs is deleted. Optional: 0 when absent. */
  invalidObjects?: Partial<Record<InvalidKind, number>>;
  /** Entries set without some federatesWith trust domains (no bundle yet). Optional: 0 when absent. */
  withoutFederation?: number;
  conflicts: number;
  kept: number;
  /** ClusterStaticEntries that failed to render (upstream's cluster_static_entry_failures). Optional: 0 when absent. */
  staticEntryFailures?: number;
}

const ENTRY_OPS = ['created', 'updated', 'deleted', 'failed'] as const;

const INVALID_KINDS = ['ClusterSPIFFEID', 'ClusterStaticEntry'] as const;
type InvalidKind = (typeof INVALID_KINDS)[number];

/** Render failures not tied to a pod are objects refused whole; counted per kind. */
export function countInvalidObjects(failures: readonly { owner: { kind: string }; pod?: string }[]): Partial<Record<InvalidKind, number>> {
  const out: Partial<Record<InvalidKind, number>> = {};
  for (const f of failures) {
    const kind = f.owner.kind as InvalidKind;
    if (f.pod === undefined && INVALID_KINDS.includes(kind)) out[kind] = (out[kind] ?? 0) + 1;
  }
  return out;
}

/** The counts of a finished entry pass, in either mode. */
export function passCounts(result: Pick<EntryPassResult, 'applied' | 'declared' | 'plan'>): PassCounts {
  const a = result.applied;
  return {
    created: a?.created ?? 0,
    updated: a?.updated ?? 0,
    deleted: a?.deleted ?? 0,
    failed: a?.failures.length ?? 0,
    renderFailures: result.declared.renderFailures.length,
    invalidObjects: countInvalidObjects(result.declared.renderFailures),
    conflicts: result.plan.conflicts.length,
    withoutFederation: result.declared.federationOmissions.length,
    staticEntryFailures: result.declared.renderFailures.filter((f) => f.owner.kind === 'ClusterStaticEntry').length,
    kept: result.plan.kept.length + (a?.heldBack.length ?? 0),
  };
}

/**
 * A pass ranges from about a millisecond (nothing changed, a few pods) to
 * tens of seconds (cold start at 100k pods); 1-2.5-5 steps keep the
 * resolution even across those four decades.
 */
const PASS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60];

/**
 * A SPIRE RPC over the local socket takes from ~100 µs (a small read) to
 * seconds (a large batch or a busy datastore); the top bucket is the
 * default spireRpcTimeout, so a timed-out call lands at or just past it.
 */
const RPC_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * A pod's wait for its entry: a few milliseconds when a pod event is written
 * at once (the benchmark's p99 is under 25 ms), seconds behind a full pass
 * at 100,000 pods or a busy SPIRE server, minutes when something is wrong
 * (what spire-controller-manager's users report). Up to 10 minutes, so the
 * p99 an alert reads stays a number while pods wait minutes.
 */
const REGISTRATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Present in a registry that prom-client's default metrics were already added to. */
const DEFAULT_METRICS_MARKER = 'process_cpu_user_seconds_total';

/** The registries a metric is registered in: the controller's own only. */
type Registers = Registry[];

/** How long passes take and when one last succeeded. */
function passTimingMetrics(registers: Registers, secondsSinceLastSuccess: () => number) {
  new Gauge({
    name: 'spire_reconciler_seconds_since_last_success',
    help: 'Seconds since the last successful reconcile pass ended, or since the controller started if none has succeeded yet. Grows while passes fail or stall: alert on it.',
    registers,
    // Computed at scrape time so it is current even when no pass runs to update it.
    collect() {
      this.set(secondsSinceLastSuccess());
    },
  });
  const driftChecks = new Counter<'result'>({
    name: 'spire_reconciler_drift_checks_total',
    help: "Checks of SPIRE's entries for drift made behind the controller's back (one per gcInterval: a count and a page of IDs and revisions), by result: none, or drift (then every entry is listed and the full pass repairs it).",
    labelNames: ['result'],
    registers,
  });
  for (const result of ['none', 'drift']) driftChecks.inc({ result }, 0);
  return {
    driftChecks,
    phaseSeconds: new Histogram<'phase'>({
      name: 'spire_reconciler_pass_phase_seconds',
      help: 'Time spent in one phase of a reconcile pass: list (reading SPIRE entries), render (computing declared entries), plan (comparing), apply (writing to SPIRE), status (writing object statuses).',
      labelNames: ['phase'],
      buckets: PASS_BUCKETS,
      registers,
    }),
    passSeconds: new Histogram({
      name: 'spire_reconciler_pass_seconds',
      help: 'Time taken by a full reconcile pass (not one made of pod events only), from the start of listing to the last status write. Failed passes are not included.',
      buckets: PASS_BUCKETS,
      registers,
    }),
    passFailures: new Counter({
      name: 'spire_reconciler_pass_failures_total',
      help: 'Reconcile passes that stopped before finishing (for example SPIRE could not be listed). Nothing is deleted by a failed pass.',
      registers,
    }),
    lastSuccessTimestamp: new Gauge({
      name: 'spire_reconciler_last_success_timestamp_seconds',
      help: 'Unix time of the end of the last successful reconcile pass; 0 if none has succeeded yet.',
      registers,
    }),
  };
}

/** What the last full pass found it could not or would not write. */
function passFindingMetrics(registers: Registers) {
  const invalidObjects = new Gauge<'kind'>({
    name: 'spire_reconciler_invalid_objects',
    help: 'Objects of our class the last full pass refused whole, by kind: a field invalid or over the limits (a template too large, a TTL past int32), as the webhook would have refused it. Their entries already on the server are kept; status, events and the log name the field.',
    labelNames: ['kind'],
    registers,
  });
  for (const kind of INVALID_KINDS) invalidObjects.set({ kind }, 0);
  return {
    invalidObjects,
    renderFailures: new Gauge({
      name: 'spire_reconciler_render_failures',
      help: 'Declared entries that could not be computed in the last full pass (for example a template that fails for a pod). Entries already on the server for them are kept, not deleted.',
      registers,
    }),
    conflicts: new Gauge({
      name: 'spire_reconciler_conflicts',
      help: 'Declared entries not created in the last full pass because an entry this controller does not own already has the same SPIFFE ID, parent and selectors.',
      registers,
    }),
    withoutFederation: new Gauge({
      name: 'spire_reconciler_entries_without_federation',
      help: 'Entries set in the last full pass without some of their federatesWith trust domains, because SPIRE holds no bundle for them yet (federatesWithMissingBundle: skip). They are completed when the bundle appears.',
      registers,
    }),
    kept: new Gauge({
      name: 'spire_reconciler_entries_kept',
      help: 'Entries the last full pass would have deleted or changed but kept on purpose (join tokens, unknown declared state, policy, a failed replacement). The plan lists each with its reason.',
      registers,
    }),
  };
}

/** What the controller writes to SPIRE and how its calls fare. */
function spireMetrics(registers: Registers) {
  const entries = new Counter<'op'>({
    name: 'spire_reconciler_entries_total',
    help: 'SPIRE registration entries written by the controller since it started, by any pass (full, pod events, start), by outcome: created, updated, deleted, or failed (a create, update or delete SPIRE refused).',
    labelNames: ['op'],
    registers,
  });
  for (const op of ENTRY_OPS) entries.inc({ op }, 0);
  const passWrites = new Gauge<'state'>({
    name: 'spire_reconciler_pass_writes',
    help: 'Writes (creates, updates, deletes) of the pass in flight, or of the last one: planned, and done (answered by SPIRE). done/planned is its progress.',
    labelNames: ['state'],
    registers,
  });
  for (const state of ['done', 'planned']) passWrites.set({ state }, 0);
  const rpcSeconds = new Histogram<'method' | 'code'>({
    name: 'spire_reconciler_spire_rpc_seconds',
    help: 'Duration of calls to the SPIRE server API, by method (Service.Method) and gRPC status code (OK on success).',
    labelNames: ['method', 'code'],
    buckets: RPC_BUCKETS,
    registers,
  });
  return { entries, passWrites, rpcSeconds };
}

/** What the controller reads from Kubernetes: its queue, its informers, the access it lacks. */
function kubeMetrics(registers: Registers, informerStaleness: () => Iterable<{ informer: string; seconds: number }>) {
  new Gauge({
    name: 'spire_reconciler_informer_stale_seconds',
    help: "Seconds an informer's cache has not been confirmed current (a failing list or watch, a resourceVersion the server cannot watch from), 0 when it is. Changes made meanwhile wait: alert when it stays above a minute.",
    labelNames: ['informer'],
    registers,
    collect() {
      for (const { informer, seconds } of informerStaleness()) this.set({ informer }, seconds);
    },
  });
  return {
    queueDepth: new Gauge({
      name: 'spire_reconciler_queue_depth',
      help: 'Changes (Kubernetes events, timers) waiting for the next reconcile pass.',
      registers,
    }),
    forbidden: new Gauge<'resource'>({
      name: 'spire_reconciler_api_forbidden',
      help: 'Optional Kubernetes access the controller was denied (403), by resource: endpointslices (Service DNS names then come from core Endpoints), endpoints, validatingwebhookconfigurations, events. 1 while denied. Readiness is not affected.',
      labelNames: ['resource'],
      registers,
    }),
    podsListed: new Gauge({
      name: 'spire_reconciler_pods_listed',
      help: 'Pods the first list of pods has brought so far (at start, and after a relist); with cold-start progress logs.',
      registers,
    }),
    relists: new Counter<'informer' | 'reason'>({
      name: 'spire_reconciler_informer_relists_total',
      help: 'Relists an informer started: because its watch could not go on from its resourceVersion, reason expired (410), resource-version-too-large (ahead of the API server, e.g. etcd restored from a backup), silent (nothing received for 5 minutes); or on schedule, reason periodic (relistInterval).',
      labelNames: ['informer', 'reason'],
      registers,
    }),
  };
}

/** This replica's standing: leadership, the probe server's checks, its own SVID. */
function replicaMetrics(registers: Registers, checks: () => Iterable<{ check: string; ok: boolean }>) {
  new Gauge({
    name: 'spire_reconciler_check_ok',
    help: 'Each condition the probe server reports (informers-synced, webhook-certificate, ...): 1 while it passes, 0 while it fails. In the SPIRE server\'s pod none of them decides readiness, so alert on this instead.',
    labelNames: ['check'],
    registers,
    collect() {
      for (const { check, ok } of checks()) this.set({ check }, ok ? 1 : 0);
    },
  });
  const leader = new Gauge({
    name: 'spire_reconciler_leader',
    help: '1 when this replica holds the leader-election lease and is the one writing to SPIRE, else 0.',
    registers,
  });
  leader.set(0);
  return {
    leader,
    workloadApiProblems: new Counter<'cause'>({
      name: 'spire_reconciler_workload_api_problems_total',
      help: "Failed attempts to get the controller's X.509 SVID from the SPIRE agent's Workload API (standalone layout), by cause: no-socket, not-a-socket, no-answer, no-identity (no admin entry: run spire-reconciler bootstrap), expired, trust-domain-mismatch, agent-error. Each is retried with backoff.",
      labelNames: ['cause'],
      registers,
    }),
    svidExpiry: new Gauge({
      name: 'spire_reconciler_svid_expiry_timestamp_seconds',
      help: "Unix time the controller's X.509 SVID from the SPIRE agent expires (standalone layout); 0 without one. The agent renews it at half its life.",
      registers,
    }),
  };
}

/** How long pods wait for their entries: the waits that ended, and those still going. */
function registrationMetrics(registers: Registers, pending: () => { pods: number; oldestSeconds: number }) {
  const registrationSeconds = new Histogram<'outcome' | 'trigger'>({
    name: 'spire_reconciler_registration_seconds',
    help: "Time from the watch event that made a pod registrable (on a node and selected by a ClusterSPIFFEID), as this replica saw it while leading, to SPIRE acknowledging its entry, by outcome (created, updated, already-registered, refused) and trigger (pod: the pod's own event; selection: a ClusterSPIFFEID or Namespace event, timed from the first one the writing pass took). Pods already registrable when the replica started leading are not timed.",
    labelNames: ['outcome', 'trigger'],
    buckets: REGISTRATION_BUCKETS,
    registers,
  });
  for (const outcome of REGISTRATION_OUTCOMES) {
    // Refusals are timed for a pod's own event only (registration-clock.ts:RegistrationClock.selected).
    for (const trigger of REGISTRATION_TRIGGERS) if (outcome !== 'refused' || trigger === 'pod') registrationSeconds.zero({ outcome, trigger });
  }
  new Gauge({
    name: 'spire_reconciler_registrations_pending',
    help: 'Pods the leader times as registrable whose entries SPIRE has not acknowledged yet (registration_seconds observes each when it does): a render failure, a write of unknown outcome or SPIRE out of reach keeps a pod here.',
    registers,
    collect() {
      this.set(pending().pods);
    },
  });
  new Gauge({
    name: 'spire_reconciler_registration_oldest_pending_seconds',
    help: 'How long the pod waiting longest for its entry has waited (0 when none waits): a wait that has not ended yet, which the histogram cannot show.',
    registers,
    collect() {
      this.set(pending().oldestSeconds);
    },
  });
  return { registrationSeconds };
}

/**
 * The controller's Prometheus metrics, in a registry of its own: never
 * prom-client's global one, so two controllers (or two tests) in one process
 * do not collide over metric names. Every labelled series a dashboard reads
 * exists from the start, so rate() and absent() work before the first event.
 */
export class ControllerMetrics {
  readonly registry: Registry;
  /** Records one SPIRE call; pass it as `observe` in the SPIRE client options. */
  readonly observeSpireRpc: RpcObserver;
  /** The names spire-controller-manager exports (controller-runtime's and its own), beside ours. */
  readonly upstream: UpstreamMetrics;

  private readonly timing: ReturnType<typeof passTimingMetrics>;
  private readonly findings: ReturnType<typeof passFindingMetrics>;
  private readonly spire: ReturnType<typeof spireMetrics>;
  private readonly kube: ReturnType<typeof kubeMetrics>;
  private readonly replica: ReturnType<typeof replicaMetrics>;
  private readonly registrations: ReturnType<typeof registrationMetrics>;
  private registrationsPending: (() => { pods: number; oldestSeconds: number }) | undefined;
  private informerStaleness: (() => Iterable<{ informer: string; seconds: number }>) | undefined;
  private checks: (() => Iterable<{ check: string; ok: boolean }>) | undefined;
  /**
   * Monotonic clock reading of the last successful pass; before the first
   * one, of the start. A monotonic clock, so a wall-clock step (NTP) cannot
   * make the age jump or go negative.
   */
  private lastSuccessAt = performance.now();

  constructor(registry?: Registry) {
    this.registry = registry ?? new Registry();
    const registers = [this.registry];
    if (!this.registry.getSingleMetric(DEFAULT_METRICS_MARKER)) {
      // Process CPU, memory, event-loop lag, GC: what a resource alert needs. Unprefixed, so stock Node.js dashboards work.
      collectDefaultMetrics({ register: this.registry });
    }
    this.timing = passTimingMetrics(registers, () => this.secondsSinceLastSuccess());
    this.findings = passFindingMetrics(registers);
    this.spire = spireMetrics(registers);
    this.kube = kubeMetrics(registers, () => this.informerStaleness?.() ?? []);
    this.replica = replicaMetrics(registers, () => this.checks?.() ?? []);
    this.registrations = registrationMetrics(registers, () => this.registrationsPending?.() ?? { pods: 0, oldestSeconds: 0 });
    this.upstream = new UpstreamMetrics(this.registry);
    const rpcSeconds = this.spire.rpcSeconds;
    this.observeSpireRpc = (rpc, code, seconds) => rpcSeconds.observe({ method: rpc, code }, seconds);
  }

  observePhase(phase: Phase, seconds: number): void {
    this.timing.phaseSeconds.observe({ phase }, seconds);
  }

  /**
   * A pass that ran to its end, even if SPIRE refused some items (those
   * count as `failed`): it is a success for staleness purposes, because the
   * controller saw and acted on the whole cluster.
   */
  observePass(result: PassCounts, seconds: number): void {
    this.observeWrites(result);
    this.findings.renderFailures.set(result.renderFailures);
    for (const kind of INVALID_KINDS) this.findings.invalidObjects.set({ kind }, result.invalidObjects?.[kind] ?? 0);
    this.findings.conflicts.set(result.conflicts);
    this.findings.withoutFederation.set(result.withoutFederation ?? 0);
    this.findings.kept.set(result.kept);
    this.upstream.addStaticEntryFailures(result.staticEntryFailures ?? 0);
    this.timing.passSeconds.observe(seconds);
    this.lastSuccessAt = performance.now();
    this.timing.lastSuccessTimestamp.set(Date.now() / 1000);
  }

  /** Entries written by any pass, full or for pod events (the gauges above describe full passes only). */
  observeWrites(counts: Pick<PassCounts, (typeof ENTRY_OPS)[number]>): void {
    for (const op of ENTRY_OPS) {
      if (counts[op] > 0) this.spire.entries.inc({ op }, counts[op]);
    }
  }

  /** A pod's wait for its entry ended (manager/registration-clock.ts). */
  observeRegistration(outcome: RegistrationOutcome, trigger: RegistrationTrigger, seconds: number): void {
    this.registrations.registrationSeconds.observe({ outcome, trigger }, seconds);
  }

  /** Where the pending-registration gauges read from at scrape time. */
  observeRegistrationsPending(source: () => { pods: number; oldestSeconds: number }): void {
    this.registrationsPending = source;
  }

  informerRelisted(informer: string, reason: string): void {
    this.kube.relists.inc({ informer, reason });
  }

  /** Where the informer staleness gauge reads from at scrape time: every informer, 0 when current. */
  observeInformers(source: () => Iterable<{ informer: string; seconds: number }>): void {
    this.informerStaleness = source;
  }

  workloadApiProblem(cause: string): void {
    this.replica.workloadApiProblems.inc({ cause });
  }

  /** Seconds since the epoch; 0: no SVID. */
  setSvidExpiry(seconds: number): void {
    this.replica.svidExpiry.set(seconds);
  }

  /** Where the check gauge reads from at scrape time: every condition the probe server reports. */
  observeChecks(source: () => Iterable<{ check: string; ok: boolean }>): void {
    this.checks = source;
  }

  passFailed(): void {
    this.timing.passFailures.inc();
  }

  driftChecked(result: 'none' | 'drift'): void {
    this.timing.driftChecks.inc({ result });
  }

  setQueueDepth(n: number): void {
    this.kube.queueDepth.set(n);
  }

  /** `lease`: the Lease's name, with leader election on (controller-runtime's leader_election_master_status). */
  setLeader(isLeader: boolean, lease?: string): void {
    this.replica.leader.set(isLeader ? 1 : 0);
    if (lease !== undefined) this.upstream.setLeader(lease, isLeader);
  }

  /** An optional resource the controller may (false) or may not (true) access, as last seen. */
  setForbidden(resource: string, forbidden: boolean): void {
    this.kube.forbidden.set({ resource }, forbidden ? 1 : 0);
  }

  setPodsListed(n: number): void {
    this.kube.podsListed.set(n);
  }

  setPassWrites(done: number, planned: number): void {
    this.spire.passWrites.set({ state: 'done' }, done);
    this.spire.passWrites.set({ state: 'planned' }, planned);
  }

  /** Also usable by a health check that wants to report a stalled loop. */
  secondsSinceLastSuccess(): number {
    return (performance.now() - this.lastSuccessAt) / 1000;
  }

  /** The Prometheus text exposition of everything in the registry. */
  async expose(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
