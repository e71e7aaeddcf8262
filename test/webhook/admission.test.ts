/**
 * What `kubectl apply` of a spire.spiffe.io object sees, through the webhook
 * over real HTTPS: the served certificate is checked against the caBundle the
 * webhook patched into the ValidatingWebhookConfiguration, with the Service's
 * DNS name, exactly as the API server checks it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS, post, review, servingWebhook } from './helpers.js';

let serving: Awaited<ReturnType<typeof servingWebhook>>;

beforeAll(async () => {
  serving = await servingWebhook();
});

afterAll(async () => {
  await serving?.close();
});

/** Sends a review to `path` and returns the HTTP status and the review's response. */
async function admit(path: string, body: unknown) {
  const reply = await post(serving.webhook.port, path, typeof body === 'string' ? body : JSON.stringify(body), serving.tls);
  return { http: reply.status, response: reply.json?.response, reply };
}

const csid = (spec: object) => ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'greeter' }, spec });
const cse = (spec: object) => ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', metadata: { name: 'static-one' }, spec });
const cftd = (spec: object) => ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterFederatedTrustDomain', metadata: { name: 'backend' }, spec });

const SA_TEMPLATE = 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}';

interface Case {
  name: string;
  path: string;
  kind: string;
  object: object;
  /** undefined: allowed; otherwise the exact denial message. */
  denied?: string;
}

const cases: Case[] = [
  // ClusterSPIFFEID
  { name: "the migration guide's service-account template", path: PATHS.csid, kind: 'ClusterSPIFFEID', object: csid({ spiffeIDTemplate: SA_TEMPLATE, podSelector: { matchLabels: { 'spiffe.io/spiffe-id': 'true' } }, ttl: '1h', federatesWith: ['spiffe://example.io', 'example.ai'] }) },
  { name: 'a literal ID in the configured trust domain', path: PATHS.csid, kind: 'ClusterSPIFFEID', object: csid({ spiffeIDTemplate: 'spiffe://example.org/greeter-server', dnsNameTemplates: ['{{ .PodMeta.Name }}', 'my-custom-dns-name'] }) },
  {
    name: 'a function Go templates do not have',
    path: PATHS.csid,
    kind: 'ClusterSPIFFEID',
    object: csid({ spiffeIDTemplate: SA_TEMPLATE, dnsNameTemplates: ['{{ .PodMeta.Name }}', '{{ lower .PodMeta.Name }}'] }),
    denied: 'ClusterSPIFFEID greeter: spec.dnsNameTemplates[1]: template: 1:3: function "lower" not defined',
  },
  {
    name: "a literal ID in another trust domain (the demo's other cluster)",
    path: PATHS.csid,
    kind: 'ClusterSPIFFEID',
    object: csid({ spiffeIDTemplate: 'spiffe://cluster2.demo/greeter-client' }),
    denied: 'ClusterSPIFFEID greeter: spec.spiffeIDTemplate: trust domain "cluster2.demo" is not the configured trust domain "example.org"',
  },
  {
    name: 'every problem at once, each with its field',
    path: PATHS.csid,
    kind: 'ClusterSPIFFEID',
    object: csid({
      spiffeIDTemplate: 'spiffe://cluster2.demo/{{ .PodMeta.Name',
      workloadSelectorTemplates: ['k8s:ns:{{ .PodMeta.Namespace }}'],
      podSelector: { matchExpressions: [{ key: 'app', operator: 'Maybe' }] },
      ttl: '1 hour',
      jwtTtl: '5m',
      federatesWith: ['cluster1.demo', 'Not A TD'],
    }),
    denied: [
      'ClusterSPIFFEID greeter: spec.spiffeIDTemplate: template: 1:39: unclosed action',
      'ClusterSPIFFEID greeter: spec.spiffeIDTemplate: trust domain "cluster2.demo" is not the configured trust domain "example.org"',
      'ClusterSPIFFEID greeter: spec.podSelector.matchExpressions[0].operator: "Maybe" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)',
      'ClusterSPIFFEID greeter: spec.ttl: time: unknown unit " hour" in duration "1 hour"',
      'ClusterSPIFFEID greeter: spec.federatesWith[1]: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores',
    ].join('; '),
  },
  {
    name: "label selectors Kubernetes refuses (metav1.LabelSelectorAsSelector): bad keys, a 64-byte value, an invalid In value",
    path: PATHS.csid,
    kind: 'ClusterSPIFFEID',
    object: csid({
      spiffeIDTemplate: SA_TEMPLATE,
      namespaceSelector: { matchLabels: { 'bad key!': 'x' } },
      podSelector: { matchLabels: { 'a/b/c': 'x', app: 'v'.repeat(64) }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front end'] }] },
    }),
    denied: [
      `ClusterSPIFFEID greeter: spec.namespaceSelector.matchLabels["bad key!"]: key: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `ClusterSPIFFEID greeter: spec.podSelector.matchLabels["a/b/c"]: key: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      `ClusterSPIFFEID greeter: spec.podSelector.matchLabels["app"]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 bytes`,
      `ClusterSPIFFEID greeter: spec.podSelector.matchExpressions[0].values[0]: Invalid value: "front end": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ].join('; '),
  },
  { name: 'an empty template', path: PATHS.csid, kind: 'ClusterSPIFFEID', object: csid({ spiffeIDTemplate: '' }), denied: 'ClusterSPIFFEID greeter: spec.spiffeIDTemplate: empty SPIFFEID template' },
  // ClusterStaticEntry
  {
    name: "upstream's demo static entry",
    path: PATHS.cse,
    kind: 'ClusterStaticEntry',
    object: cse({
      spiffeID: 'spiffe://example.org/static-spiffe-id',
      parentID: 'spiffe://example.org/static-parent-id',
      selectors: ['static:one', 'static:two'],
      federatesWith: ['example.org'],
      x509SVIDTTL: '2h',
      jwtSVIDTTL: '6m',
      dnsNames: ['static-dns'],
      hint: 'static-hint-2',
      admin: true,
      downstream: true,
      storeSVID: true,
    }),
  },
  { name: 'path-only IDs, resolved against the configured trust domain', path: PATHS.cse, kind: 'ClusterStaticEntry', object: cse({ spiffeID: '/static', parentID: '/spire/server', selectors: ['unix:uid:0'] }) },
  {
    name: 'a parent without a scheme, a selector without a type and a TTL in words',
    path: PATHS.cse,
    kind: 'ClusterStaticEntry',
    object: cse({ spiffeID: 'spiffe://example.org/static', parentID: 'example.org/parent', selectors: ['static:one', 'nocolon'], x509SVIDTTL: '2 hours' }),
    denied: [
      'ClusterStaticEntry static-one: spec.parentID: scheme is missing or invalid',
      'ClusterStaticEntry static-one: spec.selectors[1]: invalid selector "nocolon": expected at least one colon to separate the type from the value',
      'ClusterStaticEntry static-one: spec.x509SVIDTTL: time: unknown unit " hours" in duration "2 hours"',
    ].join('; '),
  },
  { name: 'no selectors', path: PATHS.cse, kind: 'ClusterStaticEntry', object: cse({ spiffeID: '/a', parentID: '/b', selectors: [] }), denied: 'ClusterStaticEntry static-one: spec.selectors: at least one selector is required' },
  // ClusterFederatedTrustDomain
  { name: "the docs' https_web example", path: PATHS.cftd, kind: 'ClusterFederatedTrustDomain', object: cftd({ trustDomain: 'backend', bundleEndpointURL: 'https://backend.test/bundle', bundleEndpointProfile: { type: 'https_web' } }) },
  {
    name: "the demo's https_spiffe relationship",
    path: PATHS.cftd,
    kind: 'ClusterFederatedTrustDomain',
    object: cftd({ trustDomain: 'cluster2.demo', bundleEndpointURL: 'https://10.0.0.2:8443', bundleEndpointProfile: { type: 'https_spiffe', endpointSPIFFEID: 'spiffe://cluster2.demo/spire/server' }, trustDomainBundle: '{"keys":[]}' }),
  },
  {
    name: 'plain http with userinfo, a SPIFFE ID on https_web, and a bundle that is not one',
    path: PATHS.cftd,
    kind: 'ClusterFederatedTrustDomain',
    object: cftd({ trustDomain: 'Backend', bundleEndpointURL: 'http://user@backend.test/bundle', bundleEndpointProfile: { type: 'https_web', endpointSPIFFEID: 'spiffe://backend/x' }, trustDomainBundle: '{"nokeys":1}' }),
    denied: [
      'ClusterFederatedTrustDomain backend: spec.trustDomain: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores',
      'ClusterFederatedTrustDomain backend: spec.bundleEndpointURL: scheme must be https',
      'ClusterFederatedTrustDomain backend: spec.bundleEndpointURL: cannot contain userinfo',
      'ClusterFederatedTrustDomain backend: spec.bundleEndpointProfile.endpointSPIFFEID: not applicable to the "https_web" profile',
      'ClusterFederatedTrustDomain backend: spec.trustDomainBundle: must be a SPIFFE bundle: a JSON object with a "keys" array',
    ].join('; '),
  },
];

describe('an operator applying spire.spiffe.io objects sees every problem, named by object and field, before anything is stored', () => {
  for (const c of cases) {
    for (const operation of ['CREATE', 'UPDATE'] as const) {
      it(`${c.kind} ${operation}: ${c.name} is ${c.denied ? 'denied' : 'allowed'}`, async () => {
        const body = review(c.kind, operation, c.object, operation === 'UPDATE' ? c.object : null, `uid-${operation}`);
        const { http, response } = await admit(c.path, body);
        expect(http).toBe(200);
        expect(response.uid).toBe(`uid-${operation}`);
        if (c.denied === undefined) {
          expect(response).toEqual({ uid: `uid-${operation}`, allowed: true });
        } else {
          expect(response).toEqual({ uid: `uid-${operation}`, allowed: false, status: { code: 403, reason: 'Forbidden', message: c.denied } });
        }
      });
    }
  }
});

describe('an update is judged by the object being written, not the one it replaces', () => {
  const good = csid({ spiffeIDTemplate: SA_TEMPLATE });
  const bad = csid({ spiffeIDTemplate: SA_TEMPLATE, ttl: 'soon' });

  it('fixing a bad object is allowed', async () => {
    const { response } = await admit(PATHS.csid, review('ClusterSPIFFEID', 'UPDATE', good, bad));
    expect(response.allowed).toBe(true);
  });

  it('breaking a good object is denied', async () => {
    const { response } = await admit(PATHS.csid, review('ClusterSPIFFEID', 'UPDATE', bad, good));
    expect(response.allowed).toBe(false);
    expect(response.status.message).toBe('ClusterSPIFFEID greeter: spec.ttl: time: invalid duration "soon"');
  });
});

describe('deleting is never blocked', () => {
  it('DELETE of an object that would fail every check is allowed', async () => {
    const bad = csid({ spiffeIDTemplate: '{{' });
    const { http, response } = await admit(PATHS.csid, review('ClusterSPIFFEID', 'DELETE', null, bad, 'del-1'));
    expect(http).toBe(200);
    expect(response).toEqual({ uid: 'del-1', allowed: true });
  });
});

describe('a request that is not a usable AdmissionReview gets HTTP 400 and says why', () => {
  it('a body that is not JSON', async () => {
    const { http, response } = await admit(PATHS.csid, '{"apiVersion": "admission.k8s.io/v1",');
    expect(http).toBe(400);
    expect(response.allowed).toBe(false);
    expect(response.status.code).toBe(400);
    expect(response.status.message).toMatch(/^request body is not JSON: /);
  });

  it('JSON of another kind', async () => {
    const { http, response } = await admit(PATHS.csid, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } });
    expect(http).toBe(400);
    expect(response.status.message).toBe('expected an admission.k8s.io/v1 AdmissionReview, got v1 Pod');
  });

  it('the v1beta1 AdmissionReview (the webhook declares admissionReviewVersions ["v1"])', async () => {
    const body = { ...review('ClusterSPIFFEID', 'CREATE', csid({ spiffeIDTemplate: SA_TEMPLATE })), apiVersion: 'admission.k8s.io/v1beta1' };
    const { http, response } = await admit(PATHS.csid, body);
    expect(http).toBe(400);
    expect(response.status.message).toBe('expected an admission.k8s.io/v1 AdmissionReview, got admission.k8s.io/v1beta1 AdmissionReview');
  });

  it('a review without a request uid', async () => {
    const body = review('ClusterSPIFFEID', 'CREATE', csid({ spiffeIDTemplate: SA_TEMPLATE }), null, '');
    const { http, response } = await admit(PATHS.csid, body);
    expect(http).toBe(400);
    expect(response.status.message).toBe('AdmissionReview request has no uid');
  });
});

describe('a ValidatingWebhookConfiguration that routes a kind to the wrong path is reported, not silently checked by the wrong rules', () => {
  it('a ClusterStaticEntry sent to the ClusterSPIFFEID path is denied with a message naming both', async () => {
    const body = review('ClusterStaticEntry', 'CREATE', cse({ spiffeID: '/a', parentID: '/b', selectors: ['x:y'] }), null, 'route-1');
    const { http, response } = await admit(PATHS.csid, body);
    expect(http).toBe(200);
    expect(response).toEqual({
      uid: 'route-1',
      allowed: false,
      status: { code: 400, reason: 'BadRequest', message: 'this endpoint validates ClusterSPIFFEID, not ClusterStaticEntry: check the webhook paths of the ValidatingWebhookConfiguration' },
    });
  });

  it('an unknown path is 404', async () => {
    const reply = await post(serving.webhook.port, '/validate-something-else', '{}', serving.tls);
    expect(reply.status).toBe(404);
  });
});
