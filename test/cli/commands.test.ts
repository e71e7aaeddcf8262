import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_DIR, runDemo } from '../../src/cli/demo.js';
import { runOnce } from '../../src/cli/one-pass.js';
import { readSeedFile } from '../../src/cli/memory-spire.js';
import { renderCommand } from '../../src/cli/render-command.js';
import { createCertificateAuthority } from '../../src/memspire/ca.js';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { exitCode, spawnCli } from '../support/cli.js';
import { ZERO_ENTRY_FIELDS } from '../support/entry-view.js';
import { pino } from 'pino';

const quiet = pino({ level: 'silent' });
const demoFlags = { config: join(DEMO_DIR, 'config.yaml'), manifests: [join(DEMO_DIR, 'manifests')] };
const nodeA = 'spiffe://demo.example/spire/agent/k8s_psat/demo/6a1c0f4e-5b7d-4e2a-9c3b-00000000000a';
const nodeB = 'spiffe://demo.example/spire/agent/k8s_psat/demo/6a1c0f4e-5b7d-4e2a-9c3b-00000000000b';
const nodeC = 'spiffe://demo.example/spire/agent/k8s_psat/demo/6a1c0f4e-5b7d-4e2a-9c3b-00000000000c';
const entry = (over: Record<string, unknown>) => ({ ...ZERO_ENTRY_FIELDS, ...over });
const NEW_ID = expect.stringMatching(/^scm-demo\.[0-9a-f-]{36}$/);

describe('`plan --entries` prints exactly what a reconcile would do, from a snapshot and an entries dump', () => {
  it('gives the documented JSON for the demo cluster and its `spire-server entry show -output json` dump', async () => {
    let out = '';
    const { code } = await runOnce({ ...demoFlags, entries: join(DEMO_DIR, 'spire-entries.json'), output: 'json' }, { apply: false, log: quiet, print: (s) => (out += s) });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({
      create: [
        entry({ id: NEW_ID, spiffeID: 'spiffe://demo.example/cluster/demo/nodes', parentID: 'spiffe://demo.example/spire/server', selectors: ['k8s_psat:cluster:demo'], object: 'ClusterStaticEntry/demo-nodes' }),
        entry({
          id: NEW_ID,
          object: 'ClusterSPIFFEID/payments',
          pod: 'payments/worker-0',
          podUID: '3e2d1c0b-0000-4000-8000-0000000000b2',
          spiffeID: 'spiffe://demo.example/ns/payments/sa/payments-worker',
          parentID: nodeC,
          selectors: ['k8s:ns:payments', 'k8s:pod-uid:3e2d1c0b-0000-4000-8000-0000000000b2', 'k8s:sa:payments-worker'],
          dnsNames: ['worker-0.payments.svc.cluster.local'],
          x509SVIDTTL: 3600,
        }),
        entry({
          id: NEW_ID,
          object: 'ClusterSPIFFEID/storefront',
          pod: 'storefront/web-7d9f6c-fghij',
          podUID: '3e2d1c0b-0000-4000-8000-0000000000a2',
          spiffeID: 'spiffe://demo.example/storefront/web',
          parentID: nodeB,
          selectors: ['k8s:pod-uid:3e2d1c0b-0000-4000-8000-0000000000a2'],
          dnsNames: ['web', 'web.storefront', 'web.storefront.svc', 'web.storefront.svc.cluster.local'],
          hint: 'storefront',
        }),
        entry({
          id: NEW_ID,
          object: 'ClusterSPIFFEID/default',
          pod: 'monitoring/prometheus-0',
          podUID: '3e2d1c0b-0000-4000-8000-0000000000c1',
          spiffeID: 'spiffe://demo.example/ns/monitoring/sa/prometheus',
          parentID: nodeB,
          selectors: ['k8s:pod-uid:3e2d1c0b-0000-4000-8000-0000000000c1'],
        }),
      ],
      update: [
        {
          entry: entry({
            id: 'scm-demo.2b7e1f5a-9c3d-4e8f-a1b2-c3d4e5f60001',
            spiffeID: 'spiffe://demo.example/ns/payments/sa/payments-api',
            parentID: nodeA,
            selectors: ['k8s:ns:payments', 'k8s:pod-uid:3e2d1c0b-0000-4000-8000-0000000000b1', 'k8s:sa:payments-api'],
            dnsNames: ['payments-api.payments.svc.cluster.local'],
            x509SVIDTTL: 3600,
          }),
          object: 'ClusterSPIFFEID/payments',
          pod: 'payments/api-5c8b7f-xk2lm',
          podUID: '3e2d1c0b-0000-4000-8000-0000000000b1',
          changed: ['dnsNames'],
          old: { dnsNames: ['payments-api.payments.svc'] },
        },
      ],
      delete: [
        entry({
          id: 'scm-demo.2b7e1f5a-9c3d-4e8f-a1b2-c3d4e5f60003',
          spiffeID: 'spiffe://demo.example/ns/payments/sa/payments-api',
          parentID: nodeB,
          selectors: ['k8s:ns:payments', 'k8s:pod-uid:3e2d1c0b-0000-4000-8000-0000000000b0', 'k8s:sa:payments-api'],
          dnsNames: ['payments-api.payments.svc.cluster.local'],
          x509SVIDTTL: 3600,
          // The pod is gone, so only its UID is known.
          reason: 'undeclared',
          podUID: '3e2d1c0b-0000-4000-8000-0000000000b0',
        }),
      ],
      conflicts: [],
      renderFailures: [],
      federationOmissions: [],
      unknownNamespaces: [],
      kept: [],
      status: {
        clusterSPIFFEIDs: {
          payments: { namespacesSelected: 1, namespacesIgnored: 0, podsSelected: 2, podEntryRenderFailures: 0, entriesMasked: 0, entriesToSet: 2, entryFailures: 0, entriesWithoutFederation: 0 },
          storefront: { namespacesSelected: 1, namespacesIgnored: 0, podsSelected: 2, podEntryRenderFailures: 0, entriesMasked: 0, entriesToSet: 2, entryFailures: 0, entriesWithoutFederation: 0 },
          default: { namespacesSelected: 5, namespacesIgnored: 1, podsSelected: 7, podEntryRenderFailures: 0, entriesMasked: 0, entriesToSet: 1, entryFailures: 0, entriesWithoutFederation: 0 },
        },
        clusterStaticEntries: { 'demo-nodes': { rendered: true, masked: false, set: true } },
      },
      source: {
        from: 'manifests',
        location: join(DEMO_DIR, 'manifests'),
        files: 6,
        objects: { ClusterSPIFFEID: 3, ClusterStaticEntry: 1, ClusterFederatedTrustDomain: 0, Namespace: 5, Node: 3, Pod: 8, EndpointSlice: 1, Endpoints: 0 },
      },
      notes: ['1 entry on the server outside entryScope prefixed (IDs without the scm-demo. prefix): never changed or deleted'],
      summary: { create: 4, update: 1, delete: 1, kept: 0, conflicts: 0, renderFailures: 0 },
    });
  });

  it('names the file and the entry when the dump is not what `entry show -output json` prints', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dump-'));
    try {
      writeFileSync(join(dir, 'bad.json'), JSON.stringify({ entries: [{ id: 'x', x509_svid_ttl: 'an hour' }] }));
      await expect(runOnce({ ...demoFlags, entries: join(dir, 'bad.json') }, { apply: false, log: quiet, print: () => {} })).rejects.toThrow(
        `--entries ${join(dir, 'bad.json')}: entries[0]: x509_svid_ttl: must be an integer, got "an hour"`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('plan against a SPIRE socket never writes; reconcile --once applies and reports', () => {
  let dir: string;
  let spire: MemorySpireServer;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-spire-'));
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'demo.example', seed: readSeedFile(join(DEMO_DIR, 'spire-entries.json')) });
  });
  afterEach(async () => {
    await spire.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('plan only lists: the call log holds no write, and the entries are unchanged', async () => {
    const before = spire.entries.all();
    const { result } = await runOnce({ ...demoFlags, socket: spire.socketPath }, { apply: false, log: quiet, print: () => {} });
    expect(result.plan.creates.length + result.plan.updates.length + result.plan.deletes.length).toBe(6);
    // Reads only: entries, federation relationships, and the bundles federatesWith is checked against.
    expect(new Set(spire.calls.map((c) => c.method))).toEqual(new Set(['ListEntries', 'ListFederatedBundles', 'ListFederationRelationships']));
    expect(spire.entries.all()).toEqual(before);
  });

  it('reconcile --once exits 0 when everything applied, and 1 when an item failed', async () => {
    expect((await runOnce({ ...demoFlags, socket: spire.socketPath }, { apply: true, log: quiet, print: () => {} })).code).toBe(0);
    // Two: the first is the unsupported-field probe removing its own entry (the pass deletes that leftover too).
    spire.faults.failNext(2, 14, { method: 'BatchDeleteEntry' });
    const manifests = join(dir, 'manifests');
    mkdirSync(manifests);
    // Without the payments ClusterSPIFFEID, its entries are deleted, and the delete is made to fail.
    writeFileSync(join(manifests, 'empty.yaml'), 'apiVersion: v1\nkind: List\nitems: []\n');
    const { code, result } = await runOnce({ config: demoFlags.config, manifests: [manifests], socket: spire.socketPath, allowEmpty: true }, { apply: true, log: quiet, print: () => {} });
    expect(result.applied?.failures.length).toBeGreaterThan(0);
    expect(code).toBe(1);
  });
});

describe('reconcile --once against a SPIRE server that drops a field converges instead of updating every run', () => {
  it('asks SPIRE which fields it stores, so a dropped hint is not written again and again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-dropped-'));
    const spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'demo.example', droppedFields: ['hint'] });
    try {
      mkdirSync(join(dir, 'manifests'));
      writeFileSync(
        join(dir, 'manifests', 'static.yaml'),
        'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterStaticEntry\nmetadata: {name: gw}\nspec: {spiffeID: /gw, parentID: /spire/server, selectors: ["unix:uid:1000"], hint: gateway}\n',
      );
      const flags = { config: demoFlags.config, manifests: [join(dir, 'manifests')], socket: spire.socketPath };
      expect((await runOnce(flags, { apply: true, log: quiet, print: () => {} })).result.applied?.created).toBe(1);
      const second = await runOnce(flags, { apply: true, log: quiet, print: () => {} });
      expect(second.result.plan.updates).toEqual([]);
      expect(second.code).toBe(0);
    } finally {
      await spire.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('plan says which entries will be set without a federated trust domain SPIRE has no bundle for', () => {
  let dir: string;
  let spire: MemorySpireServer;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-federation-'));
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'demo.example' });
    mkdirSync(join(dir, 'manifests'));
    writeFileSync(
      join(dir, 'manifests', 'static.yaml'),
      [
        'apiVersion: spire.spiffe.io/v1alpha1',
        'kind: ClusterStaticEntry',
        'metadata: {name: gateway, uid: 5d1e0000-0000-4000-8000-000000000001}',
        'spec:',
        '  spiffeID: /gateway',
        '  parentID: /spire/server',
        '  selectors: ["unix:uid:1000"]',
        '  federatesWith: [partner.example]',
        '',
      ].join('\n'),
    );
  });
  afterEach(async () => {
    await spire.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the omission in the table and in the JSON, and the create leaves the trust domain out', async () => {
    const flags = { config: demoFlags.config, manifests: [join(dir, 'manifests')], socket: spire.socketPath };
    let table = '';
    await runOnce(flags, { apply: false, log: quiet, print: (s) => (table += s) });
    expect(table).toContain('Set without some federatesWith (no bundle yet; completed once SPIRE has it) (1)');
    expect(table).toContain(
      '! ClusterStaticEntry/gateway: spiffe://demo.example/gateway set without federatesWith partner.example: SPIRE has no bundle for it yet',
    );

    let json = '';
    await runOnce({ ...flags, output: 'json' }, { apply: false, log: quiet, print: (s) => (json += s) });
    const plan = JSON.parse(json) as { create: { federatesWith: string[] }[]; federationOmissions: unknown[] };
    expect(plan.federationOmissions).toEqual([{ object: 'ClusterStaticEntry/gateway', spiffeID: 'spiffe://demo.example/gateway', missing: ['partner.example'] }]);
    expect(plan.create.map((e) => e.federatesWith)).toEqual([[]]);
  });

  it('counts a bundle a ClusterFederatedTrustDomain would set: plan shows the entry reconcile --once writes, and lists the bundles once', async () => {
    const der = (await createCertificateAuthority('partner.example', 3600)).der;
    const partner = {
      apiVersion: 'spire.spiffe.io/v1alpha1',
      kind: 'ClusterFederatedTrustDomain',
      metadata: { name: 'partner', uid: '5d1e0000-0000-4000-8000-000000000002' },
      spec: {
        trustDomain: 'partner.example',
        bundleEndpointURL: 'https://partner.example/bundle',
        bundleEndpointProfile: { type: 'https_web' },
        trustDomainBundle: JSON.stringify({ keys: [{ use: 'x509-svid', kty: 'EC', crv: 'P-256', x5c: [der.toString('base64')] }], spiffe_sequence: 1 }),
      },
    };
    writeFileSync(join(dir, 'manifests', 'partner.yaml'), JSON.stringify(partner));
    const flags = { config: demoFlags.config, manifests: [join(dir, 'manifests')], socket: spire.socketPath, output: 'json' };

    let json = '';
    await runOnce(flags, { apply: false, log: quiet, print: (s) => (json += s) });
    const plan = JSON.parse(json) as {
      create: { federatesWith: string[] }[];
      federationOmissions: unknown[];
      federation: { create: { trustDomain: string; trustDomainBundle: object }[] };
      status: { clusterFederatedTrustDomains: Record<string, object> };
    };
    expect(plan.federationOmissions).toEqual([]);
    expect(plan.create.map((e) => e.federatesWith)).toEqual([['partner.example']]);
    // The documented federation part of the JSON.
    expect(plan.federation.create).toEqual([
      { trustDomain: 'partner.example', bundleEndpointURL: 'https://partner.example/bundle', bundleEndpointProfile: { type: 'https_web' }, trustDomainBundle: { x509Authorities: 1, jwtAuthorities: 0, sequenceNumber: 1 } },
    ]);
    expect(plan.status.clusterFederatedTrustDomains.partner).toMatchObject({ set: true, bundleAvailable: true });
    // The entry pass (after ListEntries) takes the federation pass's bundles instead of listing them again.
    const methods = spire.calls.map((c) => c.method);
    expect(methods.slice(methods.indexOf('ListEntries'))).not.toContain('ListFederatedBundles');
    expect(methods).toContain('ListFederatedBundles');

    const { code, result } = await runOnce(flags, { apply: true, log: quiet, print: () => {} });
    expect(code).toBe(0);
    expect(result.declared.federationOmissions).toEqual([]);
    expect(spire.entries.all().map((e) => e.federatesWith)).toEqual([['partner.example']]);
  });
});

describe('`render` shows the entry one pod would get, selected as reconcile selects, or why not, or the exact render error', () => {
  const csid = join(DEMO_DIR, 'manifests/spire/clusterspiffeids.yaml');
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'render-'));
    writeFileSync(
      join(dir, 'pod.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata: {name: api-1, namespace: payments, uid: p-1, labels: {app: api, app.kubernetes.io/name: payments-api}}\nspec: {nodeName: node-a, serviceAccountName: payments-api}\n',
    );
    writeFileSync(join(dir, 'node.yaml'), 'apiVersion: v1\nkind: Node\nmetadata: {name: node-a, uid: n-1}\n');
    writeFileSync(join(dir, 'ns.yaml'), 'apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Namespace, metadata: {name: payments, labels: {team: payments}}}]\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const flags = () => ({ clusterspiffeid: csid, pod: join(dir, 'pod.yaml'), node: join(dir, 'node.yaml'), namespace: join(dir, 'ns.yaml'), config: demoFlags.config });

  it('renders the ClusterSPIFFEID --name picks from a file of several, for the pod, its node and namespace', async () => {
    const r = await renderCommand({ ...flags(), name: 'payments' });
    expect(r.code).toBe(0);
    expect(r.notes).toEqual([]);
    expect(JSON.parse(r.output)).toEqual(
      entry({
        spiffeID: 'spiffe://demo.example/ns/payments/sa/payments-api',
        parentID: 'spiffe://demo.example/spire/agent/k8s_psat/demo/n-1',
        selectors: ['k8s:ns:payments', 'k8s:pod-uid:p-1', 'k8s:sa:payments-api'],
        dnsNames: ['payments-api.payments.svc.cluster.local'],
        x509SVIDTTL: 3600,
      }),
    );
  });

  it('refuses to guess which object of several, and names them', async () => {
    await expect(renderCommand(flags())).rejects.toThrow(`${csid} holds 3 ClusterSPIFFEIDs (payments, storefront, default): pick one with --name`);
  });

  it("takes the example's pod list with --pod-name, and without it names the flag and some of the pods", async () => {
    const cluster = join(DEMO_DIR, 'manifests/cluster');
    const args = ['render', '--config', demoFlags.config, '--clusterspiffeid', csid, '--name', 'payments', '--pod', join(cluster, 'pods.yaml'), '--node', join(cluster, 'nodes.yaml'), '--namespace', join(cluster, 'namespaces.yaml')];
    const [several, picked] = [spawnCli(args), spawnCli([...args, '--pod-name', 'worker-0'])];
    expect(await exitCode(several)).toBe(2);
    expect(several.output().trim()).toBe(
      `spire-reconciler: --pod ${join(cluster, 'pods.yaml')} holds 8 Pods (storefront/web-7d9f6c-abcde, storefront/web-7d9f6c-fghij, payments/api-5c8b7f-xk2lm, payments/worker-0 and 4 more): pick one with --pod-name NAME (or NAMESPACE/NAME)`,
    );
    expect(await exitCode(picked)).toBe(0);
    expect(JSON.parse(picked.output())).toMatchObject({ spiffeID: 'spiffe://demo.example/ns/payments/sa/payments-worker', selectors: expect.arrayContaining(['k8s:pod-uid:3e2d1c0b-0000-4000-8000-0000000000b2']) });
  });

  it('asks for NAMESPACE/NAME when --pod-name is in several namespaces, and names what the file holds when it is in none', async () => {
    const pod = (ns: string, uid: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'api-1', namespace: ns, uid, labels: { app: 'api' } }, spec: { nodeName: 'node-a', serviceAccountName: 'api' } });
    writeFileSync(join(dir, 'pods.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod('payments', 'p-1'), pod('billing', 'p-2')] }));
    const list = { ...flags(), pod: join(dir, 'pods.json'), name: 'payments' };
    await expect(renderCommand({ ...list, podName: 'api-1' })).rejects.toThrow(`--pod-name api-1: 2 Pods of that name in ${join(dir, 'pods.json')} (payments/api-1, billing/api-1): give NAMESPACE/NAME`);
    await expect(renderCommand({ ...list, podName: 'api-2' })).rejects.toThrow(`--pod-name api-2: no such Pod in ${join(dir, 'pods.json')} (it holds payments/api-1, billing/api-1)`);
    const r = await renderCommand({ ...list, podName: 'payments/api-1' });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.output)).toMatchObject({ selectors: expect.arrayContaining(['k8s:pod-uid:p-1']) });
  });

  it('says why a pod is not selected, as reconcile decides it', async () => {
    const notSelected = await renderCommand({ ...flags(), name: 'storefront' });
    expect(notSelected).toMatchObject({ code: 1, output: 'not selected: namespaceSelector team=web does not match namespace payments (team=payments)' });
    writeFileSync(join(dir, 'pod.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: job, namespace: payments, uid: p-2, labels: {app: api}}\nspec: {nodeName: node-a}\nstatus: {phase: Succeeded}\n');
    expect(await renderCommand({ ...flags(), name: 'payments' })).toMatchObject({ code: 1, output: 'not selected: the pod has finished (phase Succeeded): finished pods get no entry' });
    writeFileSync(join(dir, 'pod.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: dns, namespace: kube-system, uid: p-3}\nspec: {nodeName: node-a}\n');
    expect(await renderCommand({ ...flags(), name: 'default' })).toMatchObject({
      code: 1,
      output: 'not selected: namespace kube-system is ignored: it matches ignoreNamespaces pattern "kube-system"',
      notes: ['a fallback: reconcile applies it only when no other ClusterSPIFFEID selects the pod (gives it an entry, or fails to render one; `explain pod` weighs them all)'],
    });
  });

  it('needs the namespace when the namespaceSelector is not empty, and adds Service DNS names from --endpoints', async () => {
    await expect(renderCommand({ ...flags(), namespace: undefined, name: 'payments' })).rejects.toThrow(
      'cannot tell whether namespaceSelector team=payments selects namespace payments: give --namespace FILE (kubectl get namespace payments -o yaml)',
    );
    writeFileSync(join(dir, 'pod.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: storefront, uid: w-1, labels: {app: web}}\nspec: {nodeName: node-a}\n');
    writeFileSync(join(dir, 'ns.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata: {name: storefront, labels: {team: web}}\n');
    const without = await renderCommand({ ...flags(), name: 'storefront' });
    expect(without.notes).toEqual(['autoPopulateDNSNames is on, but no --endpoints were given: Service DNS names are left out']);
    expect(JSON.parse(without.output)).toMatchObject({ dnsNames: [] });
    writeFileSync(
      join(dir, 'slices.yaml'),
      'apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: web-x, namespace: storefront, labels: {kubernetes.io/service-name: web}}\naddressType: IPv4\nendpoints: [{addresses: [10.0.0.1], targetRef: {kind: Pod, name: web-1, namespace: storefront, uid: w-1}}]\n',
    );
    const withSlices = await renderCommand({ ...flags(), name: 'storefront', endpoints: [join(dir, 'slices.yaml')] });
    expect(JSON.parse(withSlices.output)).toMatchObject({ dnsNames: ['web', 'web.storefront', 'web.storefront.svc', 'web.storefront.svc.cluster.local'] });
  });

  it('prints the render error with what failed', async () => {
    writeFileSync(join(dir, 'csid.yaml'), 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterSPIFFEID\nmetadata: {name: bad}\nspec:\n  spiffeIDTemplate: "spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.tier }}"\n');
    const r = await renderCommand({ clusterspiffeid: join(dir, 'csid.yaml'), pod: join(dir, 'pod.yaml'), trustDomain: 'demo.example', clusterName: 'demo' });
    expect(r).toEqual({
      code: 1,
      notes: ['no --node given: the node UID shows as NODE-UID'],
      output:
        'failed to render SPIFFE ID: invalid SPIFFE ID "spiffe://demo.example/<no value>": path segment characters are limited to letters, numbers, dots, dashes, and underscores',
    });
  });
});

describe('`validate` reports every problem, one line each, and exits 1', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'validate-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a bad template, a bad selector, an invalid SPIFFE ID, a bad TTL and a YAML syntax error', async () => {
    writeFileSync(
      join(dir, 'a.yaml'),
      [
        'apiVersion: spire.spiffe.io/v1alpha1',
        'kind: ClusterSPIFFEID',
        'metadata: {name: templ}',
        'spec:',
        '  spiffeIDTemplate: "spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name | default \\"x\\" }}"',
        '  podSelector: {matchExpressions: [{key: app, operator: Equals, values: [web]}]}',
        '  ttl: 1 hour',
        '---',
        'apiVersion: spire.spiffe.io/v1alpha1',
        'kind: ClusterStaticEntry',
        'metadata: {name: alias}',
        'spec: {spiffeID: "spiffe://demo.example/a//b", parentID: /spire/server, selectors: ["k8s_psat:cluster:demo"]}',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'b.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: [unclosed\n');
    const cli = spawnCli(['validate', dir]);
    expect(await exitCode(cli)).toBe(1);
    const lines = cli.output().trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^${join(dir, 'b.yaml')}.*YAML`)),
      `${join(dir, 'a.yaml')}: ClusterSPIFFEID/templ: spec.spiffeIDTemplate: template: 1:47: function "default" not defined`,
      `${join(dir, 'a.yaml')}: ClusterSPIFFEID/templ: spec.podSelector.matchExpressions[0].operator: "Equals" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`,
      `${join(dir, 'a.yaml')}: ClusterSPIFFEID/templ: spec.ttl: time: unknown unit " hour" in duration "1 hour"`,
      `${join(dir, 'a.yaml')}: ClusterStaticEntry/alias: spec.spiffeID: path cannot contain empty segments`,
    ]);
  });

  it('refuses what upstream refuses (a label key with a space, an empty bundle endpoint host) and warns about a glob-like ignoreNamespaces', async () => {
    writeFileSync(
      join(dir, 'objects.yaml'),
      [
        'apiVersion: spire.spiffe.io/v1alpha1',
        'kind: ClusterSPIFFEID',
        'metadata: {name: sel}',
        'spec:',
        '  spiffeIDTemplate: "spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name }}"',
        '  podSelector: {matchLabels: {"bad key": web}}',
        '---',
        'apiVersion: spire.spiffe.io/v1alpha1',
        'kind: ClusterFederatedTrustDomain',
        'metadata: {name: partner}',
        'spec: {trustDomain: partner.org, bundleEndpointURL: "https:///bundle", bundleEndpointProfile: {type: https_web}}',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'config.yaml'), 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\ntrustDomain: example.org\nclusterName: c\nignoreNamespaces: [openshift-*]\n');
    const cli = spawnCli(['validate', '--config', join(dir, 'config.yaml'), join(dir, 'objects.yaml')]);
    expect(await exitCode(cli)).toBe(1);
    expect(cli.output().trim().split('\n')).toEqual([
      `warning: ${join(dir, 'config.yaml')}: ignoreNamespaces[0]: "openshift-*" looks like a glob, but ignoreNamespaces are regular expressions matched anywhere in the name: it ignores every namespace whose name contains "openshift"; for names starting with "openshift-", write "^openshift-"`,
      expect.stringMatching(new RegExp(`^${join(dir, 'objects.yaml')}: ClusterSPIFFEID/sel: spec\\.podSelector\\.matchLabels\\["bad key"\\]: key: Invalid value: "bad key": name part must consist of`)),
      `${join(dir, 'objects.yaml')}: ClusterFederatedTrustDomain/partner: spec.bundleEndpointURL: host must be specified`,
    ]);
  });

  it('validates the --config file too, each problem naming its field', async () => {
    writeFileSync(join(dir, 'config.yaml'), 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\nclusterName: c\ngcInterval: soon\n');
    const cli = spawnCli(['validate', '--config', join(dir, 'config.yaml'), join(DEMO_DIR, 'manifests')]);
    expect(await exitCode(cli)).toBe(1);
    expect(cli.output().trim().split('\n')).toEqual([
      `${join(dir, 'config.yaml')}: ControllerManagerConfig: gcInterval: time: invalid duration "soon"`,
      `${join(dir, 'config.yaml')}: ControllerManagerConfig: trustDomain: is required`,
    ]);
  });

  it('with --expand-env reads $VAR in the --config file as run --expand-env does, and checks against the trust domain it names', async () => {
    const config = join(dir, 'config.yaml');
    const manifest = join(dir, 'self.yaml');
    writeFileSync(config, 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\ntrustDomain: ${TRUST_DOMAIN}\nclusterName: c\n');
    writeFileSync(
      manifest,
      'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterFederatedTrustDomain\nmetadata: {name: self}\nspec: {trustDomain: demo.example, bundleEndpointURL: "https://spire.demo.example:8443", bundleEndpointProfile: {type: https_web}}\n',
    );
    const env = { TRUST_DOMAIN: 'demo.example' };
    const literal = spawnCli(['validate', '--config', config, manifest], { env });
    expect(await exitCode(literal)).toBe(1);
    expect(literal.output().trim().split('\n')).toEqual([
      `${config}: ControllerManagerConfig: trustDomain: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores`,
    ]);
    const expanded = spawnCli(['validate', '--expand-env', '--config', config, manifest], { env });
    expect(await exitCode(expanded)).toBe(1);
    expect(expanded.output().trim().split('\n')).toEqual([`${manifest}: ClusterFederatedTrustDomain/self: spec.trustDomain: "demo.example" is the SPIRE server's own trust domain`]);
  });

  it('reports a field a template reads that its data cannot have, with the nearest name, though Go parses it', async () => {
    writeFileSync(
      join(dir, 'typo.yaml'),
      [
        'apiVersion: spire.spiffe.io/v1alpha1',
        'kind: ClusterSPIFFEID',
        'metadata: {name: typo}',
        'spec:',
        '  spiffeIDTemplate: "spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Nmespace }}/sa/{{ .PodSpec.ServiceAccountName }}"',
        '  dnsNameTemplates: ["{{ .PodMeta.Name }}.{{ index .PodMeta.Labels \\"app\\" }}", "{{ $.PodSpec.Hostnme }}"]',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'config.yaml'), 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\ntrustDomain: example.org\nclusterName: c\nparentIDTemplate: "spiffe://{{ .TrustDomain }}/agent/{{ .NodeMeta.Uid }}"\n');
    const cli = spawnCli(['validate', '--config', join(dir, 'config.yaml'), join(dir, 'typo.yaml')]);
    expect(await exitCode(cli)).toBe(1);
    expect(cli.output().trim().split('\n')).toEqual([
      `${join(dir, 'config.yaml')}: ControllerManagerConfig: parentIDTemplate: .NodeMeta.Uid: NodeMeta has no field Uid (did you mean UID?)`,
      `${join(dir, 'typo.yaml')}: ClusterSPIFFEID/typo: spec.spiffeIDTemplate: .PodMeta.Nmespace: PodMeta has no field Nmespace (did you mean Namespace?)`,
      `${join(dir, 'typo.yaml')}: ClusterSPIFFEID/typo: spec.dnsNameTemplates[1]: $.PodSpec.Hostnme: PodSpec has no field Hostnme (did you mean Hostname?)`,
    ]);
  });

  it('reports no template field in the examples and the test fixtures', async () => {
    const cli = spawnCli(['validate', 'examples', 'test/fixtures']);
    expect(await exitCode(cli)).toBe(0);
    expect(cli.output()).not.toContain('has no field');
  });

  it('skips files that hold no Kubernetes object, saying which, and still fails one that looks like an object or does not parse', async () => {
    writeFileSync(join(dir, 'dashboard.json'), JSON.stringify({ title: 'SPIRE', panels: [{ type: 'graph' }] }));
    writeFileSync(join(dir, 'values.yaml'), 'replicas: 3\nimage: {tag: latest}\n');
    writeFileSync(join(dir, 'nokind.yaml'), 'apiVersion: spire.spiffe.io/v1alpha1\nmetadata: {name: nokind}\n');
    writeFileSync(join(dir, 'nometa.yaml'), 'metadata: {name: lost-its-header}\nspec: {spiffeIDTemplate: x}\n');
    writeFileSync(join(dir, 'broken.json'), '{"title": "half a dashboard", ');
    const cli = spawnCli(['validate', dir]);
    expect(await exitCode(cli)).toBe(1);
    expect(cli.output().trim().split('\n')).toEqual([
      `skipped: ${join(dir, 'dashboard.json')}: not a Kubernetes object (no apiVersion, kind or metadata)`,
      `skipped: ${join(dir, 'values.yaml')}: not a Kubernetes object (no apiVersion, kind or metadata)`,
      expect.stringMatching(new RegExp(`^${join(dir, 'broken.json')} doc 0: JSON syntax error`)),
      `${join(dir, 'nokind.yaml')} doc 0: kind: is required`,
      `${join(dir, 'nometa.yaml')} doc 0: apiVersion: is required`,
      `${join(dir, 'nometa.yaml')} doc 0: kind: is required`,
    ]);
  });

  it("passes the repository's own deploy/, whose Grafana dashboard is skipped as not a Kubernetes object", async () => {
    const cli = spawnCli(['validate', 'deploy/']);
    expect(await exitCode(cli)).toBe(0);
    expect(cli.output().trim().split('\n')).toEqual(['skipped: deploy/monitoring/grafana-dashboard.json: not a Kubernetes object (no apiVersion, kind or metadata)', 'ok: deploy/']);
  });

  it('exits 0 on the demo manifests and config', async () => {
    const cli = spawnCli(['validate', join(DEMO_DIR, 'config.yaml'), join(DEMO_DIR, 'manifests')]);
    expect(await exitCode(cli)).toBe(0);
    expect(cli.output()).toContain('ok: ');
  });
});

describe('a --config whose parentIDTemplate does not parse stops the command, naming the file and the field', () => {
  it('plan exits 2 with one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-'));
    try {
      const config = join(dir, 'config.yaml');
      writeFileSync(config, 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\ntrustDomain: demo.example\nclusterName: demo\nparentIDTemplate: "spiffe://{{ .TrustDomain"\n');
      const cli = spawnCli(['plan', '--config', config, '--manifests', join(DEMO_DIR, 'manifests'), '--entries', join(DEMO_DIR, 'spire-entries.json')]);
      expect(await exitCode(cli)).toBe(2);
      expect(cli.output().trim()).toBe(`spire-reconciler: ${config}: parentIDTemplate: template: 1:24: unclosed action`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('every command answers --help', () => {
  // main.ts loads a command's module only when that command runs, none for --help (command-help.ts), and every one for `help`.
  it('--help lists every command, in order', async () => {
    const cli = spawnCli(['--help']);
    expect(await exitCode(cli)).toBe(0);
    const listed = [...cli.output().split('Commands:')[1]!.matchAll(/^ {2}([a-z-]+)(?= )/gm)].map((m) => m[1]);
    expect(listed).toEqual(['run', 'plan', 'reconcile', 'render', 'explain', 'validate', 'demo', 'memory-spire', 'bootstrap', 'help']);
  });

  it("--help, answered from command-help.ts, prints what `help` prints with every command's module loaded", async () => {
    const listed = spawnCli(['--help']);
    const loaded = spawnCli(['help']);
    expect(await exitCode(listed)).toBe(0);
    expect(await exitCode(loaded)).toBe(0);
    expect(listed.output()).toContain('Commands:');
    expect(listed.output()).toBe(loaded.output());
  });

  it.each(['run', 'plan', 'reconcile', 'explain', 'render', 'validate', 'demo', 'memory-spire', 'bootstrap'])('%s --help', async (cmd) => {
    const cli = spawnCli([cmd, '--help']);
    expect(await exitCode(cli)).toBe(0);
    expect(cli.output()).toContain(`Usage: spire-reconciler ${cmd}`);
  });
});

describe('the quick start demo reconciles the example cluster and ends with an empty plan', () => {
  it('runs plan, reconcile and plan again', async () => {
    let out = '';
    const code = await runDemo((s) => (out += `${s}\n`));
    expect(code).toBe(0);
    expect(out).toContain('(plan sent 0 write calls to SPIRE)');
    expect(out).toContain('Applied: 4 created, 1 updated, 1 deleted, 0 failed');
    expect(out).toContain('Nothing left to do. SPIRE holds 7 entries.');
  });
});
