import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/index.js';
import { csid, writeTree } from './tree.js';

/** What `kubectl get pods,namespaces,nodes,services,endpointslices,endpoints -A -o yaml` prints, trimmed. */
const KUBECTL_LIST = `apiVersion: v1
items:
- apiVersion: v1
  kind: Pod
  metadata:
    creationTimestamp: "2024-05-01T10:00:00Z"
    labels:
      app: web
    managedFields:
    - apiVersion: v1
      fieldsType: FieldsV1
      manager: kubectl-client-side-apply
      operation: Update
    name: web-0
    namespace: shop
    uid: 0b6a4e2c-1111-4a4a-9c9c-000000000001
  spec:
    nodeName: node-a
    serviceAccountName: web
  status:
    phase: Running
- apiVersion: v1
  kind: Namespace
  metadata:
    labels:
      kubernetes.io/metadata.name: shop
    name: shop
    uid: 0b6a4e2c-1111-4a4a-9c9c-000000000002
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a
    uid: 0b6a4e2c-1111-4a4a-9c9c-000000000003
  spec:
    podCIDR: 10.0.0.0/24
- apiVersion: v1
  kind: Service
  metadata:
    name: web
    namespace: shop
  spec:
    ports:
    - port: 80
- apiVersion: discovery.k8s.io/v1
  kind: EndpointSlice
  metadata:
    labels:
      kubernetes.io/service-name: web
    name: web-abcde
    namespace: shop
  endpoints:
  - addresses: [10.0.0.5]
    targetRef: {kind: Pod, name: web-0, namespace: shop, uid: 0b6a4e2c-1111-4a4a-9c9c-000000000001}
- apiVersion: v1
  kind: Endpoints
  metadata:
    name: web
    namespace: shop
  subsets:
  - addresses:
    - ip: 10.0.0.5
      targetRef: {kind: Pod, name: web-0, namespace: shop}
kind: List
metadata:
  resourceVersion: ""
`;

describe('every document of a multi-document YAML file is read', () => {
  it('loads each document, skipping empty ones', async () => {
    const root = await writeTree({
      'multi.yaml': `# leading comment\n---\n${csid('one')}---\n---\n${csid('two')}---\n`,
    });
    const set = await loadManifests([root]);
    expect(set.clusterSPIFFEIDs.map((o) => o.metadata.name)).toEqual(['one', 'two']);
    expect(set.problems).toEqual([]);
  });

  it('names the document index of a bad object', async () => {
    const root = await writeTree({ 'multi.yaml': `${csid('one')}---\n${csid('two')}---\n${csid('three', '  ttl: 5\n')}` });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([
      expect.objectContaining({ document: 2, kind: 'ClusterSPIFFEID', name: 'three', field: 'spec.ttl', message: 'must be string' }),
    ]);
    expect(set.clusterSPIFFEIDs.map((o) => o.metadata.name)).toEqual(['one', 'two']);
  });
});

describe('a kubectl List is expanded into its items', () => {
  it('sorts mixed kinds into their buckets and skips kinds it does not read', async () => {
    const root = await writeTree({ 'snapshot.yaml': KUBECTL_LIST });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set.pods.map((p) => p.metadata.name)).toEqual(['web-0']);
    expect(set.pods[0]?.spec?.nodeName).toBe('node-a');
    expect(set.namespaces.map((n) => n.metadata.name)).toEqual(['shop']);
    expect(set.nodes.map((n) => n.metadata.name)).toEqual(['node-a']);
    expect(set.endpointSlices.map((e) => e.metadata.name)).toEqual(['web-abcde']);
    expect(set.endpoints.map((e) => e.metadata.name)).toEqual(['web']);
    // The Service is not something we read; it is not a problem either.
  });

  it('drops managedFields from what it keeps', async () => {
    const root = await writeTree({ 'snapshot.yaml': KUBECTL_LIST });
    const set = await loadManifests([root]);
    expect(set.pods[0]?.metadata).not.toHaveProperty('managedFields');
    expect(set.pods[0]?.metadata.uid).toBe('0b6a4e2c-1111-4a4a-9c9c-000000000001');
  });

  it('names the item of a bad object as items[i]', async () => {
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ok' } },
        { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'bad' }, spec: { spiffeIDTemplate: 'x', admin: 'yes please' } },
        { metadata: { name: 'typeless' } },
      ],
    };
    const root = await writeTree({ 'list.json': JSON.stringify(list) });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([
      expect.objectContaining({ document: 0, kind: 'ClusterSPIFFEID', name: 'bad', field: 'items[1].spec.admin', message: 'must be boolean' }),
      expect.objectContaining({ document: 0, field: 'items[2].apiVersion', message: 'is required' }),
      expect.objectContaining({ document: 0, field: 'items[2].kind', message: 'is required' }),
    ]);
    expect(set.namespaces.map((n) => n.metadata.name)).toEqual(['ok']);
    expect(set.clusterSPIFFEIDs).toEqual([]);
  });

  it('gives the items of a typed list (as the API returns them) the list kind', async () => {
    const podList = {
      apiVersion: 'v1',
      kind: 'PodList',
      metadata: { resourceVersion: '42' },
      items: [{ metadata: { name: 'p', namespace: 'n', uid: 'u1' }, spec: { nodeName: 'x' } }],
    };
    const root = await writeTree({ 'pods.json': JSON.stringify(podList) });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set.pods).toEqual([expect.objectContaining({ apiVersion: 'v1', kind: 'Pod', metadata: expect.objectContaining({ name: 'p' }) })]);
  });
});

describe('JSON files are read like YAML ones', () => {
  it('loads a JSON object, tab-indented as editors write it', async () => {
    const root = await writeTree({
      'x.json': '{\n\t"apiVersion": "v1",\n\t"kind": "Namespace",\n\t"metadata": {"name": "tabs"}\n}\n',
    });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set.namespaces.map((n) => n.metadata.name)).toEqual(['tabs']);
  });

  it('reports a JSON syntax error against the file', async () => {
    const root = await writeTree({ 'bad.json': '{"apiVersion": "v1",', 'ok.yaml': csid('ok') });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([
      expect.objectContaining({ file: path.join(root, 'bad.json'), document: 0, message: expect.stringMatching(/^JSON syntax error: /) }),
    ]);
    expect(set.clusterSPIFFEIDs).toHaveLength(1);
  });
});

describe('a YAML syntax error costs only the broken document', () => {
  it('names the file, document and line, and the other files still load', async () => {
    const root = await writeTree({
      'a.yaml': csid('a'),
      'broken.yaml': `${csid('fine')}---\n${csid('b')}  dnsNameTemplates: [x, y\n  ttl: 1h\n`,
      'c.yaml': csid('c'),
    });
    const set = await loadManifests([root]);
    expect(set.problems).toHaveLength(1);
    const [p] = set.problems;
    expect(p).toMatchObject({ file: path.join(root, 'broken.yaml'), document: 1, severity: 'error' });
    expect(p?.message).toMatch(/^YAML syntax error: .* at line 15, column \d+$/);
    // The document before the broken one was fine, and is kept.
    expect(set.clusterSPIFFEIDs.map((o) => o.metadata.name)).toEqual(['a', 'fine', 'c']);
  });

  it('accepts a repeated key as kubectl does (the last wins), with a warning', async () => {
    const root = await writeTree({ 'dup.yaml': `${csid('d')}  ttl: 1h\n  ttl: 2h\n` });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([
      expect.objectContaining({ document: 0, severity: 'warning', message: expect.stringMatching(/unique.*line 8.*the last value is used/) }),
    ]);
    expect(set.clusterSPIFFEIDs[0]?.spec.ttl).toBe('2h');
  });
});

describe('YAML scalars mean what they mean to kubectl', () => {
  it('reads yes/on as booleans (YAML 1.1), and timestamps and 1:30 as strings', async () => {
    const root = await writeTree({
      'x.yaml': `${csid('x')}  admin: yes\n  downstream: on\n  hint: 1:30\n  ttl: 2024-01-01T00:00:00Z\n`,
    });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([]);
    expect(set.clusterSPIFFEIDs[0]?.spec).toMatchObject({ admin: true, downstream: true, hint: '1:30', ttl: '2024-01-01T00:00:00Z' });
  });

  it('reads a name of n as the boolean false, so it is no name (quote it)', async () => {
    const root = await writeTree({ 'x.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: n\n' });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([expect.objectContaining({ kind: 'Namespace', field: 'metadata.name', message: 'must be string' })]);
    expect(set.namespaces).toEqual([]);
  });

  it('rejects an unquoted boolean where a string is expected, as the API server would', async () => {
    const root = await writeTree({ 'x.yaml': `${csid('x')}  podSelector:\n    matchLabels:\n      enabled: on\n` });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([
      expect.objectContaining({ field: 'spec.podSelector.matchLabels.enabled', message: 'must be string' }),
    ]);
    expect(set.clusterSPIFFEIDs).toEqual([]);
  });
});
