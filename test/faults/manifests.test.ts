import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runOnce } from '../../src/cli/one-pass.js';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { exitCode, manifestRunConfig, spawnCli, waitForOutput } from '../support/cli.js';
import { csid, eventually, node, ns, pod, startWorld } from '../live/world.js';
import { expectPromisesKept, FaultLedger, PROMISES_KEPT } from './ledger.js';

const PODS = 100;
const quiet = pino({ level: 'silent' });

/** A Node as kubectl prints it: with the UID the parent ID template reads. */
const nodeWithUid = { ...node('node-1'), metadata: { name: 'node-1', uid: '6a1c0f4e-5b7d-4e2a-9c3b-00000000000a' } };

/** A kubectl-style snapshot: a List of pods with fixed UIDs (as the API server gave them). */
function podList(): string {
  const items = Array.from({ length: PODS }, (_, i) => {
    const p = pod('default', `p-${i}`);
    return { ...p, metadata: { ...p.metadata, uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` } };
  });
  return stringify({ apiVersion: 'v1', kind: 'List', items });
}

describe('fault: manifest mode never deletes on partial input (issue 15, item 4)', () => {
  let dir: string;
  let spire: MemorySpireServer;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fault-manifests-'));
    mkdirSync(join(dir, 'manifests'));
    writeFileSync(join(dir, 'manifests', 'cluster.yaml'), [ns('default'), nodeWithUid, csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' })].map((o) => stringify(o)).join('---\n'));
    writeFileSync(join(dir, 'manifests', 'pods.yaml'), podList());
    writeFileSync(join(dir, 'config.yaml'), manifestRunConfig('example.org', join(dir, 'manifests')));
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'example.org' });
  });
  afterEach(async () => {
    await spire.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a pods file written half, paused 1.5 s, then finished: no entry deleted or recreated', async () => {
    const ledger = new FaultLedger('manifest file rewritten slowly (half, 1.5 s pause, rest)', spire);
    ledger.seedForeign();
    const cli = spawnCli(['run', '--config', join(dir, 'config.yaml'), '--socket', spire.socketPath]);
    try {
      await waitForOutput(cli, /"msg":"reconciled"/, 60_000);
      const podEntries = () => spire.entries.all().filter((e) => e.spiffeId.path.startsWith('/pod/')).length;
      expect(podEntries()).toBe(PODS);
      ledger.start();

      // The same content again, written as a slow copy would: truncate, half, pause, rest.
      const text = podList();
      const cut = text.indexOf('\n', Math.floor(text.length / 2)) + 1;
      const reconciled = () => cli.output().split('"msg":"reconciled"').length - 1;
      const before = reconciled();
      const fd = openSync(join(dir, 'manifests', 'pods.yaml'), 'w');
      writeSync(fd, text.slice(0, cut));
      await new Promise((r) => setTimeout(r, 1_500));
      writeSync(fd, text.slice(cut));
      closeSync(fd);
      ledger.clockFrom();
      await eventually(() => reconciled() > before, 'a pass on the finished file', 30_000);
      ledger.converged();
      expect(readFileSync(join(dir, 'manifests', 'pods.yaml'), 'utf8')).toBe(text);
      expect(podEntries()).toBe(PODS);
    } finally {
      cli.kill('SIGTERM');
    }
    expect(await exitCode(cli)).toBe(0);
    const report = ledger.report();
    expect(expectPromisesKept(report)).toEqual(PROMISES_KEPT);
    expect(report.entriesAfter).toBe(report.entriesBefore);
  }, 120_000);

  it('plan on a snapshot without Namespace documents keeps every pod entry, and names the namespace', async () => {
    const ledger = new FaultLedger('plan on a snapshot without Namespace documents', spire);
    ledger.seedForeign();
    const flags = { config: join(dir, 'config.yaml'), socket: spire.socketPath };
    await runOnce(flags, { apply: true, log: quiet, print: () => {} });
    ledger.start();
    // The same cluster without its Namespace: what its pods declare is unknown, not absent.
    writeFileSync(join(dir, 'manifests', 'cluster.yaml'), [nodeWithUid, csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' })].map((o) => stringify(o)).join('---\n'));
    let out = '';
    await runOnce({ ...flags, output: 'json' }, { apply: false, log: quiet, print: (s) => (out += s) });
    const plan = JSON.parse(out) as { delete: unknown[]; create: unknown[]; unknownNamespaces: unknown[]; kept: { reason: string }[] };
    expect(plan.delete).toEqual([]);
    expect(plan.create).toEqual([]);
    expect(plan.unknownNamespaces).toEqual([{ namespace: 'default', pods: PODS }]);
    expect(plan.kept.filter((k) => k.reason === 'render-unknown')).toHaveLength(PODS);
    // And applied, it deletes nothing either.
    await runOnce(flags, { apply: true, log: quiet, print: () => {} });
    ledger.converged();
    const report = ledger.report();
    expect(expectPromisesKept(report)).toEqual(PROMISES_KEPT);
    expect(report.entriesAfter).toBe(report.entriesBefore);
  });
});

describe('fault: the full pass agrees with the pod pass on a namespace the cache does not hold (issue 15, item 4)', () => {
  it("keeps the entries of pods whose Namespace object is missing, as a pod event's pass does", async () => {
    const w = await startWorld();
    try {
      const ledger = new FaultLedger('pods in a namespace the cache does not hold (live mode)', w.spire.server);
      ledger.seedForeign();
      w.kube.create(ns('default'));
      w.kube.create(node('node-1'));
      w.kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
      // The fake API server does not enforce NamespaceLifecycle: pods can name a namespace that is not there.
      for (let i = 0; i < 5; i++) w.kube.create(pod('ghost', `g-${i}`));
      w.kube.create(pod('default', 'web'));
      const live = await w.start();
      await eventually(() => w.spire.server.entries.all().some((e) => e.spiffeId.path === '/pod/web'), 'the entry of the pod in a known namespace');
      // As if written before the Namespace went missing from the cache: the entries these pods had.
      const uidOf = (name: string) => (w.kube.get('v1', 'Pod', name, 'ghost') as { metadata: { uid: string } }).metadata.uid;
      await w.spire.raw.entry.BatchCreateEntry({
        entries: Array.from({ length: 5 }, (_, i) => ({
          id: `scm-ghost-${i}`,
          parent_id: { trust_domain: 'example.org', path: `/spire/agent/k8s_psat/demo/${(w.kube.get('v1', 'Node', 'node-1') as { metadata: { uid: string } }).metadata.uid}` },
          spiffe_id: { trust_domain: 'example.org', path: `/pod/g-${i}` },
          selectors: [{ type: 'k8s', value: `pod-uid:${uidOf(`g-${i}`)}` }],
        })),
      });
      ledger.start();
      live.resync();
      await live.idle();
      // A pod event for one of them goes through the pod pass: the same answer.
      const g0 = w.kube.get('v1', 'Pod', 'g-0', 'ghost') as { metadata: Record<string, unknown> };
      w.kube.update({ ...g0, metadata: { ...g0.metadata, labels: { app: 'g-0', touched: 'yes' } } });
      await eventually(() => live.cache.get<{ metadata: { labels: Record<string, string> } }>('pods', 'g-0', 'ghost')?.metadata.labels.touched === 'yes', 'the pod event');
      await live.idle();
      live.trigger();
      await live.idle();
      ledger.converged();
      const report = ledger.report();
      expect(expectPromisesKept(report)).toEqual(PROMISES_KEPT);
      expect(report.entriesAfter).toBe(report.entriesBefore);
    } finally {
      await w.close();
    }
  });
});
