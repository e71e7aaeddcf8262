/**
 * `explain pod` answers "why is my pod not registered?": one test per reason
 * a pod can lack its entry, and one for a registered pod. Each world is a
 * manifests folder plus SPIRE's entries (an `entry show -output json` dump, or
 * the in-memory SPIRE server over its socket, or the in-process API server).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DEMO_DIR } from '../../src/cli/demo.js';
import { explainObjectCommand, explainPodCommand, type ExplainFlags } from '../../src/cli/explain.js';
import type { ObjectExplanation } from '../../src/cli/explain-object.js';
import type { PodExplanation } from '../../src/cli/explain-pod.js';
import type { PlanReport } from '../../src/cli/report.js';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { exitCode, spawnCli } from '../support/cli.js';
import { FakeKubeApiServer } from '../support/kube/index.js';

const quiet = pino({ level: 'silent' });
const TD = 'example.org';
const PARENT = `spiffe://${TD}/spire/agent/k8s_psat/c/node-uid-1`;

type Obj = { apiVersion: string; kind: string; metadata: Record<string, unknown>; [k: string]: unknown };

const ns = (name: string, labels: Record<string, string> = {}): Obj => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, uid: `ns-${name}`, labels } });
const node: Obj = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'node-uid-1' }, spec: {} };
const pod = (over: { namespace?: string; labels?: Record<string, string>; nodeName?: string | null; phase?: string } = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: over.namespace ?? 'apps', uid: 'pod-web', labels: over.labels ?? { app: 'web' } },
  spec: { serviceAccountName: 'web', ...(over.nodeName === null ? {} : { nodeName: over.nodeName ?? 'n1' }) },
  status: { phase: over.phase ?? 'Running' },
});
const csid = (name: string, spec: Record<string, unknown> = {}, created = '2026-01-01T00:00:00Z'): Obj => ({
  apiVersion: 'spire.spiffe.io/v1alpha1',
  kind: 'ClusterSPIFFEID',
  metadata: { name, uid: `csid-${name}`, creationTimestamp: created },
  spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/web', namespaceSelector: { matchLabels: { team: 'a' } }, podSelector: { matchLabels: { app: 'web' } }, ...spec },
});

/** An entry as `spire-server entry show -output json` prints it. */
const dumped = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  spiffe_id: { trust_domain: TD, path: '/web' },
  parent_id: { trust_domain: TD, path: '/spire/agent/k8s_psat/c/node-uid-1' },
  selectors: [{ type: 'k8s', value: 'pod-uid:pod-web' }],
  ...over,
});

const base = (): Obj[] => [ns('apps', { team: 'a' }), ns('other', { team: 'b' }), ns('kube-system'), node, pod(), csid('web')];

describe('explain pod: one test per reason a pod can lack its entry', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'explain-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes the world and explains apps/web (or `ref`) from it. */
  async function explain(objects: Obj[], entries: object[] = [], opts: { ref?: string; config?: Record<string, unknown> } = {}): Promise<{ code: number; x: PodExplanation; table: string }> {
    const config = join(dir, 'config.yaml');
    writeFileSync(config, stringify({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ControllerManagerConfig', trustDomain: TD, clusterName: 'c', clusterDomain: 'cluster.local', ...opts.config }));
    mkdirSync(join(dir, 'manifests'), { recursive: true });
    writeFileSync(join(dir, 'manifests', 'all.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
    writeFileSync(join(dir, 'entries.json'), JSON.stringify({ entries }));
    const flags: ExplainFlags = { config, manifests: [join(dir, 'manifests')], entries: join(dir, 'entries.json') };
    let table = '';
    await explainPodCommand(opts.ref ?? 'apps/web', flags, { log: quiet, print: (s) => (table += s) });
    let json = '';
    const { code } = await explainPodCommand(opts.ref ?? 'apps/web', { ...flags, output: 'json' }, { log: quiet, print: (s) => (json += s) });
    return { code, x: JSON.parse(json) as PodExplanation, table };
  }

  const only = (x: PodExplanation, name = 'web') => x.clusterSPIFFEIDs.find((r) => r.object === `ClusterSPIFFEID/${name}`)!;

  it('a registered pod: its entry is on the server as declared, with its ID; exit 0', async () => {
    const { code, x, table } = await explain(base(), [dumped('scm-1')]);
    expect(code).toBe(0);
    expect(x).toMatchObject({ pod: 'apps/web', uid: 'pod-web', node: 'n1', phase: 'Running', namespace: { name: 'apps', found: true, labels: { team: 'a' } }, registered: true, otherEntries: [] });
    const r = only(x);
    expect(r).toMatchObject({ outcome: 'declared', spire: { state: 'registered', id: 'scm-1' } });
    expect(r.entry).toMatchObject({ id: 'scm-1', spiffeID: `spiffe://${TD}/web`, parentID: PARENT, selectors: ['k8s:pod-uid:pod-web'] });
    // Every step of the walk, in its order, each passed.
    expect(r.checks.map((c) => [c.check, c.ok])).toEqual([
      ['className', true],
      ['spec', true],
      ['namespace', true],
      ['namespaceSelector', true],
      ['ignoreNamespaces', true],
      ['podSelector', true],
      ['scheduled', true],
      ['running', true],
      ['render', true],
    ]);
    expect(x.summary).toBe('apps/web is registered: its entry is on the server as declared.');
    expect(table).toContain(`web              entry spiffe://${TD}/web: registered as scm-1`);
  });

  it('className: an object of another class is not read at all', async () => {
    const { code, x } = await explain([...base().slice(0, -1), csid('web', { className: 'blue' })]);
    expect(code).toBe(1);
    expect(only(x)).toMatchObject({ outcome: 'other-class', detail: 'className "blue" is not this controller\'s (it reads classless objects only), so the object is not read' });
    expect(x.registered).toBe(false);
  });

  it('an invalid ClusterSPIFFEID selects nothing, with the exact problem', async () => {
    const { x } = await explain([...base().slice(0, -1), csid('web', { podSelector: { matchExpressions: [{ key: 'app', operator: 'Equals', values: ['web'] }] } })]);
    expect(only(x)).toMatchObject({ outcome: 'invalid' });
    expect(only(x).detail).toContain('ClusterSPIFFEID web: spec.podSelector.matchExpressions[0].operator: "Equals" is not a valid label selector operator');
  });

  it("the pod's namespace was not read", async () => {
    const { x } = await explain(base().filter((o) => o.metadata.name !== 'apps'));
    expect(only(x)).toMatchObject({ outcome: 'namespace-missing', detail: 'namespace apps was not read, so no ClusterSPIFFEID reaches its pods' });
    expect(x.namespace).toEqual({ name: 'apps', found: false });
  });

  it('namespaceSelector does not match the namespace', async () => {
    const objects = [...base().filter((o) => o.kind !== 'Pod'), pod({ namespace: 'other' })];
    const { x } = await explain(objects, [], { ref: 'other/web' });
    expect(only(x)).toMatchObject({ outcome: 'namespace-not-selected', detail: 'namespaceSelector team=a does not match namespace other (team=b)' });
  });

  it('the namespace is ignored, naming the ignoreNamespaces pattern', async () => {
    const objects = [...base().filter((o) => o.kind !== 'Pod' && o.kind !== 'ClusterSPIFFEID'), csid('web', { namespaceSelector: {} }), pod({ namespace: 'kube-system' })];
    const { x } = await explain(objects, [], { ref: 'kube-system/web', config: { ignoreNamespaces: ['kube-.*', 'spire-system'] } });
    expect(only(x)).toMatchObject({ outcome: 'namespace-ignored', detail: 'namespace kube-system is ignored: it matches ignoreNamespaces pattern "kube-.*"' });
    expect(only(x).checks.at(-2)).toEqual({ check: 'namespaceSelector', ok: true, detail: 'namespaceSelector (empty: selects everything) matches namespace kube-system ((no labels))' });
  });

  it("podSelector does not match the pod's labels", async () => {
    const { x } = await explain([...base().filter((o) => o.kind !== 'Pod'), pod({ labels: { app: 'db', tier: 'data' } })]);
    expect(only(x)).toMatchObject({ outcome: 'pod-not-selected', detail: "podSelector app=web does not match the pod's labels (app=db,tier=data)" });
  });

  it('a fallback is not applied when another ClusterSPIFFEID gives the pod an entry', async () => {
    const { x } = await explain([...base(), csid('catch-all', { fallback: true, namespaceSelector: {}, podSelector: {}, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}' })], [dumped('scm-1')]);
    expect(only(x, 'catch-all')).toMatchObject({ outcome: 'fallback-suppressed', detail: 'a fallback, not applied: ClusterSPIFFEID/web gives the pod an entry' });
    expect(x.registered).toBe(true);
  });

  it('nor when another ClusterSPIFFEID selects the pod and fails to render its entry: the pod keeps its one identity', async () => {
    const failing = csid('web', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/web/{{ .PodMeta.Labels.tier }}' });
    const catchAll = csid('catch-all', { fallback: true, namespaceSelector: {}, podSelector: {}, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}' });
    const { x } = await explain([...base().filter((o) => o.kind !== 'ClusterSPIFFEID'), failing, catchAll], [dumped('scm-1')]);
    expect(only(x, 'web')).toMatchObject({ outcome: 'render-failed' });
    expect(only(x, 'catch-all')).toMatchObject({
      outcome: 'fallback-suppressed',
      detail: 'a fallback, not applied: ClusterSPIFFEID/web selects it and fails to render its entry, so the pod keeps the entries it has rather than get a second identity',
    });
    // Its entry stays (unknown is not absent), and no fallback entry is planned beside it.
    expect(x.otherEntries).toEqual([expect.objectContaining({ state: 'kept' })]);
  });

  it('a pod not scheduled yet gets no entry until it is', async () => {
    const { x } = await explain([...base().filter((o) => o.kind !== 'Pod'), pod({ nodeName: null, phase: 'Pending' })]);
    expect(only(x)).toMatchObject({ outcome: 'unscheduled', detail: 'the pod is not scheduled yet (no spec.nodeName): it gets an entry once it is' });
  });

  it('a finished pod gets no entry', async () => {
    const { x } = await explain([...base().filter((o) => o.kind !== 'Pod'), pod({ phase: 'Succeeded' })]);
    expect(only(x)).toMatchObject({ outcome: 'finished', detail: 'the pod has finished (phase Succeeded): finished pods get no entry' });
  });

  it('a terminating pod keeps its entry until it is gone, and says so', async () => {
    const terminating = { ...pod(), metadata: { ...pod().metadata, deletionTimestamp: '2026-11-23T20:00:30Z', deletionGracePeriodSeconds: 30 } };
    const { code, x, table } = await explain([...base().filter((o) => o.kind !== 'Pod'), terminating], [dumped('scm-1')]);
    expect(code).toBe(0);
    expect(x).toMatchObject({ registered: true, terminating: '2026-11-23T20:00:30Z' });
    expect(only(x).checks.find((c) => c.check === 'running')).toMatchObject({ ok: true, detail: 'phase Running, terminating (deletion requested, due by 2026-11-23T20:00:30Z): its entries stay until the pod is gone' });
    expect(table).toContain('phase Running  terminating (due by 2026-11-23T20:00:30Z)');
  });

  it('a render failure gives the exact error, and the pod keeps the entry it had', async () => {
    const objects = [...base().slice(0, -1), csid('web', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.tier }}' })];
    const { x, table } = await explain(objects, [dumped('scm-old', { spiffe_id: { trust_domain: TD, path: '/old' } })]);
    expect(only(x)).toMatchObject({
      outcome: 'render-failed',
      detail:
        'render failed for pod apps/web: failed to render SPIFFE ID: invalid SPIFFE ID "spiffe://example.org/<no value>": path segment characters are limited to letters, numbers, dots, dashes, and underscores',
    });
    expect(x.otherEntries).toEqual([
      { entry: expect.objectContaining({ id: 'scm-old', spiffeID: `spiffe://${TD}/old` }), state: 'kept', detail: 'the declared entries of pod pod-web could not be computed this pass' },
    ]);
    expect(table).toContain(`scm-old  spiffe://${TD}/old: kept: the declared entries of pod pod-web could not be computed this pass`);
  });

  it("a render failure for a node that was not read names the node", async () => {
    const { x } = await explain(base().filter((o) => o.kind !== 'Node'));
    expect(only(x)).toMatchObject({ outcome: 'render-failed', detail: 'render failed for pod apps/web: node n1 is not known yet' });
  });

  it('waiting: rendered, but not on the server yet, and the old entry it replaces is to be deleted', async () => {
    const { code, x } = await explain(base(), [dumped('scm-old', { spiffe_id: { trust_domain: TD, path: '/old' } })]);
    expect(code).toBe(1);
    expect(only(x).spire).toEqual({ state: 'waiting', detail: 'not on the server yet: the next reconcile creates it' });
    expect(x.otherEntries).toEqual([{ entry: expect.objectContaining({ id: 'scm-old' }), state: 'to-delete', detail: 'undeclared' }]);
    expect(x.summary).toBe('apps/web is not registered as declared: ClusterSPIFFEID/web: waiting: not on the server yet: the next reconcile creates it.');
  });

  it('conflict: an entry outside entryScope holds it, so it is never created', async () => {
    const { x } = await explain(base(), [dumped('made-by-hand')]);
    expect(only(x).spire).toEqual({ state: 'conflict', heldBy: ['made-by-hand'] });
    expect(x.registered).toBe(false);
  });

  it('outdated: on the server with other field values, which the next reconcile updates', async () => {
    const { x } = await explain([...base().slice(0, -1), csid('web', { ttl: '1h' })], [dumped('scm-1', { x509_svid_ttl: 60 })]);
    expect(only(x).spire).toEqual({ state: 'outdated', id: 'scm-1', changed: ['x509SVIDTTL'], old: { x509SVIDTTL: 60 }, new: { x509SVIDTTL: 3600 } });
  });

  it('masked: an older object declares the same entry and wins; the pod is registered through it', async () => {
    const statik: Obj = {
      apiVersion: 'spire.spiffe.io/v1alpha1',
      kind: 'ClusterStaticEntry',
      metadata: { name: 'pinned', uid: 'static-1', creationTimestamp: '2025-01-01T00:00:00Z' },
      spec: { spiffeID: '/web', parentID: PARENT, selectors: ['k8s:pod-uid:pod-web'] },
    };
    const { x } = await explain([...base(), statik], [dumped('scm-1')]);
    expect(only(x).spire).toEqual({ state: 'masked', by: 'ClusterStaticEntry/pinned', winner: { state: 'registered', id: 'scm-1' } });
    expect(x.registered).toBe(true);
  });

  it('policy create-only keeps an outdated entry as it is', async () => {
    const { x } = await explain([...base().slice(0, -1), csid('web', { ttl: '1h' })], [dumped('scm-1')], { config: { policy: 'create-only' } });
    expect(only(x).spire).toEqual({ state: 'kept', id: 'scm-1', detail: 'policy create-only never updates (x509SvidTtl differ)' });
  });

  it('a pod that does not exist is an error naming where it looked', async () => {
    await expect(explain(base(), [], { ref: 'apps/nope' })).rejects.toThrow(/^pod apps\/nope not found \(read 1 manifest file from .*: 1 ClusterSPIFFEID, .* 1 Pod,/);
    await expect(explain(base(), [], { ref: 'nope' })).rejects.toThrow('explain pod: give the pod as NAMESPACE/NAME, got "nope"');
  });
});

describe('explain reads SPIRE over its socket and the cluster over KUBECONFIG', () => {
  let dir: string;
  let spire: MemorySpireServer;
  let kube: FakeKubeApiServer;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'explain-live-'));
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: TD });
    kube = await FakeKubeApiServer.start();
    writeFileSync(join(dir, 'config.yaml'), stringify({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ControllerManagerConfig', trustDomain: TD, clusterName: 'c', spireServerSocketPath: join(dir, 'api.sock') }));
    for (const o of base()) kube.create({ ...o, metadata: { ...o.metadata, uid: undefined } });
    // A second pod the read for one pod must not list.
    kube.create({ ...pod(), metadata: { name: 'other', namespace: 'apps', labels: { app: 'web' } } });
  });
  afterEach(async () => {
    await spire.stop();
    await kube.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('explain pod reads only that pod, its namespace and node, lists entries over the socket and writes nothing; an entry there is registered', async () => {
    const flags = { config: join(dir, 'config.yaml') };
    const before = await explainPodCommand('apps/web', { ...flags, output: 'json' }, { log: quiet, print: () => {}, kubeConfig: () => kube.kubeConfig() });
    expect(before.explanation.clusterSPIFFEIDs[0]!.spire).toMatchObject({ state: 'waiting' });
    expect(before.code).toBe(1);
    // Reads only: the pod, not every pod in the cluster.
    // Lists narrowed by name (the controller's RBAC grants list, not get), never every pod.
    const reads = kube.requests.map((r) => `${r.path}?${decodeURIComponent(r.query)}`);
    expect(reads.some((r) => r.startsWith('/api/v1/namespaces/apps/pods?') && r.includes('fieldSelector=metadata.name=web'))).toBe(true);
    expect(reads.some((r) => r.startsWith('/api/v1/pods?'))).toBe(false);
    expect(spire.calls.every((c) => !c.method.startsWith('Batch'))).toBe(true);

    // The API server gave the pod and the node their own UIDs.
    const uid = kube.get('v1', 'Pod', 'web', 'apps')!.metadata!.uid;
    const nodeUid = kube.get('v1', 'Node', 'n1')!.metadata!.uid;
    spire.seed({ entries: [{ ...dumped('scm-live'), parent_id: { trust_domain: TD, path: `/spire/agent/k8s_psat/c/${nodeUid}` }, selectors: [{ type: 'k8s', value: `pod-uid:${uid}` }] }] });
    let table = '';
    const after = await explainPodCommand('apps/web', flags, { log: quiet, print: (s) => (table += s), kubeConfig: () => kube.kubeConfig() });
    expect(after.explanation.clusterSPIFFEIDs[0]!.spire).toEqual({ state: 'registered', id: 'scm-live' });
    expect(after.code).toBe(0);
    // When SPIRE created the entry (its created_at, listed over the socket), against the pod's creation (no kubelet here sets PodScheduled).
    const created = kube.get('v1', 'Pod', 'web', 'apps')!.metadata!.creationTimestamp as string;
    const registration = after.explanation.clusterSPIFFEIDs[0]!.registration!;
    expect(registration).toMatchObject({ id: 'scm-live', updatedSince: false, after: { since: 'pod-created', at: created } });
    expect(Math.abs(Date.parse(registration.created!) - Date.now())).toBeLessThan(5_000);
    expect(table).toContain(`ClusterSPIFFEID/web  scm-live: ${registration.detail}`);

    // kubectl delete: the pod is marked terminating, read as such from the cluster, and still registered.
    const marked = kube.deleteGracefully('v1', 'Pod', 'web', 'apps')!;
    const terminating = await explainPodCommand('apps/web', flags, { log: quiet, print: () => {}, kubeConfig: () => kube.kubeConfig() });
    expect(terminating.explanation).toMatchObject({ registered: true, terminating: marked.metadata!.deletionTimestamp });
  });

  it('as a process: exit 1 when the pod is not registered, 2 when it does not exist', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    kube.writeKubeconfig(kubeconfig);
    const notYet = spawnCli(['explain', 'pod', 'apps/web', '--config', join(dir, 'config.yaml')], { env: { KUBECONFIG: kubeconfig } });
    expect(await exitCode(notYet)).toBe(1);
    expect(notYet.output()).toContain('apps/web is not registered as declared: ClusterSPIFFEID/web: waiting');
    const missing = spawnCli(['explain', 'pod', 'apps/gone', '--config', join(dir, 'config.yaml')], { env: { KUBECONFIG: kubeconfig } });
    expect(await exitCode(missing)).toBe(2);
    expect(missing.output()).toContain(`spire-reconciler: pod apps/gone not found (read from the cluster at ${kube.url} (context fake)`);
  });
});

describe('explain clusterspiffeid summarises one object: namespaces, pods, failures, conflicts, entries', () => {
  it('gives each field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'explain-object-'));
    try {
      const objects: Obj[] = [
        ns('apps', { team: 'a' }),
        ns('other', { team: 'b' }),
        ns('kube-system', { team: 'a' }),
        node,
        pod(),
        { ...pod({ labels: { app: 'web', broken: 'yes' } }), metadata: { name: 'bad', namespace: 'apps', uid: 'pod-bad', labels: { app: 'web' } }, spec: { nodeName: 'gone' } },
        { ...pod({ nodeName: null }), metadata: { name: 'pending', namespace: 'apps', uid: 'pod-pending', labels: { app: 'web' } } },
        { ...pod({ phase: 'Failed' }), metadata: { name: 'done', namespace: 'apps', uid: 'pod-done', labels: { app: 'web' } } },
        { ...pod(), metadata: { name: 'db', namespace: 'apps', uid: 'pod-db', labels: { app: 'db' } } },
        csid('web'),
      ];
      mkdirSync(join(dir, 'm'));
      writeFileSync(join(dir, 'm', 'all.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
      writeFileSync(join(dir, 'entries.json'), JSON.stringify({ entries: [dumped('by-hand')] }));
      let json = '';
      const { code } = await explainObjectCommand(
        'web',
        { manifests: [join(dir, 'm')], entries: join(dir, 'entries.json'), trustDomain: TD, clusterName: 'c', output: 'json' },
        { log: quiet, print: (s) => (json += s) },
      );
      expect(code).toBe(0);
      const x = JSON.parse(json) as Record<string, unknown>;
      expect(x).toMatchObject({
        object: 'ClusterSPIFFEID/web',
        className: '',
        ours: true,
        fallback: false,
        namespaceSelector: 'team=a',
        podSelector: 'app=web',
        namespaces: { selected: ['apps', 'kube-system'], ignored: [{ name: 'kube-system', pattern: 'kube-system' }], notSelected: 1 },
        pods: { selected: 4, notSelected: 1, withEntry: 1, renderFailures: [{ pod: 'apps/bad', message: 'node gone is not known yet' }], unscheduled: ['apps/pending'], finished: ['apps/done'], fallbackSuppressed: [] },
        entries: [{ pod: 'apps/web', entry: expect.objectContaining({ spiffeID: `spiffe://${TD}/web` }), spire: { state: 'conflict', heldBy: ['by-hand'] } }],
        spire: { registered: 0, outdated: 0, waiting: 0, conflict: 1, masked: 0, kept: 0 },
        status: { namespacesSelected: 2, namespacesIgnored: 1, podsSelected: 4, podEntryRenderFailures: 1, entryFailures: 1 },
        summary: 'ClusterSPIFFEID/web: 1 of 4 selected pods get an entry, 1 in conflict, 1 render failures.',
      });
      expect(x.source).toMatchObject({ from: 'manifests' });

      let table = '';
      await explainObjectCommand('web', { manifests: [join(dir, 'm')], entries: join(dir, 'entries.json'), trustDomain: TD, clusterName: 'c' }, { log: quiet, print: (s) => (table += s) });
      expect(table).toContain('Status  2 namespaces selected (1 ignored), 4 pods selected, 1 render failure, 1 entry to set, 0 masked, 1 entry failure');
      expect(table).toContain('Namespaces  namespaceSelector team=a: 2 selected (1 ignored by ignoreNamespaces), 1 not selected');
      expect(table).toContain('kube-system (ignored: pattern "kube-system")');
      expect(table).toContain('apps/bad: node gone is not known yet');
      expect(table).toContain(`apps/web  spiffe://${TD}/web: conflict: held by by-hand outside entryScope, so never created`);
      await expect(explainObjectCommand('nope', { manifests: [join(dir, 'm')], entries: join(dir, 'entries.json'), trustDomain: TD, clusterName: 'c' }, { log: quiet, print: () => {} })).rejects.toThrow(
        /^ClusterSPIFFEID nope not found \(read 1 manifest file/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('explain clusterspiffeid and the status plan reports agree on every count', () => {
  it('on the demo, for each ClusterSPIFFEID: namespaces selected and ignored, pods selected, render failures, entries to set, masked and failed', { timeout: 120_000 }, async () => {
    const source = ['--config', join(DEMO_DIR, 'config.yaml'), '--manifests', join(DEMO_DIR, 'manifests'), '--entries', join(DEMO_DIR, 'spire-entries.json')];
    const names = ['payments', 'storefront', 'default'];
    const plan = spawnCli(['plan', ...source, '-o', 'json']);
    const explained = names.map((name) => spawnCli(['explain', 'clusterspiffeid', name, ...source, '-o', 'json']));
    const table = spawnCli(['explain', 'clusterspiffeid', 'default', ...source]);
    for (const cli of [plan, ...explained, table]) expect(await exitCode(cli)).toBe(0);
    const status = (JSON.parse(plan.output()) as PlanReport).status.clusterSPIFFEIDs;
    expect(Object.keys(status).sort()).toEqual([...names].sort());
    names.forEach((name, i) => {
      const x = JSON.parse(explained[i]!.output()) as ObjectExplanation;
      const s = status[name]!;
      // Counted by explain from the walk it observed, against the status the plan computed in another process.
      expect({
        namespacesSelected: x.namespaces.selected.length,
        namespacesIgnored: x.namespaces.ignored.length,
        podsSelected: x.pods.selected,
        podEntryRenderFailures: x.pods.renderFailures.length,
        entriesToSet: x.pods.withEntry - x.spire.masked,
        entriesMasked: x.spire.masked,
        entryFailures: x.spire.conflict,
      }).toEqual({
        namespacesSelected: s.namespacesSelected,
        namespacesIgnored: s.namespacesIgnored,
        podsSelected: s.podsSelected,
        podEntryRenderFailures: s.podEntryRenderFailures,
        entriesToSet: s.entriesToSet,
        entriesMasked: s.entriesMasked,
        entryFailures: s.entryFailures,
      });
      expect(x.status).toEqual(s);
    });
    // The demo's fallback selects every namespace, kube-system too, which ignoreNamespaces then ignores: 5 selected, as its status says.
    expect(status.default).toMatchObject({ namespacesSelected: 5, namespacesIgnored: 1, podsSelected: 7 });
    expect(table.output()).toContain('Status  5 namespaces selected (1 ignored), 7 pods selected, 0 render failures, 1 entry to set, 0 masked, 0 entry failures');
    expect(table.output()).toContain('Namespaces  namespaceSelector (empty: selects everything): 5 selected (1 ignored by ignoreNamespaces), 0 not selected');
  });
});
