/** What parseClusterSPIFFEID refuses before any pod is rendered. */
import { describe, expect, it } from 'vitest';
import type { ClusterSPIFFEID } from '../../src/api/index.js';
import { parseClusterSPIFFEID } from '../../src/entries/index.js';

const csid = (spiffeIDTemplate: string) => ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'c', uid: 'u' }, spec: { spiffeIDTemplate } }) as unknown as ClusterSPIFFEID;
const errors = (r: ReturnType<typeof parseClusterSPIFFEID>) => ('errors' in r ? r.errors : []);

describe('given the configured trust domain, a spiffeIDTemplate fixed to another one is refused up front', () => {
  it.each(['spiffe://cluster2.demo/greeter-client', 'spiffe://cluster2.demo'])('%s is refused', (template) => {
    expect(errors(parseClusterSPIFFEID(csid(template), 'example.org'))).toEqual([
      { field: 'spec.spiffeIDTemplate', message: 'trust domain "cluster2.demo" is not the configured trust domain "example.org"' },
    ]);
  });

  it.each([
    'spiffe://example.org/ns/{{ .PodMeta.Namespace }}',
    'spiffe://example.org',
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
