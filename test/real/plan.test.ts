/**
 * `plan` against a real API server, as the controller's ServiceAccount under
 * deploy/ RBAC: the same plan as over the same objects written as manifests,
 * and `explain pod` from the cluster.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DEMO_DIR } from '../../src/cli/demo.js';
import { explainPodCommand } from '../../src/cli/explain.js';
import { runOnce } from '../../src/cli/one-pass.js';
import type { PlanReport } from '../../src/cli/report.js';
import { loadManifests } from '../../src/manifests/index.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { controllerKubeConfig, DEPLOY_RBAC, type Obj } from './world.js';

const quiet = pino({ level: 'silent' });
const config = join(DEMO_DIR, 'config.yaml');
const entries = join(DEMO_DIR, 'spire-entries.json');

const KINDS: [string, string, string][] = [
  ['spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID', '/apis/spire.spiffe.io/v1alpha1/clusterspiffeids'],
  ['spire.spiffe.io/v1alpha1', 'ClusterStaticEntry', '/apis/spire.spiffe.io/v1alpha1/clusterstaticentries'],
  ['v1', 'Namespace', '/api/v1/namespaces'],
  ['v1', 'Node', '/api/v1/nodes'],
  ['v1', 'Pod', '/api/v1/pods'],
  ['discovery.k8s.io/v1', 'EndpointSlice', '/apis/discovery.k8s.io/v1/endpointslices'],
];

const comparable = ({ source: _source, ...rest }: PlanReport) => ({ ...rest, create: rest.create.map((c) => ({ ...c, id: 'NEW' })) });

describe('plan and explain against a real API server', () => {
  let plane: ControlPlane;
  let kc: KubeConfig;
  let dir: string;

  beforeAll(async () => {
    plane = await startControlPlane();
    kc = await controllerKubeConfig(plane, DEPLOY_RBAC);
    dir = mkdtempSync(join(tmpdir(), 'real-plan-'));
    const demo = await loadManifests([join(DEMO_DIR, 'manifests')]);
    const objects = [...demo.namespaces, ...demo.nodes, ...demo.clusterSPIFFEIDs, ...demo.clusterStaticEntries, ...demo.pods, ...demo.endpointSlices] as unknown as Obj[];
    for (const obj of objects) {
      const { uid: _uid, creationTimestamp: _created, ...metadata } = obj.metadata as Obj['metadata'] & { creationTimestamp?: string };
      const { status, ...rest } = obj as Obj & { status?: { phase?: string } };
      const stored = await plane.apply<Obj>({ ...rest, metadata });
      // What the kubelet would write: a finished pod's phase.
      if (obj.kind === 'Pod' && status?.phase) await plane.request('PATCH', `/api/v1/namespaces/${stored.metadata.namespace}/pods/${stored.metadata.name}/status`, { body: { status: { phase: status.phase } }, contentType: 'application/merge-patch+json' });
    }
    // The same objects, as the API server holds them, as one manifest file.
    const items: object[] = [];
    for (const [apiVersion, kind, path] of KINDS) {
      const list = await plane.request<{ items: object[] }>('GET', path);
      items.push(...list.items.map((o) => ({ apiVersion, kind, ...o })));
    }
    writeFileSync(join(dir, 'cluster.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items }));
  });
  afterAll(async () => {
    await plane?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('plan from the cluster is the plan from the same objects as manifests', async () => {
    let live = '';
    await runOnce({ config, entries, output: 'json' }, { apply: false, log: quiet, print: (s) => (live += s), kubeConfig: () => kc });
    let files = '';
    await runOnce({ config, entries, manifests: [dir], output: 'json' }, { apply: false, log: quiet, print: (s) => (files += s) });
    const liveReport = JSON.parse(live) as PlanReport;
    expect(liveReport.source).toMatchObject({ from: 'cluster', location: expect.stringContaining(plane.url) as string, objects: { ClusterSPIFFEID: 3, ClusterStaticEntry: 1, Pod: 8, Node: 3 } });
    expect(liveReport.create.length).toBeGreaterThan(0);
    expect(comparable(liveReport)).toEqual(comparable(JSON.parse(files) as PlanReport));
  });

  it('explain pod reads the pod, its namespace and node from the cluster', async () => {
    let out = '';
    const { explanation } = await explainPodCommand('payments/worker-0', { config, entries }, { log: quiet, print: (s) => (out += s), kubeConfig: () => kc });
    // In the order the API server lists them: by name.
    expect(explanation.clusterSPIFFEIDs.map((r) => [r.object, r.outcome])).toEqual([
      ['ClusterSPIFFEID/default', 'fallback-suppressed'],
      ['ClusterSPIFFEID/payments', 'declared'],
      ['ClusterSPIFFEID/storefront', 'namespace-not-selected'],
    ]);
    expect(out).toContain(`Read from the cluster at ${plane.url}`);
  });

  it('explain pod says when the entry was created and how long after the pod was bound to its node (PodScheduled, set by the binding)', async () => {
    await plane.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'timing' } });
    await plane.apply({
      apiVersion: 'spire.spiffe.io/v1alpha1',
      kind: 'ClusterSPIFFEID',
      metadata: { name: 'timing' },
      spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/timing/{{ .PodMeta.Name }}', namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'timing' } } },
    });
    // Created without a node, then bound as kube-scheduler binds it: the binding subresource sets spec.nodeName and PodScheduled.
    await plane.apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'late', namespace: 'timing' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    await plane.request('POST', '/api/v1/namespaces/timing/pods/late/binding', {
      body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'late', namespace: 'timing' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' } },
    });
    const bound = await plane.request<{ metadata: { creationTimestamp: string }; status: { conditions?: { type: string; status: string; lastTransitionTime: string }[] } }>('GET', '/api/v1/namespaces/timing/pods/late');
    const scheduled = bound.status.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'True')?.lastTransitionTime;
    expect(scheduled).toBeDefined();

    // The entry our plan would create, on the server 3 s after the binding by SPIRE's created_at.
    let planned = '';
    await runOnce({ config, entries, output: 'json' }, { apply: false, log: quiet, print: (s) => (planned += s), kubeConfig: () => kc });
    const create = (JSON.parse(planned) as PlanReport).create.find((c) => c.pod === 'timing/late')!;
    const toId = (id: string) => ({ trust_domain: new URL(id).host, path: new URL(id).pathname });
    const dump = join(dir, 'timing-entries.json');
    const createdAt = Date.parse(scheduled!) / 1000 + 3;
    writeFileSync(
      dump,
      JSON.stringify({
        entries: [{ id: 'demo.timing-1', spiffe_id: toId(create.spiffeID), parent_id: toId(create.parentID), selectors: create.selectors.map((x) => ({ type: x.split(':')[0], value: x.slice(x.indexOf(':') + 1) })), created_at: String(createdAt), revision_number: '2' }],
      }),
    );
    let out = '';
    const { explanation } = await explainPodCommand('timing/late', { config, entries: dump }, { log: quiet, print: (s) => (out += s), kubeConfig: () => kc });
    const timing = explanation.clusterSPIFFEIDs.find((r) => r.object === 'ClusterSPIFFEID/timing')?.registration;
    expect(timing).toMatchObject({ id: 'demo.timing-1', created: new Date(createdAt * 1000).toISOString().replace('.000Z', 'Z'), updatedSince: true, after: { seconds: 3, since: 'pod-scheduled', at: scheduled } });
    expect(out).toContain(`demo.timing-1: created ${timing!.created}, 3 s after the pod was scheduled (${scheduled}); updated since (revision 2)`);
  });
});
