import { describe, expect, it } from 'vitest';
import { type ClusterSPIFFEID, type Node, type Pod } from '../../src/api/index.js';
import { type ApplyFailure, declareEntries, entryPassProblems, type RenderFailure } from '../../src/entries/index.js';
import { CAUSES_PER_OBJECT, groupFailures, type GroupItem, spireRefusalCause } from '../../src/entries/problems.js';
import { selectionSettings } from '../support/selection.js';
import { owner } from './fixtures.js';

const problemsOf = (failures: RenderFailure[]) => entryPassProblems({ declared: { renderFailures: failures }, plan: { conflicts: [] } });

/** Render failures as a full pass declares them: one ClusterSPIFFEID over these pods and nodes. */
function declaredFailures(spec: Record<string, unknown>, pods: Pod[], nodes: Node[], parentIDTemplate = 'spiffe://{{ .TrustDomain }}/agent/{{ .NodeMeta.Name }}'): RenderFailure[] {
  const obj = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'web', uid: 'uid-web', creationTimestamp: '2026-01-01T00:00:00Z' }, spec } as unknown as ClusterSPIFFEID;
  return declareEntries(
    { clusterSPIFFEIDs: [obj], clusterStaticEntries: [], namespaces: [{ metadata: { name: 'shop', uid: 'ns-1' } }], pods, nodes, endpointSlices: [], endpoints: [] },
    selectionSettings({ parentIDTemplate }),
  ).renderFailures;
}

const node = (name: string, labels: Record<string, string> = {}): Node => ({ metadata: { name, uid: `uid-${name}`, labels }, spec: {} });
const pod = (name: string, over: { labels?: Record<string, string>; annotations?: Record<string, string>; nodeName?: string } = {}): Pod => ({
  metadata: { name, namespace: 'shop', uid: `uid-${name}`, labels: over.labels ?? {}, annotations: over.annotations ?? {} },
  spec: { nodeName: over.nodeName ?? 'node-1' },
  status: { phase: 'Running' },
});

describe('each check that refuses a pod’s entry says why without the pod’s values, so that the same reason groups', () => {
  const two = (over: (i: number) => Parameters<typeof pod>[1] = () => ({})) => [pod('web-0', over(0)), pod('web-1', over(1))];
  it.each<[string, Record<string, unknown>, Pod[], Node[], string?]>([
    ['a SPIFFE ID with a character SPIRE refuses', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/x/{{ .PodMeta.Labels.v }}' }, two((i) => ({ labels: { v: `a b${i}` } })), [node('node-1')]],
    ['a SPIFFE ID in another trust domain', { spiffeIDTemplate: 'spiffe://{{ .PodMeta.Name }}.org/x' }, two(), [node('node-1')]],
    ['a SPIFFE ID in the reserved /spire path', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.top }}/{{ .PodMeta.Name }}' }, two(() => ({ labels: { top: 'spire' } })), [node('node-1')]],
    ['a DNS name ending in a dot', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name }}', dnsNameTemplates: ['{{ .PodMeta.Name }}.shop.'] }, two(), [node('node-1')]],
    ['a DNS label IDNA refuses', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name }}', dnsNameTemplates: ['ok.shop', '-{{ .PodMeta.Name }}.shop'] }, two(), [node('node-1')]],
    ['a DNS name with a character SPIRE refuses', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name }}', dnsNameTemplates: ['{{ .PodMeta.Labels.host }}.shop'] }, two((i) => ({ labels: { host: `web ${i}` } })), [node('node-1')]],
    ['a selector without a colon', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name }}', workloadSelectorTemplates: ['{{ .PodMeta.Name }}'] }, two(), [node('node-1')]],
    [
      'a selector listed twice',
      { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name }}', workloadSelectorTemplates: ['k8s:x:{{ .PodMeta.Name }}', 'k8s:x:{{ .PodMeta.Labels.app }}'] },
      two((i) => ({ labels: { app: `web-${i}` } })),
      [node('node-1')],
    ],
    [
      'an entry over the size limit',
      { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name }}', workloadSelectorTemplates: ['k8s:big:{{ index .PodMeta.Annotations "big" }}'] },
      two((i) => ({ annotations: { big: 'x'.repeat(17_000 + i) } })),
      [node('node-1')],
    ],
    ['a node not known yet', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name }}' }, two((i) => ({ nodeName: `node-${i + 5}` })), [node('node-1')]],
    [
      'a parent ID the config’s template renders invalid for each node',
      { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name }}' },
      two((i) => ({ nodeName: `node-${i}` })),
      [node('node-0', { zone: 'z 0' }), node('node-1', { zone: 'z 1' })],
      'spiffe://{{ .TrustDomain }}/agent/{{ index .NodeMeta.Labels "zone" }}',
    ],
  ])('%s', (_, spec, pods, nodes, parent) => {
    const failures = declaredFailures(spec, pods, nodes, parent);
    expect(failures).toHaveLength(2);
    const [a, b] = failures as [RenderFailure, RenderFailure];
    expect(a.message).not.toEqual(b.message);
    expect(a.cause?.text).toEqual(b.cause?.text);
    expect(a.cause?.value).not.toEqual(b.cause?.value);
    for (const f of failures) expect(f.cause?.text).not.toMatch(/web-|node-\d|z \d/);
    // Grouped: one line, naming both pods and what each rendered.
    const problems = problemsOf(failures);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toBe(`2 pods: ${a.cause!.text} (e.g. shop/web-0: ${a.cause!.value}, shop/web-1: ${b.cause!.value})`);
  });
});

describe('a pass reports each object’s failures once per cause, however many pods or entries fail', () => {
  it('1,000 pods each failing with its own message are one line with the count and three examples', () => {
    const pods = Array.from({ length: 1000 }, (_, i) => pod(`web-${i}`));
    const failures = declaredFailures({ spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name }}', dnsNameTemplates: ['{{ .PodMeta.Name }}.shop.'] }, pods, [node('node-1')]);
    expect(new Set(failures.map((f) => f.message)).size).toBe(1000);
    const problems = problemsOf(failures);
    expect(problems).toEqual([
      {
        owner: expect.objectContaining({ kind: 'ClusterSPIFFEID', name: 'web' }),
        level: 'warn',
        event: 'RenderFailed',
        message: '1000 pods: spec.dnsNameTemplates[0] renders an invalid DNS name: domain ends with dot (e.g. shop/web-0: "web-0.shop.", shop/web-1: "web-1.shop.", shop/web-10: "web-10.shop.")',
        key: expect.any(String),
      },
    ]);
    // The same failures met in another order, or fewer of them, keep the key; the line says the set.
    const reversed = problemsOf([...failures].reverse());
    expect(reversed).toEqual(problems);
    const fewer = problemsOf(failures.slice(0, 999));
    expect(fewer[0]!.key).toBe(problems[0]!.key);
    expect(fewer[0]!.message).toMatch(/^999 pods: /);
  });

  it('identical messages show the message itself, and the pods as examples', () => {
    const broken = owner('broken');
    const failures: RenderFailure[] = Array.from({ length: 1000 }, (_, i) => ({
      owner: broken,
      pod: `team-a/p-${i}`,
      message: 'node node-9 is not known yet',
      cause: { text: 'its node is not known yet', value: 'node node-9' },
    }));
    failures.push(
      { owner: broken, pod: 'team-a/odd', message: 'failed to render SPIFFE ID: boom', cause: { text: 'spec.spiffeIDTemplate fails to render: boom' } },
      { owner: owner('other'), pod: 'team-a/p-0', message: 'node node-9 is not known yet', cause: { text: 'its node is not known yet', value: 'node node-9' } },
    );
    expect(problemsOf(failures).map((p) => [p.owner?.name, p.event, p.message])).toEqual([
      ['broken', 'RenderFailed', '1000 pods: node node-9 is not known yet (e.g. team-a/p-0, team-a/p-1, team-a/p-10)'],
      // A lone failure reads as it always did.
      ['broken', 'RenderFailed', 'pod team-a/odd: failed to render SPIFFE ID: boom'],
      ['other', 'RenderFailed', 'pod team-a/p-0: node node-9 is not known yet'],
    ]);
  });

  it(`an object failing for many causes gets ${CAUSES_PER_OBJECT} lines for its largest, and one for the rest`, () => {
    const o = owner('many');
    const failures: RenderFailure[] = [];
    for (let c = 0; c < 20; c++) {
      for (let i = 0; i <= c; i++) failures.push({ owner: o, pod: `ns/p-${c}-${i}`, message: `failed to render SPIFFE ID: index out of range: ${c}`, cause: { text: `spec.spiffeIDTemplate fails to render: index out of range: ${c}` } });
    }
    const problems = problemsOf(failures);
    expect(problems).toHaveLength(CAUSES_PER_OBJECT + 1);
    // The largest causes a line each, in the order met, the other 120 pods after the first of them.
    expect(problems.map((p) => p.message.replace(/ \(e\.g\. .*$/, ''))).toEqual([
      '16 pods: failed to render SPIFFE ID: index out of range: 15',
      '120 pods: 15 other causes',
      '17 pods: failed to render SPIFFE ID: index out of range: 16',
      '18 pods: failed to render SPIFFE ID: index out of range: 17',
      '19 pods: failed to render SPIFFE ID: index out of range: 18',
      '20 pods: failed to render SPIFFE ID: index out of range: 19',
    ]);
    expect(problems[1]!.message).toMatch(/\(e\.g\. pod ns\/p-0-0: failed to render SPIFFE ID: index out of range: 0\)$/);
    expect(new Set(problems.map((p) => p.key)).size).toBe(problems.length);
  });

  it('a lone refused create is named by its SPIFFE ID, not by the ID it asked for (new every pass)', () => {
    const o = owner('gw', { kind: 'ClusterStaticEntry' });
    const failures: ApplyFailure[] = [{ op: 'create', id: 'scm-x.1', key: 'k', spiffeId: 'spiffe://example.org/gw', owner: o, codeName: 'INVALID_ARGUMENT', message: 'bad' }];
    expect(entryPassProblems({ declared: { renderFailures: [] }, plan: { conflicts: [] }, applied: { failures } }).map((p) => [p.event, p.message])).toEqual([
      ['EntryRefused', 'create entry for spiffe://example.org/gw: INVALID_ARGUMENT: bad'],
    ]);
  });

  it('SPIRE’s refusals group by op, code and message with the quoted values taken out, and refused creates are Events', () => {
    const o = owner('web');
    const failures: ApplyFailure[] = Array.from({ length: 200 }, (_, i) => ({
      op: 'create',
      id: `id-${i}`,
      key: `k-${i}`,
      owner: o,
      spiffeId: `spiffe://example.org/web-${i}`,
      codeName: 'INVALID_ARGUMENT',
      message: `failed to convert entry: invalid DNS name: idna error\nidna: invalid label "web_${i}"`,
    }));
    failures.push(
      ...['a', 'b'].map((x): ApplyFailure => ({ op: 'update', id: `u-${x}`, key: x, owner: o, spiffeId: `spiffe://example.org/${x}`, codeName: 'UNAVAILABLE', message: 'connection reset' })),
      { op: 'delete', id: 'gone', key: 'g', spiffeId: 'spiffe://example.org/gone', codeName: 'INTERNAL', message: 'datastore-sql: locked' },
    );
    const problems = entryPassProblems({ declared: { renderFailures: [] }, plan: { conflicts: [] }, applied: { failures } });
    expect(problems.map((p) => [p.owner?.name, p.level, p.event, p.message])).toEqual([
      [
        'web',
        'error',
        'EntryRefused',
        'create of 200 entries: INVALID_ARGUMENT: failed to convert entry: invalid DNS name: idna error\nidna: invalid label "…" (e.g. spiffe://example.org/web-0: "web_0", spiffe://example.org/web-1: "web_1", spiffe://example.org/web-10: "web_10")',
      ],
      // A call that failed is retried, not refused: no Event.
      ['web', 'error', undefined, 'update of 2 entries: UNAVAILABLE: connection reset (e.g. spiffe://example.org/a, spiffe://example.org/b)'],
      [undefined, 'error', undefined, 'delete entry gone (spiffe://example.org/gone): INTERNAL: datastore-sql: locked'],
    ]);
  });

  it('a refusal’s cause is its message without what it quotes', () => {
    expect(spireRefusalCause('failed to convert entry: invalid parent ID: "spiffe://other.org/n" is not a member of trust domain "example.org"')).toEqual({
      text: 'failed to convert entry: invalid parent ID: "…" is not a member of trust domain "…"',
      value: '"spiffe://other.org/n" "example.org"',
    });
    // Go quotes a quote inside a value with a backslash.
    expect(spireRefusalCause('duplicate selector "k8s:a\\"b": refused')).toEqual({ text: 'duplicate selector "…": refused', value: '"k8s:a\\"b"' });
    expect(spireRefusalCause('similar entry already exists')).toEqual({ text: 'similar entry already exists' });
  });

  it('conflicts and entries set without federatesWith group per object', () => {
    const o = owner('web');
    const spec = (i: number) => ({ spiffeId: `spiffe://example.org/web-${i}` });
    const problems = entryPassProblems({
      declared: { renderFailures: [], federationOmissions: [0, 1, 2, 3].map((i) => ({ owner: o, spiffeId: `spiffe://example.org/web-${i}`, missing: ['b.org'] })) },
      plan: { conflicts: [0, 1, 2, 3].map((i) => ({ key: `k${i}`, spec: spec(i) as never, owner: o, foreignIds: [`f-${i}`] })) },
    });
    expect(problems.map((p) => [p.event, p.message])).toEqual([
      ['EntryConflict', '4 entries: held by an entry outside entryScope; not created (e.g. spiffe://example.org/web-0: entry f-0, spiffe://example.org/web-1: entry f-1, spiffe://example.org/web-2: entry f-2)'],
      ['FederatesWithIncomplete', '4 entries: set without federatesWith b.org: SPIRE has no bundle for it yet (e.g. spiffe://example.org/web-0, spiffe://example.org/web-1, spiffe://example.org/web-2)'],
    ]);
  });

  it('groupFailures keeps objects and kinds apart, in the order first met', () => {
    const item = (name: string, kind: string, subject: string): GroupItem => ({ owner: owner(name), kind, cause: { text: 'same', value: subject }, subject, message: `m ${subject}`, line: `line ${subject}` });
    const wordings = { a: { level: 'warn' as const, many: (n: number) => `${n} a` }, b: { level: 'error' as const, many: (n: number) => `${n} b` } };
    const out = groupFailures([item('x', 'a', '1'), item('y', 'a', '2'), item('x', 'b', '3'), item('x', 'a', '4')], wordings);
    expect(out.map((p) => [p.owner?.name, p.level, p.message])).toEqual([
      ['x', 'warn', '2 a: same (e.g. 1: 1, 4: 4)'],
      ['y', 'warn', 'line 2'],
      ['x', 'error', 'line 3'],
    ]);
  });
});

describe('a write SPIRE refuses is an Event on its object; one that did not reach SPIRE is not', () => {
  const gw = owner('gw', { kind: 'ClusterStaticEntry' });
  const failure = (op: 'create' | 'update' | 'delete', codeName: string, o = gw as typeof gw | undefined) => ({
    op,
    id: 'scm-demo.1',
    key: 'k',
    spiffeId: 'spiffe://example.org/gw',
    ...(o ? { owner: o } : {}),
    codeName,
    message: 'why',
  });
  it.each([
    // op, gRPC code, Event reason
    ['create', 'INTERNAL', 'EntryRefused', 'create entry for spiffe://example.org/gw: INTERNAL: why'],
    ['create', 'INVALID_ARGUMENT', 'EntryRefused', 'create entry for spiffe://example.org/gw: INVALID_ARGUMENT: why'],
    ['create', 'ALREADY_EXISTS', 'EntryRefused', 'create entry for spiffe://example.org/gw: ALREADY_EXISTS: why'],
    ['update', 'NOT_FOUND', 'EntryRefused', 'update entry scm-demo.1 (spiffe://example.org/gw): NOT_FOUND: why'],
    ['create', 'UNAVAILABLE', undefined, 'create entry for spiffe://example.org/gw: UNAVAILABLE: why'],
    ['update', 'DEADLINE_EXCEEDED', undefined, 'update entry scm-demo.1 (spiffe://example.org/gw): DEADLINE_EXCEEDED: why'],
  ] as const)('%s, %s: event %s', (op, code, event, message) => {
    const [p] = entryPassProblems({ declared: { renderFailures: [] }, plan: { conflicts: [] }, applied: { failures: [failure(op, code)] } });
    const { key: _key, ...rest } = p!;
    expect(rest).toEqual({ owner: gw, level: 'error', ...(event ? { event } : {}), message });
  });
});
