import { describe, expect, it } from 'vitest';
import { type ClusterSPIFFEID, type ClusterStaticEntry, IgnoredNamespaces, type Namespace, type Node, type Pod } from '../../src/api/index.js';
import { type ClusterSnapshot, coversFallbacks, declareEntries, declarePods, indexServices, type PodContext, RenderCache, selectionRule, type SelectionSettings, selectPod } from '../../src/entries/index.js';
import { DEFAULT_PARENT_ID_TEMPLATE } from '../../src/api/index.js';
import { syntheticCluster } from '../../bench/cluster.js';
import { compileTemplate } from '../../src/template/index.js';

const settings: SelectionSettings = {
  trustDomain: 'example.org',
  clusterName: 'demo',
  clusterDomain: 'cluster.local',
  parentIdTemplate: compileTemplate(DEFAULT_PARENT_ID_TEMPLATE),
  ignoreNamespaces: IgnoredNamespaces.compile(['kube-system', 'spire']),
  className: '',
  watchClassless: false,
};

const ns = (name: string, labels: Record<string, string> = {}): Namespace => ({ metadata: { name, uid: `ns-${name}`, labels } });
const node: Node = { metadata: { name: 'node-1', uid: 'node-uid-1' }, spec: {} };
const pod = (namespace: string, name: string, over: Partial<Pod> = {}): Pod => ({
  metadata: { name, namespace, uid: `uid-${name}`, labels: { app: name } },
  spec: { nodeName: 'node-1', serviceAccountName: 'sa' },
  status: { phase: 'Running' },
  ...over,
});
const csid = (name: string, spec: Partial<ClusterSPIFFEID['spec']> = {}, created = '2026-01-01T00:00:00Z'): ClusterSPIFFEID => ({
  metadata: { name, uid: `csid-${name}`, creationTimestamp: created },
  spec: { spiffeIDTemplate: `spiffe://{{ .TrustDomain }}/${name}/{{ .PodMeta.Name }}`, ...spec },
});
const snap = (over: Partial<ClusterSnapshot>): ClusterSnapshot => ({
  clusterSPIFFEIDs: [],
  clusterStaticEntries: [],
  namespaces: [ns('default')],
  pods: [],
  nodes: [node],
  endpointSlices: [],
  endpoints: [],
  ...over,
});

describe('ClusterSPIFFEIDs select namespaces and pods as spire-controller-manager does', () => {
  it('renders one entry per selected pod with the pod-uid selector, the default parent ID and the rendered fields', () => {
    const s = declareEntries(
      snap({
        clusterSPIFFEIDs: [
          csid('web', {
            dnsNameTemplates: ['{{ .PodMeta.Name }}.svc', '{{ .PodMeta.Name }}.svc', 'b.example'],
            workloadSelectorTemplates: ['k8s:ns:{{ .PodMeta.Namespace }}', 'k8s:sa:{{ .PodSpec.ServiceAccountName }}'],
            ttl: '1h',
            jwtTtl: '5m',
            federatesWith: ['spiffe://domain1.org', 'domain1.org'],
            admin: true,
            hint: 'web',
          }),
        ],
        pods: [pod('default', 'w1')],
      }),
      settings,
    );
    expect(s.renderFailures).toEqual([]);
    expect(s.entries.map((d) => d.spec)).toEqual([
      {
        spiffeId: 'spiffe://example.org/web/w1',
        parentId: 'spiffe://example.org/spire/agent/k8s_psat/demo/node-uid-1',
        selectors: [
          { type: 'k8s', value: 'pod-uid:uid-w1' },
          { type: 'k8s', value: 'ns:default' },
          { type: 'k8s', value: 'sa:sa' },
        ],
        x509SvidTtl: 3600,
        jwtSvidTtl: 300,
        federatesWith: ['domain1.org'],
        dnsNames: ['w1.svc', 'b.example'],
        admin: true,
        downstream: false,
        storeSvid: false,
        hint: 'web',
      },
    ]);
  });

  it('renders the same selector once for every pod that renders its text: the entries share it, each with its own pod-uid selector', () => {
    const s = declareEntries(
      snap({
        clusterSPIFFEIDs: [csid('web', { workloadSelectorTemplates: ['k8s:ns:{{ .PodMeta.Namespace }}', 'k8s:pod-name:{{ .PodMeta.Name }}'] })],
        namespaces: [ns('default'), ns('shop')],
        pods: [pod('default', 'w1'), pod('default', 'w2'), pod('shop', 'w3')],
      }),
      settings,
    );
    const [w1, w2, w3] = s.entries.map((d) => d.spec.selectors);
    expect(w1).toEqual([{ type: 'k8s', value: 'pod-uid:uid-w1' }, { type: 'k8s', value: 'ns:default' }, { type: 'k8s', value: 'pod-name:w1' }]);
    expect(w2![1]).toBe(w1![1]);
    expect(w3![1]).toEqual({ type: 'k8s', value: 'ns:shop' });
    expect(w2![2]).toEqual({ type: 'k8s', value: 'pod-name:w2' });
  });

  it('ignores namespaces as upstream does: a regular expression matched anywhere in the name (`spire` ignores my-spire-apps too)', () => {
    const s = declareEntries(
      snap({
        clusterSPIFFEIDs: [csid('all')],
        namespaces: [ns('kube-system'), ns('my-spire-apps'), ns('spire'), ns('shop')],
        pods: [pod('kube-system', 'a'), pod('my-spire-apps', 'b'), pod('spire', 'c'), pod('shop', 'd')],
      }),
      settings,
    );
    expect(s.entries.map((d) => d.spec.spiffeId)).toEqual(['spiffe://example.org/all/d']);
    expect(s.selection.get('csid-all')).toEqual({ namespacesSelected: 4, namespacesIgnored: 3, podsSelected: 1, podEntryRenderFailures: 0 });
    // A pod event is judged by the same patterns as a full pass.
    const lookup = { clusterSPIFFEIDs: [csid('all')], namespace: (n: string) => ns(n), node: () => node, services: () => indexServices([], []) };
    const events = declarePods([pod('my-spire-apps', 'b2'), pod('shop', 'd2')], lookup, settings);
    expect(events.entries.map((d) => d.spec.spiffeId)).toEqual(['spiffe://example.org/all/d2']);
  });

  it('skips pods that are not scheduled yet or have finished, without counting a failure', () => {
    const s = declareEntries(
      snap({
        clusterSPIFFEIDs: [csid('all')],
        pods: [
          pod('default', 'pending', { spec: {} }),
          pod('default', 'done', { status: { phase: 'Succeeded' } }),
          pod('default', 'failed', { status: { phase: 'Failed' } }),
          pod('default', 'running'),
        ],
      }),
      settings,
    );
    expect(s.entries.map((d) => d.podUid)).toEqual(['uid-running']);
    expect(s.selection.get('csid-all')).toMatchObject({ podsSelected: 4, podEntryRenderFailures: 0 });
    expect(s.unknownPods.size).toBe(0);
  });

  it('counts a pod on an unknown node as a failure whose entries are kept', () => {
    const s = declareEntries(snap({ clusterSPIFFEIDs: [csid('all')], pods: [pod('default', 'p', { spec: { nodeName: 'node-9' } })] }), settings);
    expect(s.entries).toEqual([]);
    expect([...s.unknownPods]).toEqual(['uid-p']);
    expect(s.renderFailures).toEqual([{ owner: expect.objectContaining({ name: 'all' }), pod: 'default/p', message: 'node node-9 is not known yet', cause: { text: 'its node is not known yet', value: 'node node-9' } }]);
  });

  it('reports a render failure with the object, the pod and the reason, and keeps that pod unknown', () => {
    const s = declareEntries(
      snap({ clusterSPIFFEIDs: [csid('bad', { spiffeIDTemplate: 'spiffe://other.org/{{ .PodMeta.Name }}' })], pods: [pod('default', 'p')] }),
      settings,
    );
    expect(s.renderFailures.map((f) => [f.owner.name, f.pod, f.message])).toEqual([
      ['bad', 'default/p', 'failed to render SPIFFE ID: invalid SPIFFE ID "spiffe://other.org/p": expected trust domain "example.org" but got "other.org"'],
    ]);
    expect([...s.unknownPods]).toEqual(['uid-p']);
    expect(s.selection.get('csid-bad')?.podEntryRenderFailures).toBe(1);
  });

  it('reports every invalid field of an object at once, and then keeps all pod entries', () => {
    const s = declareEntries(
      snap({
        clusterSPIFFEIDs: [
          csid('broken', {
            ttl: '1 hour',
            podSelector: { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] },
            federatesWith: ['Bad.Domain'],
          }),
        ],
        pods: [pod('default', 'p')],
      }),
      settings,
    );
    expect(s.renderFailures.map((f) => f.message)).toEqual([
      'ClusterSPIFFEID broken: spec.podSelector.matchExpressions[0].operator: "Equals" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist); ' +
        'ClusterSPIFFEID broken: spec.ttl: time: unknown unit " hour" in duration "1 hour"; ' +
        'ClusterSPIFFEID broken: spec.federatesWith[0]: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores',
    ]);
    expect(s.keepAllPodEntries).toMatch(/^pod entries are kept: ClusterSPIFFEID broken/);
    // Its status still says what it covers, and that all of it failed: an unreadable selector selects everything.
    expect(s.selection.get('csid-broken')).toEqual({ namespacesSelected: 1, namespacesIgnored: 0, podsSelected: 1, podEntryRenderFailures: 1 });
  });

  it('counts what an invalid object selects, and each of those pods as a render failure, reported in one message', () => {
    const s = declareEntries(
      snap({
        namespaces: [ns('default', { team: 'a' }), ns('other'), ns('kube-system', { team: 'a' })],
        clusterSPIFFEIDs: [csid('syntax', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name', namespaceSelector: { matchLabels: { team: 'a' } } })],
        pods: [pod('default', 'a'), pod('default', 'b'), pod('default', 'pending', { spec: {} }), pod('other', 'c'), pod('kube-system', 'd')],
      }),
      settings,
    );
    expect(s.selection.get('csid-syntax')).toEqual({ namespacesSelected: 2, namespacesIgnored: 1, podsSelected: 3, podEntryRenderFailures: 2 });
    expect(s.renderFailures).toHaveLength(1);
  });

  it('keeps the entries of pods in a namespace it does not know (the pod pass agrees), and names the namespace', () => {
    const all = csid('all');
    const pods = [pod('default', 'known'), pod('gone', 'orphan'), pod('kube-system', 'ignored')];
    const full = declareEntries(snap({ clusterSPIFFEIDs: [all], pods }), settings);
    expect(full.entries.map((d) => d.podUid)).toEqual(['uid-known']);
    expect([...full.unknownPods]).toEqual(['uid-orphan']);
    expect([...full.unknownNamespaces]).toEqual([['gone', 1]]);
    const part = declarePods(pods, { clusterSPIFFEIDs: [all], namespace: (n) => (n === 'default' ? ns('default') : undefined), node: () => node, services: () => new Map() }, settings);
    expect(part.entries.map((d) => d.podUid)).toEqual(['uid-known']);
    expect([...part.unknownPods]).toEqual(['uid-orphan']);
  });

  it('skips an object whose selector Kubernetes would refuse, naming the field: a NotIn with an invalid value selects no pod (before, every pod)', () => {
    const s = declareEntries(
      snap({
        clusterSPIFFEIDs: [
          csid('notin', { podSelector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['not a label value'] }] } }),
          csid('badkey', { namespaceSelector: { matchLabels: { 'team/a/b': 'x' } } }),
        ],
        pods: [pod('default', 'p'), pod('default', 'q')],
      }),
      settings,
    );
    expect(s.entries).toEqual([]);
    expect(s.renderFailures.map((f) => f.message)).toEqual([
      expect.stringMatching(/^ClusterSPIFFEID notin: spec\.podSelector\.matchExpressions\[0\]\.values\[0\]: Invalid value: "not a label value": a valid label must be an empty string/),
      expect.stringMatching(/^ClusterSPIFFEID badkey: spec\.namespaceSelector\.matchLabels\["team\/a\/b"\]: key: Invalid value: "team\/a\/b": a valid label key must consist/),
    ]);
  });

  it('applies fallback objects only to pods no other object produced an entry for', () => {
    const s = declareEntries(
      snap({
        clusterSPIFFEIDs: [csid('default', { fallback: true }), csid('web', { podSelector: { matchLabels: { app: 'w' } } })],
        pods: [pod('default', 'w'), pod('default', 'other')],
      }),
      settings,
    );
    expect(s.entries.map((d) => d.spec.spiffeId).sort()).toEqual(['spiffe://example.org/default/other', 'spiffe://example.org/web/w']);
    // A fallback still counts the pods it selected.
    expect(s.selection.get('csid-default')?.podsSelected).toBe(2);
  });

  // docs/entries.md, "Fallback and render failures".
  it('a pod whose entry from a non-fallback object fails to render gets no fallback entry: it keeps the one identity it has', () => {
    const objects = [csid('default', { fallback: true }), csid('web', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/web/{{ .PodMeta.Labels.tier }}' })];
    const tiered = pod('default', 'tiered', { metadata: { name: 'tiered', namespace: 'default', uid: 'uid-tiered', labels: { app: 'tiered', tier: 'front' } } });
    // No tier label: Go prints "<no value>", which no SPIFFE ID holds.
    const untiered = pod('default', 'untiered');
    const s = declareEntries(snap({ clusterSPIFFEIDs: objects, pods: [tiered, untiered] }), settings);
    expect(s.entries.map((d) => d.spec.spiffeId)).toEqual(['spiffe://example.org/web/front']);
    expect(s.renderFailures.map((f) => `${f.owner.name} ${f.pod}`)).toEqual(['web default/untiered']);
    // Its entries (whatever it had) are unknown, so kept: the fallback's would be a second identity.
    expect(s.unknownPods).toEqual(new Set(['uid-untiered']));
    // The pod pass decides the same.
    const part = declarePods([untiered], { clusterSPIFFEIDs: objects, namespace: () => ns('default'), node: () => node, services: () => new Map() }, settings);
    expect(part.entries).toEqual([]);
    expect(part.unknownPods).toEqual(new Set(['uid-untiered']));
  });

  it('an invalid non-fallback object that selects a pod keeps the fallback from it too', () => {
    const objects = [csid('default', { fallback: true }), csid('web', { podSelector: { matchLabels: { app: 'w' } }, spiffeIDTemplate: '{{ .Nope' })];
    const s = declareEntries(snap({ clusterSPIFFEIDs: objects, pods: [pod('default', 'w'), pod('default', 'other')] }), settings);
    expect(s.entries.map((d) => d.spec.spiffeId)).toEqual(['spiffe://example.org/default/other']);
    expect(s.keepAllPodEntries).toMatch(/^pod entries are kept: ClusterSPIFFEID web: spec\.spiffeIDTemplate/);
  });

  it.each([
    ['', false, ['none']],
    ['', true, ['none']],
    ['blue', false, ['blue']],
    ['blue', true, ['none', 'blue']],
  ])('className %j with watchClassless %s handles %j', (className, watchClassless, handled) => {
    const objects = [csid('none'), csid('blue', { className: 'blue' }), csid('red', { className: 'red' })];
    const s = declareEntries(snap({ clusterSPIFFEIDs: objects, pods: [pod('default', 'p')] }), { ...settings, className, watchClassless });
    expect([...s.owners.values()].map((o) => o.name)).toEqual(handled);
  });

  it('adds service DNS names from EndpointSlices and Endpoints when autoPopulateDNSNames is set, after the templated ones', () => {
    const s = declareEntries(
      snap({
        clusterSPIFFEIDs: [csid('web', { autoPopulateDNSNames: true, dnsNameTemplates: ['web.default.svc', 'custom.example'] })],
        pods: [pod('default', 'p')],
        endpointSlices: [
          {
            metadata: { name: 'web-abc', namespace: 'default', uid: 's1', labels: { 'kubernetes.io/service-name': 'web' } },
            endpoints: [{ targetRef: { kind: 'Pod', uid: 'uid-p' } }],
          },
        ],
        endpoints: [
          { metadata: { name: 'legacy', namespace: 'default', uid: 'e1' }, subsets: [{ notReadyAddresses: [{ targetRef: { kind: 'Pod', uid: 'uid-p' } }] }] },
        ],
      }),
      settings,
    );
    expect(s.entries[0]?.spec.dnsNames).toEqual([
      'web.default.svc',
      'custom.example',
      'legacy',
      'legacy.default',
      'legacy.default.svc',
      'legacy.default.svc.cluster.local',
      'web',
      'web.default',
      'web.default.svc.cluster.local',
    ]);
  });
});

describe('ClusterStaticEntries render to entries', () => {
  const cse = (name: string, spec: Partial<ClusterStaticEntry['spec']>): ClusterStaticEntry => ({
    metadata: { name, uid: `cse-${name}`, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { spiffeID: '/node-alias', parentID: '/spire/server', selectors: ['k8s_psat:cluster:demo'], ...spec },
  });

  it('resolves bare paths against the trust domain and splits selectors at the first colon', () => {
    const s = declareEntries(snap({ clusterStaticEntries: [cse('alias', { selectors: ['k8s_psat:agent_node_label:a:b'], storeSVID: true, x509SVIDTTL: '2h' })] }), settings);
    expect(s.entries[0]?.spec).toMatchObject({
      spiffeId: 'spiffe://example.org/node-alias',
      parentId: 'spiffe://example.org/spire/server',
      selectors: [{ type: 'k8s_psat', value: 'agent_node_label:a:b' }],
      storeSvid: true,
      x509SvidTtl: 7200,
    });
    expect(s.staticRendered.get('cse-alias')).toBe(true);
  });

  it('reports every bad field and keeps non-pod entries', () => {
    const s = declareEntries(snap({ clusterStaticEntries: [cse('bad', { spiffeID: 'spiffe://example.org/a//b', selectors: ['nocolon'] })] }), settings);
    expect(s.renderFailures[0]?.message).toBe(
      'ClusterStaticEntry bad: spec.spiffeID: path cannot contain empty segments; ' +
        'ClusterStaticEntry bad: spec.selectors[0]: invalid selector "nocolon": expected at least one colon to separate the type from the value',
    );
    expect(s.staticRendered.get('cse-bad')).toBe(false);
    expect(s.keepNonPodEntries).toMatch(/^entries not tied to a pod are kept/);
  });
});

describe('rendering is incremental: a change re-renders only what it can affect', () => {
  const objects = () => ({
    clusterSPIFFEIDs: [csid('web', { podSelector: { matchLabels: { tier: 'web' } } }), csid('db', { podSelector: { matchLabels: { tier: 'db' } } })],
    pods: [
      pod('default', 'w1', { metadata: { name: 'w1', namespace: 'default', uid: 'uid-w1', labels: { tier: 'web' } } }),
      pod('default', 'w2', { metadata: { name: 'w2', namespace: 'default', uid: 'uid-w2', labels: { tier: 'web' } } }),
      pod('default', 'd1', { metadata: { name: 'd1', namespace: 'default', uid: 'uid-d1', labels: { tier: 'db' } } }),
    ],
  });

  it('gives the same entries as a full render, and reuses them all when nothing changed', () => {
    const o = objects();
    const renderCache = new RenderCache();
    const cached = { ...settings, renderCache };
    const first = declareEntries(snap(o), cached);
    expect(first.entries).toEqual(declareEntries(snap(o), settings).entries);
    expect([renderCache.hits, renderCache.misses]).toEqual([0, 3]);
    const second = declareEntries(snap(o), cached);
    expect(second.entries).toEqual(first.entries);
    expect([renderCache.hits, renderCache.misses]).toEqual([3, 3]);
  });

  it('re-renders one pod when that pod object changes, and the pods of one ClusterSPIFFEID when its spec changes', () => {
    const o = objects();
    const renderCache = new RenderCache();
    const cached = { ...settings, renderCache };
    declareEntries(snap(o), cached);
    const changedPod = { ...o.pods[0]!, metadata: { ...o.pods[0]!.metadata, annotations: { a: 'b' } } };
    declareEntries(snap({ ...o, pods: [changedPod, o.pods[1]!, o.pods[2]!] }), cached);
    expect(renderCache.misses).toBe(3 + 1);

    const db = o.clusterSPIFFEIDs[1]!;
    const changedDb = { ...db, spec: { ...db.spec, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/db2/{{ .PodMeta.Name }}' } };
    const r = declareEntries(snap({ ...o, pods: [changedPod, o.pods[1]!, o.pods[2]!], clusterSPIFFEIDs: [o.clusterSPIFFEIDs[0]!, changedDb] }), cached);
    expect(renderCache.misses).toBe(3 + 1 + 1);
    expect(r.entries.map((d) => d.spec.spiffeId).sort()).toEqual(['spiffe://example.org/db2/d1', 'spiffe://example.org/web/w1', 'spiffe://example.org/web/w2']);
  });
});

describe('declaring a few pods gives exactly what the full walk gives for them', () => {
  it('on the 1,000-pod benchmark cluster (namespace and pod selectors, fallback, templates)', () => {
    const cluster = syntheticCluster(1000);
    const full = declareEntries(cluster, settings).entries;
    const some = cluster.pods.filter((_, i) => i % 7 === 0);
    const namespaces = new Map(cluster.namespaces.map((n) => [n.metadata.name, n]));
    const nodes = new Map(cluster.nodes.map((n) => [n.metadata.name, n]));
    const part = declarePods(
      some,
      {
        clusterSPIFFEIDs: cluster.clusterSPIFFEIDs,
        namespace: (n) => namespaces.get(n),
        node: (n) => nodes.get(n),
        services: () => indexServices(cluster.endpointSlices, cluster.endpoints),
      },
      settings,
    );
    const uids = new Set(some.map((p) => p.metadata.uid));
    const order = (a: { podUid?: string; key: string }, b: { podUid?: string; key: string }) => `${a.podUid}${a.key}`.localeCompare(`${b.podUid}${b.key}`);
    expect(part.entries.length).toBeGreaterThan(100);
    expect([...part.entries].sort(order)).toEqual(full.filter((d) => uids.has(d.podUid!)).sort(order));
    expect(part.unknownPods.size).toBe(0);
  });
});

describe('the selection rule both walks apply to one (ClusterSPIFFEID, namespace, pod)', () => {
  const ctx: PodContext = { settings, cache: new RenderCache(), services: new Map(), node: (n) => (n === 'node-1' ? node : undefined) };
  const web = selectionRule(csid('web', { namespaceSelector: { matchLabels: { team: 'shop' } }, podSelector: { matchLabels: { app: 'w' } } }));
  const shop = ns('shop', { team: 'shop' });

  it('checks the namespace selector, then ignoreNamespaces (naming the pattern), then the pod selector', () => {
    expect(selectPod(web, ns('other'), pod('other', 'w'), false, ctx)).toEqual({ outcome: 'namespace-not-selected' });
    expect(selectPod(web, ns('my-spire-apps', { team: 'shop' }), pod('my-spire-apps', 'w'), false, ctx)).toEqual({ outcome: 'namespace-ignored', ignoredBy: 'spire' });
    expect(selectPod(web, shop, pod('shop', 'x'), false, ctx)).toEqual({ outcome: 'not-selected' });
    const v = selectPod(web, shop, pod('shop', 'w'), false, ctx);
    expect(v).toMatchObject({ outcome: 'declared', spec: { spiffeId: 'spiffe://example.org/web/w' } });
    // An entry from a non-fallback object covers the pod; so does one that fails to render.
    expect(coversFallbacks(web, v)).toBe(true);
    expect(coversFallbacks(web, { outcome: 'failed' })).toBe(true);
    expect(coversFallbacks(web, { outcome: 'unscheduled' })).toBe(false);
  });

  it('suppresses a fallback object for a covered pod only, and a fallback entry covers nothing', () => {
    const fallback = selectionRule(csid('default', { fallback: true }));
    expect(selectPod(fallback, shop, pod('shop', 'w'), true, ctx)).toEqual({ outcome: 'fallback-suppressed' });
    const v = selectPod(fallback, shop, pod('shop', 'w'), false, ctx);
    expect(v).toMatchObject({ outcome: 'declared', spec: { spiffeId: 'spiffe://example.org/default/w' } });
    expect(coversFallbacks(fallback, v)).toBe(false);
    // Covered or not, a non-fallback object declares.
    expect(selectPod(web, shop, pod('shop', 'w'), true, ctx)).toMatchObject({ outcome: 'declared' });
  });

  it('skips pods with nothing to attest, fails a pod on an unknown node, and says an invalid object cannot render', () => {
    expect(selectPod(web, shop, pod('shop', 'w', { spec: {} }), false, ctx)).toEqual({ outcome: 'unscheduled' });
    expect(selectPod(web, shop, pod('shop', 'w', { status: { phase: 'Succeeded' } }), false, ctx)).toEqual({ outcome: 'finished' });
    expect(selectPod(web, shop, pod('shop', 'w', { spec: { nodeName: 'node-9' } }), false, ctx)).toEqual({
      outcome: 'failed',
      failure: { message: 'node node-9 is not known yet', cause: { text: 'its node is not known yet', value: 'node node-9' } },
    });
    const invalid = selectionRule(csid('bad', { spiffeIDTemplate: '{{ .Nope' }));
    expect(invalid.errors?.length).toBeGreaterThan(0);
    expect(selectPod(invalid, shop, pod('shop', 'w'), false, ctx)).toEqual({ outcome: 'invalid' });
    expect(selectPod(invalid, shop, pod('shop', 'w', { spec: {} }), false, ctx)).toEqual({ outcome: 'unscheduled' });
  });
});
