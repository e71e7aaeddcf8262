import { setTimeout as sleep } from 'node:timers/promises';
import { collectDefaultMetrics, Registry, register as globalRegistry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serveObservability } from '../../src/manager/health.js';
import { ControllerMetrics, countInvalidObjects, PHASES } from '../../src/manager/metrics.js';
import { type Exposition, scrape, value } from './prom-text.js';

const PASS = { created: 0, updated: 0, deleted: 0, failed: 0, renderFailures: 0, conflicts: 0, kept: 0 };

let metrics: ControllerMetrics;
let address: string;
let close: () => Promise<void>;

beforeEach(async () => {
  metrics = new ControllerMetrics();
  const served = await serveObservability({
    metricsBindAddress: '127.0.0.1:0',
    healthProbeBindAddress: '0',
    readinessPath: '/readyz',
    livenessPath: '/healthz',
    metrics,
    readiness: [],
    liveness: [],
  });
  address = served.metricsAddress!;
  close = served.close;
});

afterEach(async () => {
  await close();
});

describe('an operator scraping /metrics sees every controller metric with its type and meaning', () => {
  const expected: [string, string][] = [
    ['spire_reconciler_pass_phase_seconds', 'histogram'],
    ['spire_reconciler_pass_seconds', 'histogram'],
    ['spire_reconciler_entries_total', 'counter'],
    ['spire_reconciler_render_failures', 'gauge'],
    ['spire_reconciler_invalid_objects', 'gauge'],
    ['spire_reconciler_conflicts', 'gauge'],
    ['spire_reconciler_entries_kept', 'gauge'],
    ['spire_reconciler_pass_failures_total', 'counter'],
    ['spire_reconciler_queue_depth', 'gauge'],
    ['spire_reconciler_leader', 'gauge'],
    ['spire_reconciler_spire_rpc_seconds', 'histogram'],
    ['spire_reconciler_seconds_since_last_success', 'gauge'],
    ['spire_reconciler_last_success_timestamp_seconds', 'gauge'],
  ];

  it.each(expected)('%s is a %s with a HELP text', async (name, type) => {
    const e = await scrape(address);
    expect(e.types.get(name)).toBe(type);
    // Plain words: a sentence, not the metric name again.
    expect(e.help.get(name)?.length ?? 0).toBeGreaterThan(30);
  });

  it('includes the Node.js process metrics (CPU, memory, event-loop lag)', async () => {
    const e = await scrape(address);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(e.types.has(name), name).toBe(true);
    }
  });

  it('shows zero-valued entry counters and "not leader" before anything happens, so rate() and alerts work from the start', async () => {
    const e = await scrape(address);
    for (const op of ['created', 'updated', 'deleted', 'failed']) expect(value(e, 'spire_reconciler_entries_total', { op })).toBe(0);
    expect(value(e, 'spire_reconciler_leader')).toBe(0);
    expect(value(e, 'spire_reconciler_last_success_timestamp_seconds')).toBe(0);
    for (const kind of ['ClusterSPIFFEID', 'ClusterStaticEntry']) expect(value(e, 'spire_reconciler_invalid_objects', { kind })).toBe(0);
  });
});

describe('after a pass, an operator sees what it did', () => {
  it('counts entries by outcome, adding across passes', async () => {
    metrics.observePass({ ...PASS, created: 3, updated: 2, deleted: 1, failed: 4 }, 0.2);
    let e = await scrape(address);
    expect(value(e, 'spire_reconciler_entries_total', { op: 'created' })).toBe(3);
    expect(value(e, 'spire_reconciler_entries_total', { op: 'updated' })).toBe(2);
    expect(value(e, 'spire_reconciler_entries_total', { op: 'deleted' })).toBe(1);
    expect(value(e, 'spire_reconciler_entries_total', { op: 'failed' })).toBe(4);

    metrics.observePass({ ...PASS, created: 1 }, 0.01);
    e = await scrape(address);
    expect(value(e, 'spire_reconciler_entries_total', { op: 'created' })).toBe(4);
    expect(value(e, 'spire_reconciler_entries_total', { op: 'failed' })).toBe(4);
  });

  it('shows the last pass’s render failures, conflicts and kept entries as gauges that the next pass replaces', async () => {
    metrics.observePass({ ...PASS, renderFailures: 5, conflicts: 6, kept: 7 }, 0.1);
    let e = await scrape(address);
    expect(value(e, 'spire_reconciler_render_failures')).toBe(5);
    expect(value(e, 'spire_reconciler_conflicts')).toBe(6);
    expect(value(e, 'spire_reconciler_entries_kept')).toBe(7);

    metrics.observePass({ ...PASS, conflicts: 1 }, 0.1);
    e = await scrape(address);
    expect(value(e, 'spire_reconciler_render_failures')).toBe(0);
    expect(value(e, 'spire_reconciler_conflicts')).toBe(1);
    expect(value(e, 'spire_reconciler_entries_kept')).toBe(0);
  });

  it('counts objects refused whole by kind, and the next pass replaces the count', async () => {
    const failures = [
      { owner: { kind: 'ClusterSPIFFEID' } },
      { owner: { kind: 'ClusterSPIFFEID' }, pod: 'ns/p' },
      { owner: { kind: 'ClusterStaticEntry' } },
      { owner: { kind: 'ClusterSPIFFEID' } },
    ];
    metrics.observePass({ ...PASS, renderFailures: 4, invalidObjects: countInvalidObjects(failures) }, 0.1);
    let e = await scrape(address);
    expect(value(e, 'spire_reconciler_invalid_objects', { kind: 'ClusterSPIFFEID' })).toBe(2);
    expect(value(e, 'spire_reconciler_invalid_objects', { kind: 'ClusterStaticEntry' })).toBe(1);
    metrics.observePass(PASS, 0.1);
    e = await scrape(address);
    expect(value(e, 'spire_reconciler_invalid_objects', { kind: 'ClusterSPIFFEID' })).toBe(0);
  });

  it('records pass duration in a histogram whose buckets separate milliseconds from seconds', async () => {
    metrics.observePass(PASS, 0.2);
    metrics.observePass(PASS, 0.002);
    const e = await scrape(address);
    expect(value(e, 'spire_reconciler_pass_seconds_count')).toBe(2);
    expect(value(e, 'spire_reconciler_pass_seconds_sum')).toBeCloseTo(0.202);
    expect(value(e, 'spire_reconciler_pass_seconds_bucket', { le: '0.001' })).toBe(0);
    expect(value(e, 'spire_reconciler_pass_seconds_bucket', { le: '0.0025' })).toBe(1);
    expect(value(e, 'spire_reconciler_pass_seconds_bucket', { le: '0.1' })).toBe(1);
    expect(value(e, 'spire_reconciler_pass_seconds_bucket', { le: '0.25' })).toBe(2);
    expect(value(e, 'spire_reconciler_pass_seconds_bucket', { le: '+Inf' })).toBe(2);
  });

  it('records each phase under its own label', async () => {
    PHASES.forEach((phase, i) => metrics.observePhase(phase, 0.001 * (i + 1)));
    metrics.observePhase('apply', 3);
    const e = await scrape(address);
    for (const phase of PHASES) expect(value(e, 'spire_reconciler_pass_phase_seconds_count', { phase })).toBe(phase === 'apply' ? 2 : 1);
    expect(value(e, 'spire_reconciler_pass_phase_seconds_bucket', { phase: 'apply', le: '1' })).toBe(1);
    expect(value(e, 'spire_reconciler_pass_phase_seconds_bucket', { phase: 'apply', le: '5' })).toBe(2);
  });

  it('counts passes that failed', async () => {
    metrics.passFailed();
    metrics.passFailed();
    const e = await scrape(address);
    expect(value(e, 'spire_reconciler_pass_failures_total')).toBe(2);
  });
});

describe('an operator sees the queue and leadership as they are now', () => {
  it('reports queue depth and leadership', async () => {
    metrics.setQueueDepth(7);
    metrics.setLeader(true);
    let e = await scrape(address);
    expect(value(e, 'spire_reconciler_queue_depth')).toBe(7);
    expect(value(e, 'spire_reconciler_leader')).toBe(1);

    metrics.setQueueDepth(0);
    metrics.setLeader(false);
    e = await scrape(address);
    expect(value(e, 'spire_reconciler_queue_depth')).toBe(0);
    expect(value(e, 'spire_reconciler_leader')).toBe(0);
  });
});

describe('an operator sees SPIRE call latency by method and outcome', () => {
  it('records every observed call under its method and gRPC code, from 100 µs up', async () => {
    metrics.observeSpireRpc('Entry.ListEntries', 'OK', 0.00015);
    metrics.observeSpireRpc('Entry.ListEntries', 'OK', 0.004);
    metrics.observeSpireRpc('Entry.BatchCreateEntry', 'UNAVAILABLE', 1.2);
    const e = await scrape(address);
    expect(value(e, 'spire_reconciler_spire_rpc_seconds_count', { method: 'Entry.ListEntries', code: 'OK' })).toBe(2);
    expect(value(e, 'spire_reconciler_spire_rpc_seconds_bucket', { method: 'Entry.ListEntries', code: 'OK', le: '0.0001' })).toBe(0);
    expect(value(e, 'spire_reconciler_spire_rpc_seconds_bucket', { method: 'Entry.ListEntries', code: 'OK', le: '0.00025' })).toBe(1);
    expect(value(e, 'spire_reconciler_spire_rpc_seconds_count', { method: 'Entry.BatchCreateEntry', code: 'UNAVAILABLE' })).toBe(1);
    expect(value(e, 'spire_reconciler_spire_rpc_seconds_sum', { method: 'Entry.BatchCreateEntry', code: 'UNAVAILABLE' })).toBeCloseTo(1.2);
  });
});

describe('an operator can alert on a controller that stopped succeeding', () => {
  const since = (e: Exposition) => value(e, 'spire_reconciler_seconds_since_last_success');

  it('time since the last success grows between scrapes while no pass succeeds, and drops after one', async () => {
    const first = since(await scrape(address));
    await sleep(25);
    metrics.passFailed(); // a failed pass is not a success
    const second = since(await scrape(address));
    expect(second).toBeGreaterThan(first);

    metrics.observePass(PASS, 0.01);
    const third = since(await scrape(address));
    expect(third).toBeLessThan(second);
    await sleep(25);
    expect(since(await scrape(address))).toBeGreaterThan(third);
  });

  it('stamps the time of the last success', async () => {
    const before = Date.now() / 1000;
    metrics.observePass(PASS, 0.01);
    const after = Date.now() / 1000;
    const stamp = value(await scrape(address), 'spire_reconciler_last_success_timestamp_seconds');
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(stamp).toBeLessThanOrEqual(after);
  });
});

describe('two controllers in one process keep separate metrics', () => {
  it('each has its own registry and neither touches prom-client’s global one', async () => {
    const other = new ControllerMetrics();
    other.observePass({ ...PASS, created: 9 }, 0.1);
    const e = await scrape(address);
    expect(value(e, 'spire_reconciler_entries_total', { op: 'created' })).toBe(0);
    expect(other.registry).not.toBe(metrics.registry);
    expect(globalRegistry.getSingleMetric('spire_reconciler_leader')).toBeUndefined();
  });

  it('joins a registry the application already gave the process metrics, without adding them twice', async () => {
    const shared = new Registry();
    collectDefaultMetrics({ register: shared });
    const joined = new ControllerMetrics(shared);
    expect(joined.registry).toBe(shared);
    const text = await shared.metrics();
    expect(text.match(/^# TYPE process_cpu_user_seconds_total /gm)).toHaveLength(1);
    expect(text).toMatch(/^# TYPE spire_reconciler_leader gauge$/m);
  });
});
