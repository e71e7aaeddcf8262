/**
 * "Passes the checks" implies "SPIRE accepts the entry": each object below is
 * one SPIRE refuses, and the checks `validate`, the webhook and the reconcile
 * share (checkObject, renderStaticEntry, parseClusterSPIFFEID, the per-pod
 * render) refuse it first, naming the field. The other half of each case sends
 * what upstream would have sent, unchecked, to the in-memory SPIRE server,
 * which answers as a real one (test/conformance/): so each check stands for a
 * refusal that really happens, and is not an invention of ours. Objects at the
 * edge of each rule pass the checks and are accepted by SPIRE.
 */
import { describe, expect, it } from 'vitest';
import { IgnoredNamespaces, parseGoDuration, type ClusterSPIFFEID, type ClusterStaticEntry, type Namespace, type Node, type Pod } from '../../src/api/index.js';
import { declareEntries, type EntrySpec, renderStaticEntry, toSpire } from '../../src/entries/index.js';
import { DEFAULT_PARENT_ID_TEMPLATE } from '../../src/api/index.js';
import { compileTemplate } from '../../src/template/index.js';
import { checkObject } from '../../src/webhook/checks.js';
import { spireForEachTest } from '../support/spire.js';

const TD = 'example.org';
const t = spireForEachTest();

const BASE = { spiffeID: '/static/web', parentID: '/spire/server', selectors: ['unix:uid:1000'] };
const cse = (spec: Partial<ClusterStaticEntry['spec']>): ClusterStaticEntry =>
  ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', metadata: { name: 'static', uid: 'cse-1' }, spec: { ...BASE, ...spec } }) as ClusterStaticEntry;

/** What upstream would send for a static entry: the fields as written, nothing checked (its TTLs wrap to int32 as protobuf encodes them). */
function unchecked(spec: ClusterStaticEntry['spec']): EntrySpec {
  const id = (v: string) => (v.startsWith('/') ? `spiffe://${TD}${v}` : v);
  const seconds = (d: string | undefined) => (d ? Math.trunc(parseGoDuration(d) / 1e9) : 0);
  return {
    spiffeId: id(spec.spiffeID),
    parentId: id(spec.parentID),
    selectors: spec.selectors.map((s) => ({ type: s.slice(0, s.indexOf(':')), value: s.slice(s.indexOf(':') + 1) })),
    x509SvidTtl: seconds(spec.x509SVIDTTL),
    jwtSvidTtl: seconds(spec.jwtSVIDTTL),
    federatesWith: spec.federatesWith ?? [],
    dnsNames: spec.dnsNames ?? [],
    admin: false,
    downstream: false,
    storeSvid: spec.storeSVID ?? false,
    hint: spec.hint ?? '',
  };
}

async function spireVerdict(spec: EntrySpec): Promise<{ ok: boolean; message: string }> {
  const outcome = await t.client.createEntries([toSpire(spec, '')]);
  const status = outcome.results[0]!.status;
  return { ok: status.ok, message: status.message };
}

interface Refused {
  name: string;
  spec: Partial<ClusterStaticEntry['spec']>;
  field: string;
  reason: RegExp;
  /** SPIRE's answer to the unchecked entry; 'accepted' where our check is stricter on purpose (the reason says why). */
  spire: RegExp | 'accepted';
}

const refusedStatic: Refused[] = [
  { name: 'a SPIFFE ID in another trust domain', spec: { spiffeID: 'spiffe://other.org/web' }, field: 'spec.spiffeID', reason: /is not a member of trust domain "example.org"$/, spire: /invalid spiffe ID: "spiffe:\/\/other.org\/web" is not a member of trust domain "example.org"/ },
  { name: 'a parent ID in another trust domain', spec: { parentID: 'spiffe://other.org/spire/server' }, field: 'spec.parentID', reason: /is not a member of trust domain "example.org"$/, spire: /invalid parent ID: / },
  { name: 'a SPIFFE ID in the reserved /spire namespace', spec: { spiffeID: '/spire/thing' }, field: 'spec.spiffeID', reason: /path is in the reserved namespace$/, spire: /path is in the reserved namespace/ },
  { name: 'a bare trust domain as SPIFFE ID', spec: { spiffeID: `spiffe://${TD}` }, field: 'spec.spiffeID', reason: /is not a workload in trust domain "example.org"; path is empty$/, spire: /path is empty/ },
  { name: 'a bare trust domain as parent ID', spec: { parentID: `spiffe://${TD}` }, field: 'spec.parentID', reason: /is not a member of trust domain "example.org"; path is empty$/, spire: /path is empty/ },
  { name: 'a TTL that overflows int32', spec: { x509SVIDTTL: '876000h' }, field: 'spec.x509SVIDTTL', reason: /^"876000h" is 3153600000 seconds; SPIRE takes at most 2147483647/, spire: /X509SvidTtl is not set/ },
  { name: 'a JWT TTL that overflows int32', spec: { jwtSVIDTTL: '600000h' }, field: 'spec.jwtSVIDTTL', reason: /SPIRE takes at most 2147483647/, spire: /JwtSvidTtl is not set/ },
  { name: 'a negative TTL', spec: { x509SVIDTTL: '-1h' }, field: 'spec.x509SVIDTTL', reason: /^"-1h" is negative; SPIRE refuses a negative TTL$/, spire: /X509SvidTtl is not set/ },
  { name: 'a hint over 1,024 bytes', spec: { hint: 'h'.repeat(1025) }, field: 'spec.hint', reason: /^is 1025 bytes; SPIRE takes at most 1024$/, spire: /hint is too long, max length is 1024 characters/ },
  { name: 'a hint of 342 three-byte characters', spec: { hint: '€'.repeat(342) }, field: 'spec.hint', reason: /^is 1026 bytes/, spire: /hint is too long/ },
  { name: 'a selector listed twice', spec: { selectors: ['unix:uid:1000', 'unix:uid:1000'] }, field: 'spec.selectors', reason: /^duplicate selector "unix:uid:1000"/, spire: /UNIQUE constraint failed: selectors/ },
  { name: 'storeSVID with selectors of two types', spec: { storeSVID: true, selectors: ['unix:uid:1000', 'k8s:ns:a'] }, field: 'spec.selectors', reason: /^storeSVID needs selectors of one type/, spire: /selector types must be the same when store SVID is enabled/ },
  { name: 'a DNS name ending with a dot', spec: { dnsNames: ['web.example.org.'] }, field: 'spec.dnsNames[0]', reason: /^invalid DNS name "web.example.org.": domain ends with dot$/, spire: /invalid DNS name: domain ends with dot/ },
  { name: 'a DNS name with an empty label', spec: { dnsNames: ['a..b'] }, field: 'spec.dnsNames[0]', reason: /^invalid DNS name "a..b": idna error: idna: invalid label ""$/, spire: /invalid DNS name: idna error/ },
  { name: 'a DNS name with a wildcard inside', spec: { dnsNames: ['a.*.b'] }, field: 'spec.dnsNames[0]', reason: /wildcard must be first label$/, spire: /wildcard must be first label/ },
  { name: 'a DNS name that is not ASCII', spec: { dnsNames: ['bücher.de'] }, field: 'spec.dnsNames[0]', reason: /name must be ascii$/, spire: /name must be ascii/ },
  {
    name: 'a DNS name with a NUL (SPIRE built with Go <= 1.26 takes it, newer builds refuse it)',
    spec: { dnsNames: ['a\u0000b.example.org'] },
    field: 'spec.dnsNames[0]',
    reason: /character "\\u0000" is not allowed/,
    spire: 'accepted',
  },
  { name: 'a DNS name with a control character', spec: { dnsNames: ['a\tb'] }, field: 'spec.dnsNames[0]', reason: /character "\\t" is not allowed/, spire: 'accepted' },
  { name: 'a DNS name with a space', spec: { dnsNames: ['a b.org'] }, field: 'spec.dnsNames[0]', reason: /character " " is not allowed/, spire: 'accepted' },
  {
    name: 'a selector with a NUL (SQLite stores it; PostgreSQL, which SPIRE also runs on, refuses it)',
    spec: { selectors: ['unix:uid:1\u00000'] },
    field: 'spec.selectors[0]',
    reason: /contains a NUL character/,
    spire: 'accepted',
  },
  { name: 'a SPIFFE ID with %2F', spec: { spiffeID: '/a%2Fb' }, field: 'spec.spiffeID', reason: /path segment characters are limited/, spire: /path segment characters are limited/ },
  { name: 'a SPIFFE ID with a query', spec: { spiffeID: '/a?b=c' }, field: 'spec.spiffeID', reason: /path segment characters are limited/, spire: /path segment characters are limited/ },
  { name: 'a SPIFFE ID with a fragment', spec: { spiffeID: '/a#b' }, field: 'spec.spiffeID', reason: /path segment characters are limited/, spire: /path segment characters are limited/ },
  { name: 'a SPIFFE ID with a dot segment', spec: { spiffeID: '/a/../b' }, field: 'spec.spiffeID', reason: /path cannot contain dot segments/, spire: /path cannot contain dot segments/ },
  { name: 'a SPIFFE ID with a NUL', spec: { spiffeID: '/a\u0000b' }, field: 'spec.spiffeID', reason: /path segment characters are limited/, spire: /path segment characters are limited/ },
  {
    // SPIRE takes one such entry; 200 to a call (how they are sent) make a call over gRPC's 4 MiB, which fails whole.
    name: 'an entry over 16 KiB',
    spec: { dnsNames: Array.from({ length: 400 }, (_, i) => `name-${i}.a-rather-long-service-domain.example.org`) },
    field: 'spec',
    reason: /^the entry would be \d+ bytes, over the limit of 16384/,
    spire: 'accepted',
  },
];

describe('a ClusterStaticEntry SPIRE would refuse is refused by the shared checks first, naming the field', () => {
  it.each(refusedStatic)('$name', async ({ spec, field, reason, spire }) => {
    const obj = cse(spec);
    const problems = checkObject('ClusterStaticEntry', obj, TD);
    expect(problems.map((p) => p.field)).toContain(field);
    expect(problems.find((p) => p.field === field)!.message).toMatch(reason);
    // The reconcile renders with the same function, so it refuses the same.
    expect('errors' in renderStaticEntry(obj, TD)).toBe(true);

    const verdict = await spireVerdict(unchecked(obj.spec));
    if (spire === 'accepted') expect(verdict).toEqual({ ok: true, message: 'OK' });
    else {
      expect(verdict.ok).toBe(false);
      expect(verdict.message).toMatch(spire);
    }
  });
});

describe('at the edge of each rule, what passes the checks SPIRE accepts', () => {
  it.each([
    { name: 'the largest TTL int32 holds', spec: { x509SVIDTTL: '2147483647s', jwtSVIDTTL: '596523h14m7s' } },
    { name: 'a negative TTL under a second, sent as 0 (the default)', spec: { x509SVIDTTL: '-500ms' } },
    { name: 'a hint of exactly 1,024 bytes', spec: { hint: 'h'.repeat(1024) } },
    { name: 'wildcard, uppercase, underscore and single-label DNS names', spec: { dnsNames: ['*.example.org', 'Web.Example.org', 'my_host.example.org', 'localhost'] } },
    { name: 'the same DNS name twice (sent once)', spec: { dnsNames: ['a.example.org', 'a.example.org'] } },
    { name: 'storeSVID with selectors of one type', spec: { storeSVID: true, selectors: ['unix:uid:1000', 'unix:gid:1000'] } },
    { name: 'an agent ID as the parent', spec: { parentID: '/spire/agent/k8s_psat/demo/node-1' } },
  ])('$name', async ({ spec }) => {
    const r = renderStaticEntry(cse(spec), TD);
    if (!('spec' in r)) throw new Error(`refused: ${JSON.stringify(r.errors)}`);
    expect(await spireVerdict(r.spec)).toEqual({ ok: true, message: 'OK' });
  });
});

/** `spec` overrides a valid one; the cases' readonly literals stand for what YAML would give. */
const csid = (spec: object): ClusterSPIFFEID =>
  ({
    apiVersion: 'spire.spiffe.io/v1alpha1',
    kind: 'ClusterSPIFFEID',
    metadata: { name: 'web', uid: 'csid-1', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}', ...spec },
  }) as ClusterSPIFFEID;

describe('a ClusterSPIFFEID whose templates can only render what SPIRE refuses is refused before any pod is seen', () => {
  it.each([
    ['a literal ID with a dot segment', { spiffeIDTemplate: 'spiffe://example.org/a/../b' }, 'spec.spiffeIDTemplate', 'invalid SPIFFE ID "spiffe://example.org/a/../b": path cannot contain dot segments'],
    ['a literal ID with %2F', { spiffeIDTemplate: 'spiffe://example.org/a%2Fb' }, 'spec.spiffeIDTemplate', 'invalid SPIFFE ID "spiffe://example.org/a%2Fb": path segment characters are limited to letters, numbers, dots, dashes, and underscores'],
    ['a literal ID with a query', { spiffeIDTemplate: 'spiffe://example.org/web?x=1' }, 'spec.spiffeIDTemplate', 'invalid SPIFFE ID "spiffe://example.org/web?x=1": path segment characters are limited to letters, numbers, dots, dashes, and underscores'],
    ['a literal ID with a fragment', { spiffeIDTemplate: 'spiffe://example.org/web#x' }, 'spec.spiffeIDTemplate', 'invalid SPIFFE ID "spiffe://example.org/web#x": path segment characters are limited to letters, numbers, dots, dashes, and underscores'],
    ['a literal https:// URL', { spiffeIDTemplate: 'https://example.org/web' }, 'spec.spiffeIDTemplate', 'invalid SPIFFE ID "https://example.org/web": scheme is missing or invalid'],
    ['a literal ID under /spire', { spiffeIDTemplate: 'spiffe://example.org/spire/x' }, 'spec.spiffeIDTemplate', 'invalid SPIFFE ID "spiffe://example.org/spire/x": "spiffe://example.org/spire/x" is not a workload in trust domain "example.org"; path is in the reserved namespace'],
    ['an https:// scheme before the actions', { spiffeIDTemplate: 'https://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}' }, 'spec.spiffeIDTemplate', 'every SPIFFE ID it renders is invalid: scheme is missing or invalid (it begins "https://")'],
    ['one slash after the scheme, then the trust domain', { spiffeIDTemplate: 'spiffe:/{{ .TrustDomain }}/x' }, 'spec.spiffeIDTemplate', 'every SPIFFE ID it renders is invalid: scheme is missing or invalid: it begins "spiffe:/" and then .TrustDomain, which holds no "/" or ":", so never "spiffe://"'],
    ['no slash after the scheme, then a pod\'s namespace', { spiffeIDTemplate: 'spiffe:{{ .PodMeta.Namespace }}/x' }, 'spec.spiffeIDTemplate', 'every SPIFFE ID it renders is invalid: scheme is missing or invalid: it begins "spiffe:" and then .PodMeta.Namespace, which holds no "/" or ":", so never "spiffe://"'],
    ['a query among the actions', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}?sa={{ .PodSpec.ServiceAccountName }}' }, 'spec.spiffeIDTemplate', 'every SPIFFE ID it renders is invalid: it holds "?", and SPIFFE IDs hold only letters, numbers, dots, dashes, underscores and slashes'],
    ['%2F among the actions', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns%2F{{ .PodMeta.Namespace }}' }, 'spec.spiffeIDTemplate', 'every SPIFFE ID it renders is invalid: it holds "%", and SPIFFE IDs hold only letters, numbers, dots, dashes, underscores and slashes'],
    ['a dot segment between fixed slashes', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/../{{ .PodMeta.Namespace }}' }, 'spec.spiffeIDTemplate', 'every SPIFFE ID it renders is invalid: path cannot contain dot segments'],
    ['an empty segment', { spiffeIDTemplate: 'spiffe://example.org//{{ .PodMeta.Name }}' }, 'spec.spiffeIDTemplate', 'every SPIFFE ID it renders is invalid: path cannot contain empty segments'],
    ['a trailing slash', { spiffeIDTemplate: 'spiffe://example.org/{{ .PodMeta.Name }}/' }, 'spec.spiffeIDTemplate', 'every SPIFFE ID it renders is invalid: path cannot have a trailing slash'],
    ['a fixed /spire/ path', { spiffeIDTemplate: 'spiffe://example.org/spire/{{ .PodMeta.Name }}' }, 'spec.spiffeIDTemplate', "every SPIFFE ID it renders is invalid: the path is in SPIRE's reserved namespace (/spire)"],
    ['an uppercase trust domain', { spiffeIDTemplate: 'spiffe://Example.org/{{ .PodMeta.Name }}' }, 'spec.spiffeIDTemplate', 'every SPIFFE ID it renders is invalid: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores'],
    ['a NUL in the ID', { spiffeIDTemplate: 'spiffe://example.org/a\u0000{{ .PodMeta.Name }}' }, 'spec.spiffeIDTemplate', 'every SPIFFE ID it renders is invalid: it holds "\\u0000", and SPIFFE IDs hold only letters, numbers, dots, dashes, underscores and slashes'],
    ['a literal DNS name SPIRE refuses', { dnsNameTemplates: ['-web.example.org'] }, 'spec.dnsNameTemplates[0]', 'invalid DNS name "-web.example.org": idna error: idna: invalid label "-web"'],
    ['a DNS name template with a space', { dnsNameTemplates: ['{{ .PodMeta.Name }} .example.org'] }, 'spec.dnsNameTemplates[0]', 'every DNS name it renders is invalid: it holds " ", and DNS names hold only letters, digits, "-", "_" and "."'],
    ['a literal selector without a value', { workloadSelectorTemplates: ['k8s:'] }, 'spec.workloadSelectorTemplates[0]', 'invalid selector "k8s:": value cannot be empty'],
    ['the same selector template twice', { workloadSelectorTemplates: ['k8s:sa:{{ .PodSpec.ServiceAccountName }}', 'k8s:sa:{{ .PodSpec.ServiceAccountName }}'] }, 'spec.workloadSelectorTemplates[1]', 'same template as spec.workloadSelectorTemplates[0]: every entry would list its selector twice, which SPIRE refuses'],
    ['a TTL that overflows int32', { ttl: '876000h' }, 'spec.ttl', '"876000h" is 3153600000 seconds; SPIRE takes at most 2147483647 (a 32-bit integer: a larger value wraps around and SPIRE refuses the entry)'],
    ['a negative JWT TTL', { jwtTtl: '-5m' }, 'spec.jwtTtl', '"-5m" is negative; SPIRE refuses a negative TTL'],
    ['a hint over 1,024 bytes', { hint: 'x'.repeat(2000) }, 'spec.hint', 'is 2000 bytes; SPIRE takes at most 1024'],
  ] as const)('%s', (_name, spec, field, message) => {
    expect(checkObject('ClusterSPIFFEID', csid(spec), TD)).toContainEqual({ field, message });
    // Without the trust domain too: these hold whatever it is, so the reconcile refuses them as well.
    expect(checkObject('ClusterSPIFFEID', csid(spec), undefined)).toEqual([{ field, message }]);
  });

  it.each([
    'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}',
    // The action may print what makes the fixed part valid: only each pod's ID can tell.
    'spiffe://example.org/spire{{ .PodMeta.Name }}',
    'spiffe://example.org/..{{ .PodMeta.Name }}',
    '{{ "spiffe" }}://example.org/web',
    // A field that may hold "/" (an annotation) could still complete the scheme.
    'spiffe:/{{ .PodMeta.Annotations.where }}',
    'spiffe://example.org/{{ if .PodMeta.Labels.x }}?{{ end }}web',
  ])('%j is left to the per-pod render', (spiffeIDTemplate) => {
    expect(checkObject('ClusterSPIFFEID', csid({ spiffeIDTemplate }), TD)).toEqual([]);
  });
});

describe('per pod, an entry SPIRE would refuse is a render failure for that pod, and nothing is sent', () => {
  const node: Node = { metadata: { name: 'node-1', uid: 'node-uid' }, spec: {} };
  const namespace: Namespace = { metadata: { name: 'shop', uid: 'ns-1' } };
  const pod = (labels: Record<string, string>): Pod => ({ metadata: { name: 'web', namespace: 'shop', uid: 'pod-1', labels }, spec: { nodeName: 'node-1', serviceAccountName: 'web' }, status: { phase: 'Running' } });
  const render = (spec: object, labels: Record<string, string>) =>
    declareEntries(
      { clusterSPIFFEIDs: [csid(spec)], clusterStaticEntries: [], namespaces: [namespace], pods: [pod(labels)], nodes: [node], endpointSlices: [], endpoints: [] },
      { trustDomain: TD, clusterName: 'demo', clusterDomain: 'cluster.local', parentIdTemplate: compileTemplate(DEFAULT_PARENT_ID_TEMPLATE), ignoreNamespaces: IgnoredNamespaces.none(), className: '', watchClassless: false },
    );

  it.each([
    ['a DNS name from a label SPIRE refuses', { dnsNameTemplates: ['{{ .PodMeta.Labels.host }}'] }, { host: 'a..b' }, 'failed to render DNS name: invalid DNS name "a..b": idna error: idna: invalid label ""'],
    ['a selector a label makes the same as another', { workloadSelectorTemplates: ['k8s:sa:web', 'k8s:sa:{{ .PodMeta.Labels.sa }}'] }, { sa: 'web' }, 'failed to render workload selector: duplicate selector "k8s:sa:web": SPIRE refuses an entry that lists a selector twice'],
    ['an ID under /spire from a label', { spiffeIDTemplate: 'spiffe://example.org/{{ .PodMeta.Labels.p }}' }, { p: 'spire' }, 'failed to render SPIFFE ID: invalid SPIFFE ID "spiffe://example.org/spire": "spiffe://example.org/spire" is not a workload in trust domain "example.org"; path is in the reserved namespace'],
  ] as const)('%s', (_name, spec, labels, message) => {
    const state = render(spec, labels);
    expect(state.entries).toEqual([]);
    expect(state.renderFailures.map((f) => f.message)).toEqual([message]);
    expect(state.unknownPods).toEqual(new Set(['pod-1']));
  });
});
