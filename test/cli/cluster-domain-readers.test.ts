import { expect, it } from 'vitest';
import type { ClusterSPIFFEID } from '../../src/api/index.js';
import { clusterDomainReaders } from '../../src/cli/cluster-domain.js';

const csid = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name }, spec }) as unknown as ClusterSPIFFEID;

it('names the ClusterSPIFFEIDs whose entries the cluster domain changes: a template reading it, or Service DNS names', () => {
  const objects = [
    csid('dns', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/x', dnsNameTemplates: ['{{ .PodMeta.Name }}.svc.{{ .ClusterDomain }}'] }),
    csid('services', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/y', autoPopulateDNSNames: true }),
    // A selector value that spells it is not a template: the cluster domain changes nothing here.
    csid('label', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/z', podSelector: { matchLabels: { note: 'x.ClusterDomain' } } }),
    csid('other-class', { className: 'other', spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .ClusterDomain }}' }),
  ];
  expect(clusterDomainReaders(objects, { className: '', watchClassless: true })).toEqual(['ClusterSPIFFEID/dns', 'ClusterSPIFFEID/services']);
});
