import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CRD_FILES, CRDS_ROOT, readCRDSchema } from '../../src/manifests/index.js';

type Schema = {
  type?: string;
  required?: string[];
  enum?: string[];
  pattern?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-list-type'?: string;
};

/**
 * Every field of a schema as `path: type [constraints]`, one line each, in a
 * fixed order. Descriptions are left out: only what decides validity counts.
 */
function flatten(schema: Schema, at = '$'): string[] {
  const marks = [
    schema.required ? `required=${[...schema.required].sort().join(',')}` : '',
    schema.enum ? `enum=${schema.enum.join(',')}` : '',
    schema.pattern ? `pattern=${schema.pattern}` : '',
    schema['x-kubernetes-preserve-unknown-fields'] ? 'preserve-unknown' : '',
    schema['x-kubernetes-map-type'] ? `map-type=${schema['x-kubernetes-map-type']}` : '',
    schema['x-kubernetes-list-type'] ? `list-type=${schema['x-kubernetes-list-type']}` : '',
  ].filter(Boolean);
  const lines = [`${at}: ${schema.type ?? '?'}${marks.length ? ` ${marks.join(' ')}` : ''}`];
  for (const name of Object.keys(schema.properties ?? {}).sort()) lines.push(...flatten(schema.properties![name]!, `${at}.${name}`));
  if (schema.items) lines.push(...flatten(schema.items, `${at}[]`));
  if (schema.additionalProperties) lines.push(...flatten(schema.additionalProperties, `${at}{}`));
  return lines;
}

const SELECTOR = (at: string): string[] => [
  `${at}: object map-type=atomic`,
  `${at}.matchExpressions: array list-type=atomic`,
  `${at}.matchExpressions[]: object required=key,operator`,
  `${at}.matchExpressions[].key: string`,
  `${at}.matchExpressions[].operator: string`,
  `${at}.matchExpressions[].values: array list-type=atomic`,
  `${at}.matchExpressions[].values[]: string`,
  `${at}.matchLabels: object`,
  `${at}.matchLabels{}: string`,
];

/**
 * spire-controller-manager's schemas (config/crd/bases, as shipped by the
 * spire-crds chart, controller-gen v0.19), written out by hand field by field.
 */
const UPSTREAM: Record<keyof typeof CRD_FILES, string[]> = {
  ClusterSPIFFEID: [
    '$: object required=metadata,spec',
    '$.apiVersion: string',
    '$.kind: string',
    '$.metadata: object',
    '$.spec: object required=spiffeIDTemplate',
    '$.spec.admin: boolean',
    '$.spec.autoPopulateDNSNames: boolean',
    '$.spec.className: string',
    '$.spec.dnsNameTemplates: array',
    '$.spec.dnsNameTemplates[]: string',
    '$.spec.downstream: boolean',
    '$.spec.fallback: boolean',
    '$.spec.federatesWith: array',
    '$.spec.federatesWith[]: string',
    '$.spec.hint: string',
    '$.spec.jwtTtl: string',
    ...SELECTOR('$.spec.namespaceSelector'),
    ...SELECTOR('$.spec.podSelector'),
    '$.spec.spiffeIDTemplate: string',
    '$.spec.ttl: string',
    '$.spec.workloadSelectorTemplates: array',
    '$.spec.workloadSelectorTemplates[]: string',
    '$.status: object',
    // Ours, additive, like entriesWithoutFederation below.
    '$.status.conditions: array',
    '$.status.conditions[]: object required=lastTransitionTime,message,reason,status,type',
    '$.status.conditions[].lastTransitionTime: string',
    '$.status.conditions[].message: string',
    '$.status.conditions[].reason: string',
    '$.status.conditions[].status: string enum=True,False,Unknown',
    '$.status.conditions[].type: string',
    '$.status.stats: object',
    '$.status.stats.entriesMasked: integer',
    '$.status.stats.entriesToSet: integer',
    // Ours, additive: upstream objects are unaffected, and a status field it lacks is ours to write.
    '$.status.stats.entriesWithoutFederation: integer',
    '$.status.stats.entryFailures: integer',
    '$.status.stats.namespacesIgnored: integer',
    '$.status.stats.namespacesSelected: integer',
    '$.status.stats.podEntryRenderFailures: integer',
    '$.status.stats.podsSelected: integer',
  ],
  ClusterStaticEntry: [
    '$: object required=metadata,spec',
    '$.apiVersion: string',
    '$.kind: string',
    '$.metadata: object',
    '$.spec: object required=parentID,selectors,spiffeID',
    '$.spec.admin: boolean',
    '$.spec.className: string',
    '$.spec.dnsNames: array',
    '$.spec.dnsNames[]: string',
    '$.spec.downstream: boolean',
    '$.spec.federatesWith: array',
    '$.spec.federatesWith[]: string',
    '$.spec.hint: string',
    '$.spec.jwtSVIDTTL: string',
    '$.spec.parentID: string',
    '$.spec.selectors: array',
    '$.spec.selectors[]: string',
    '$.spec.spiffeID: string',
    '$.spec.storeSVID: boolean',
    '$.spec.x509SVIDTTL: string',
    '$.status: object required=masked,rendered,set',
    '$.status.masked: boolean',
    '$.status.rendered: boolean',
    '$.status.set: boolean',
  ],
  ClusterFederatedTrustDomain: [
    '$: object required=metadata,spec',
    '$.apiVersion: string',
    '$.kind: string',
    '$.metadata: object',
    '$.spec: object required=bundleEndpointProfile,bundleEndpointURL,trustDomain',
    '$.spec.bundleEndpointProfile: object required=type',
    '$.spec.bundleEndpointProfile.endpointSPIFFEID: string',
    '$.spec.bundleEndpointProfile.type: string enum=https_spiffe,https_web',
    '$.spec.bundleEndpointURL: string',
    '$.spec.className: string',
    '$.spec.trustDomain: string pattern=[a-z0-9._-]{1,255}',
    '$.spec.trustDomainBundle: string',
    // Upstream's status is a bare `type: object`; ours keeps unknown fields (see the CRD file).
    '$.status: object preserve-unknown',
  ],
};

function readCRD(kind: keyof typeof CRD_FILES): Record<string, unknown> {
  const docs = parseAllDocuments(readFileSync(`${CRDS_ROOT}/${CRD_FILES[kind]}`, 'utf8'));
  expect(docs).toHaveLength(1);
  const [doc] = docs;
  expect(doc?.errors).toEqual([]);
  return doc?.toJS() as Record<string, unknown>;
}

describe.each(Object.keys(CRD_FILES) as (keyof typeof CRD_FILES)[])('the %s CRD installs as upstream\'s does', (kind) => {
  it('is a cluster-scoped spire.spiffe.io CRD, v1alpha1 served and stored, with a status subresource', () => {
    const crd = readCRD(kind);
    const plural = CRD_FILES[kind].replace(/^spire\.spiffe\.io_/, '').replace(/\.yaml$/, '');
    expect(crd).toMatchObject({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.spire.spiffe.io` },
      spec: {
        group: 'spire.spiffe.io',
        scope: 'Cluster',
        names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      },
    });
    const versions = (crd.spec as { versions: Record<string, unknown>[] }).versions;
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} } });
  });

  it('has upstream\'s printer columns, and ours with the key status fields', () => {
    const [version] = (readCRD(kind).spec as { versions: Record<string, unknown>[] }).versions;
    const age = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
    const expected = {
      ClusterFederatedTrustDomain: [
        { name: 'Trust Domain', type: 'string', jsonPath: '.spec.trustDomain' },
        { name: 'Endpoint URL', type: 'string', jsonPath: '.spec.bundleEndpointURL' },
      ],
      ClusterSPIFFEID: [
        { name: 'Pods', type: 'integer', jsonPath: '.status.stats.podsSelected' },
        { name: 'Entries', type: 'integer', jsonPath: '.status.stats.entriesToSet' },
        { name: 'Render Failures', type: 'integer', jsonPath: '.status.stats.podEntryRenderFailures' },
        { name: 'Entry Failures', type: 'integer', jsonPath: '.status.stats.entryFailures' },
        age,
      ],
      ClusterStaticEntry: [
        { name: 'SPIFFE ID', type: 'string', jsonPath: '.spec.spiffeID' },
        { name: 'Rendered', type: 'boolean', jsonPath: '.status.rendered' },
        { name: 'Masked', type: 'boolean', jsonPath: '.status.masked' },
        { name: 'Set', type: 'boolean', jsonPath: '.status.set' },
        age,
      ],
    }[kind];
    expect(version?.additionalPrinterColumns).toEqual(expected);
  });

  it('declares upstream\'s fields, types and required lists, no more and no fewer', () => {
    expect(flatten(readCRDSchema(kind) as Schema)).toEqual(UPSTREAM[kind]);
  });

  it('is a structural schema: every field has a type or keeps unknown fields', () => {
    expect(flatten(readCRDSchema(kind) as Schema).filter((line) => line.includes(': ?'))).toEqual([]);
  });
});
