/** What parseClusterSPIFFEID refuses before any pod is rendered, and how a parent ID that cannot be rendered is reported. */
import { describe, expect, it } from 'vitest';
import { type ClusterSPIFFEID, type Node, type Pod } from '../../src/api/index.js';
import { declareEntries, parseClusterSPIFFEID } from '../../src/entries/index.js';
import { selectionSettings } from '../support/selection.js';

const csid = (spiffeIDTemplate: string) => ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'c', uid: 'u' }, spec: { spiffeIDTemplate } }) as unknown as ClusterSPIFFEID;
const errors = (r: ReturnType<typeof parseClusterSPIFFEID>) => ('errors' in r ? r.errors : []);

describe('given the configured trust domain, a spiffeIDTemplate fixed to another one is refused up front', () => {
  it('spiffe://cluster2.demo/greeter-client is refused', () => {
    expect(errors(parseClusterSPIFFEID(csid('spiffe://cluster2.demo/greeter-client'), 'example.org'))).toEqual([
      { field: 'spec.spiffeIDTemplate', message: 'trust domain "cluster2.demo" is not the configured trust domain "example.org"' },
    ]);
  });

  it('a bare trust domain is refused for that and, as SPIRE refuses it, for its empty path', () => {
    expect(errors(parseClusterSPIFFEID(csid('spiffe://cluster2.demo'), 'example.org'))).toEqual([
      { field: 'spec.spiffeIDTemplate', message: 'invalid SPIFFE ID "spiffe://cluster2.demo": "spiffe://cluster2.demo" is not a workload in trust domain "cluster2.demo"; path is empty' },
      { field: 'spec.spiffeIDTemplate', message: 'trust domain "cluster2.demo" is not the configured trust domain "example.org"' },
    ]);
    expect(errors(parseClusterSPIFFEID(csid('spiffe://example.org'), 'example.org'))).toEqual([
      { field: 'spec.spiffeIDTemplate', message: 'invalid SPIFFE ID "spiffe://example.org": "spiffe://example.org" is not a workload in trust domain "example.org"; path is empty' },
    ]);
  });

  it.each([
    'spiffe://example.org/ns/{{ .PodMeta.Namespace }}',
    'spiffe://example.org/web',
    // Computed or conditional trust domains are only known per pod.
    'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}',
    'spiffe://{{- .TrustDomain -}}/x',
    'spiffe://example{{ .ClusterName }}.org/x',
    '{{ if .PodMeta.Labels.x }}spiffe://other.org/x{{ else }}spiffe://example.org/y{{ end }}',
  ])('%s is accepted', (template) => {
    expect(errors(parseClusterSPIFFEID(csid(template), 'example.org'))).toEqual([]);
  });

  it('is listed after the template’s syntax error, in field order', () => {
    expect(errors(parseClusterSPIFFEID(csid('spiffe://other.org/{{ .PodMeta.Name'), 'example.org')).map((e) => e.message)).toEqual([
      'template: 1:35: unclosed action',
      'trust domain "other.org" is not the configured trust domain "example.org"',
    ]);
  });

  it('without a trust domain (the reconcile) the template parses, and each rendered ID is judged per pod as before', () => {
    expect('parsed' in parseClusterSPIFFEID(csid('spiffe://cluster2.demo/greeter-client'))).toBe(true);
  });
});

describe("a pod whose node the config's parentIDTemplate cannot be rendered for is reported naming the template field and the node", () => {
  const pod: Pod = { metadata: { name: 'web', namespace: 'default', uid: 'p-1' }, spec: { nodeName: 'node-1' }, status: { phase: 'Running' } };
  const node: Node = { metadata: { name: 'node-1', uid: 'n-1' }, spec: {} };
  const failures = (parentIDTemplate: string) =>
    declareEntries(
      {
        clusterSPIFFEIDs: [{ ...csid('spiffe://example.org/{{ .PodMeta.Name }}'), metadata: { name: 'c', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z' } }],
        clusterStaticEntries: [],
        namespaces: [{ metadata: { name: 'default', uid: 'ns-1' } }],
        pods: [pod],
        nodes: [node],
        endpointSlices: [],
        endpoints: [],
      },
      selectionSettings({ parentIDTemplate }),
    ).renderFailures.map((f) => `${f.pod}: ${f.message}`);

  it('when it renders an invalid SPIFFE ID (a node without the label it reads)', () => {
    expect(failures('spiffe://{{ .TrustDomain }}/agent/{{ index .NodeMeta.Labels "zone" }}')).toEqual([
      'default/web: parentIDTemplate: node node-1: invalid SPIFFE ID "spiffe://example.org/agent/": path cannot have a trailing slash',
    ]);
  });

  it('when the template fails to execute', () => {
    expect(failures('spiffe://{{ .TrustDomain }}/agent/{{ .NodeMeta.Name.First }}')).toEqual([
      "default/web: parentIDTemplate: node node-1: template: 1:46: executing at <.NodeMeta.Name.First>: can't evaluate field First in type string",
    ]);
  });
});
