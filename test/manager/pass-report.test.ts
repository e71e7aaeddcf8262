import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type ClusterSnapshot, type ClusterStaticEntry, defaultConfig } from '../../src/api/index.js';
import { passOptions } from '../../src/cli/context.js';
import { planPass } from '../../src/entries/index.js';
import { passReport, PassReporter } from '../../src/manager/pass-report.js';

const config = { ...defaultConfig(), trustDomain: 'example.org', clusterName: 'demo' };
const staticEntry = {
  apiVersion: 'spire.spiffe.io/v1alpha1',
  kind: 'ClusterStaticEntry',
  metadata: { name: 'gateway', uid: 'uid-gateway', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { spiffeID: '/gateway', parentID: '/spire/server', selectors: ['unix:uid:1000'] },
} as unknown as ClusterStaticEntry;
const snapshot: ClusterSnapshot = { clusterSPIFFEIDs: [], clusterStaticEntries: [staticEntry], namespaces: [], pods: [], nodes: [], endpointSlices: [], endpoints: [] };
// A plan without an apply: one entry to create, nothing written.
const result = () => planPass(snapshot, [], passOptions(config));

function memoryLog(): { log: pino.Logger; lines: { level: number; msg: string; ms?: number }[] } {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as { level: number; msg: string });
      done();
    },
  });
  return { log: pino({ level: 'debug' }, sink), lines };
}

describe('the report after a full pass, the same in every mode', () => {
  it('counts as the metrics do, and the time in ms', () => {
    expect(passReport(result(), 0.0125)).toEqual({ created: 0, updated: 0, deleted: 0, failed: 0, kept: 0, conflicts: 0, renderFailures: 0, ms: 13 });
  });

  it('manifest mode: every pass "reconciled" at info, and no line in words', () => {
    const { log, lines } = memoryLog();
    const reports = new PassReporter({ lines: 'every pass at info', clusterDomain: 'cluster.local', metrics: undefined });
    reports.fullPass(result(), 0.001, log);
    reports.fullPass(result(), 0.001, log);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [30, 'reconciled'],
      [30, 'reconciled'],
    ]);
  });

  it('live mode: "reconciled" at debug, and the first pass of each term in words at info', () => {
    const { log, lines } = memoryLog();
    const reports = new PassReporter({ lines: 'first of each term at info', clusterDomain: 'cluster.local', metrics: undefined });
    reports.fullPass(result(), 0.001, log);
    reports.fullPass(result(), 0.001, log);
    reports.termStarted();
    reports.fullPass(result(), 0.001, log);
    const first = 'first full pass as leader: 0 entries created, 0 updated, 0 deleted, 0 failed; 1 declared, 0 kept, 0 conflicts, 0 render failures';
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [20, 'reconciled'],
      [30, first],
      [20, 'reconciled'],
      [20, 'reconciled'],
      [30, first],
    ]);
  });
});
