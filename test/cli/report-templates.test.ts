/**
 * The report templates of src/cli/templates/, each rendered from a view
 * model as its code builds one, and the folder checked against its users:
 * every report is rendered by some command, every partial included by some
 * template. The commands' own tests (plan-output, explain, commands) pin the
 * reports end to end.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ObjectView, objectView } from '../../src/cli/explain-object.js';
import { type PodView, podView } from '../../src/cli/explain-pod.js';
import { type PlanView, planView } from '../../src/cli/plan-view.js';
import { alignColumns, plural, REPORT_TEMPLATES, renderReport, TEMPLATE_DIR } from '../../src/cli/report-templates.js';
import type { EntryView, PlanReport } from '../../src/cli/report.js';
import { ZERO_ENTRY_FIELDS } from '../support/entry-view.js';

const entry = (over: Partial<EntryView>): EntryView => ({
  id: 'rec-1',
  spiffeID: 'spiffe://td/ns/a/sa/b',
  parentID: 'spiffe://td/agent/n1',
  selectors: ['k8s:ns:a', 'k8s:sa:b'],
  ...ZERO_ENTRY_FIELDS,
  ...over,
});

const everyField = entry({ id: 'rec-2', dnsNames: ['a.svc', 'b.svc'], federatesWith: ['other.td'], x509SVIDTTL: 3600, jwtSVIDTTL: 300, admin: true, downstream: true, hint: 'web', storeSVID: true });

const fullPlan: PlanView = {
  source: 'Manifests in ./m (2 files)',
  create: [
    { ...entry({}), object: 'ClusterSPIFFEID/web' },
    { ...everyField, object: 'ClusterStaticEntry/s' },
  ],
  update: [{ id: 'rec-3', spiffeID: 'spiffe://td/x', object: 'ClusterSPIFFEID/web', changes: [{ field: 'dnsNames', old: '[]', new: 'x' }, { field: 'x509SVIDTTL', old: '60', new: '0' }] }],
  delete: [
    { ...entry({ id: 'rec-5' }), reason: 'undeclared', pod: 'a/gone', podUID: 'u9' },
    { ...entry({ id: 'rec-6' }), reason: 'duplicate', pod: null, podUID: 'u8' },
    { ...entry({ id: 'rec-7' }), reason: 'cleanup', pod: null, podUID: null },
  ],
  clusterSPIFFEIDStatus: { header: ['NAME', 'PODS'], rows: [['web', '3'], ['a-longer-name', '12']] },
  clusterStaticEntryStatus: { header: ['NAME', 'SET'], rows: [['s', 'true']] },
  conflicts: [{ object: 'ClusterSPIFFEID/web', message: 'held by foreign-1' }],
  renderFailures: [{ object: 'ClusterSPIFFEID/bad', message: 'pod a/p: no field Foo' }],
  unknownNamespaces: ['namespace ghost is not known'],
  federationOmissions: [{ object: 'ClusterSPIFFEID/web', message: 'set without other.td' }],
  kept: [
    { id: 'rec-8', detail: 'a join-token entry', pod: 'b/p', podUID: 'u7' },
    { id: 'rec-9', detail: 'policy create-only', pod: null, podUID: null },
  ],
  migration: { messages: ['2 entries have IDs SPIRE made'], leftAlone: [{ id: 'scm-a', prefix: 'scm-' }] },
  federation: {
    create: [
      { trustDomain: 'a.td', bundleEndpointURL: 'https://a', profile: 'https_web', endpointSPIFFEID: null, bundle: null, object: 'ClusterFederatedTrustDomain/a' },
      { trustDomain: 'b.td', bundleEndpointURL: 'https://b', profile: 'https_spiffe', endpointSPIFFEID: 'spiffe://b.td/x', bundle: { x509Authorities: 2, jwtAuthorities: 1, sequenceNumber: 7 }, object: 'ClusterFederatedTrustDomain/b' },
    ],
    update: [{ trustDomain: 'c.td', changed: ['bundleEndpointURL', 'profile'], object: 'ClusterFederatedTrustDomain/c' }],
    delete: [{ trustDomain: 'd.td', bundleEndpointURL: 'https://d', profile: 'no profile', endpointSPIFFEID: null, bundle: null }],
    problems: [{ object: 'ClusterFederatedTrustDomain/e', message: 'trust domain e.td is already declared' }],
    kept: [{ trustDomain: 'g.td', detail: 'policy' }],
    failed: [{ object: 'a.td', message: 'INTERNAL: boom' }],
  },
  applied: {
    created: 1,
    updated: 0,
    deleted: 2,
    failed: [
      { op: 'create', id: 'rec-1', object: 'ClusterSPIFFEID/web', pod: 'a/p1', podUID: 'u1', code: 'INVALID_ARGUMENT', message: 'bad' },
      { op: 'delete', id: 'rec-6', object: null, pod: null, podUID: 'u8', code: 'INTERNAL', message: 'boom' },
    ],
    heldBack: [{ id: 'rec-5', detail: 'its replacement failed', pod: 'a/gone', podUID: 'u9' }],
  },
  notes: ['1 object skipped by className'],
  summary: { create: 2, update: 1, delete: 3, kept: 2, conflicts: 1, renderFailures: 1 },
};

const emptyPlan: PlanView = {
  source: 'The cluster at https://k',
  create: [],
  update: [],
  delete: [],
  clusterSPIFFEIDStatus: null,
  clusterStaticEntryStatus: null,
  conflicts: [],
  renderFailures: [],
  unknownNamespaces: [],
  federationOmissions: [],
  kept: [],
  migration: null,
  federation: null,
  applied: null,
  notes: [],
  summary: { create: 0, update: 0, delete: 0, kept: 0, conflicts: 2, renderFailures: 0 },
};

describe('plan.hbs', () => {
  it('renders every section, in order, each after one blank line', () => {
    expect(renderReport('plan', fullPlan)).toBe(
      [
        'Manifests in ./m (2 files)',
        '',
        'Create (2)',
        '  + rec-1  spiffe://td/ns/a/sa/b  parent=spiffe://td/agent/n1  selectors=k8s:ns:a,k8s:sa:b  [ClusterSPIFFEID/web]',
        '  + rec-2  spiffe://td/ns/a/sa/b  parent=spiffe://td/agent/n1  selectors=k8s:ns:a,k8s:sa:b  dns=a.svc,b.svc  federatesWith=other.td  ttl=3600s  jwtTtl=300s  admin  downstream  storeSVID  hint=web  [ClusterStaticEntry/s]',
        '',
        'Update (1)',
        '  ~ rec-3  spiffe://td/x  [ClusterSPIFFEID/web]',
        '      dnsNames: [] -> x',
        '      x509SVIDTTL: 60 -> 0',
        '',
        'Delete (3)',
        '  - rec-5  spiffe://td/ns/a/sa/b  parent=spiffe://td/agent/n1  selectors=k8s:ns:a,k8s:sa:b  (undeclared) [pod a/gone]',
        '  - rec-6  spiffe://td/ns/a/sa/b  parent=spiffe://td/agent/n1  selectors=k8s:ns:a,k8s:sa:b  (duplicate) [pod UID u8]',
        '  - rec-7  spiffe://td/ns/a/sa/b  parent=spiffe://td/agent/n1  selectors=k8s:ns:a,k8s:sa:b  (cleanup)',
        '',
        'ClusterSPIFFEID status',
        '  NAME           PODS',
        '  web            3',
        '  a-longer-name  12',
        '',
        'ClusterStaticEntry status',
        '  NAME  SET',
        '  s     true',
        '',
        'Conflicts: declared entries held by entries outside entryScope, not created (1)',
        '  ! ClusterSPIFFEID/web: held by foreign-1',
        '',
        'Render failures (1)',
        '  ! ClusterSPIFFEID/bad: pod a/p: no field Foo',
        '',
        'Unknown namespaces: their pods keep their entries (1)',
        '  ? namespace ghost is not known',
        '',
        'Set without some federatesWith (no bundle yet; completed once SPIRE has it) (1)',
        '  ! ClusterSPIFFEID/web: set without other.td',
        '',
        'Kept (not deleted or changed) (2)',
        '  = rec-8 [pod b/p]: a join-token entry',
        '  = rec-9: policy create-only',
        '',
        'Migration',
        '  ! 2 entries have IDs SPIRE made',
        '  = scm-a: former default prefix scm-, owner unknown: left alone',
        '',
        'Federation relationships: create 2, update 1, delete 1',
        '  + a.td  https://a  https_web  [ClusterFederatedTrustDomain/a]',
        '  + b.td  https://b  https_spiffe (spiffe://b.td/x)  bundle: 2 X.509, 1 JWT, sequence 7  [ClusterFederatedTrustDomain/b]',
        '  ~ c.td: bundleEndpointURL, profile  [ClusterFederatedTrustDomain/c]',
        '  - d.td  https://d  no profile',
        '  ! ClusterFederatedTrustDomain/e: trust domain e.td is already declared',
        '  = g.td: policy',
        '  ! a.td: INTERNAL: boom',
        '',
        'Failed (2)',
        '  ! create rec-1 [ClusterSPIFFEID/web] [pod a/p1]: INVALID_ARGUMENT: bad',
        '  ! delete rec-6 [pod UID u8]: INTERNAL: boom',
        '',
        'Held back (1)',
        '  = rec-5 [pod a/gone]: its replacement failed',
        '',
        'Notes',
        '  * 1 object skipped by className',
        '',
        'Applied: 1 created, 0 updated, 2 deleted, 2 failed; 2 kept, 1 conflict, 1 render failure',
      ].join('\n'),
    );
  });

  it('leaves out the sections with nothing to say, and counts the plan on its last line', () => {
    expect(renderReport('plan', emptyPlan)).toBe(['The cluster at https://k', '', 'Create (0)', '', 'Update (0)', '', 'Delete (0)', '', 'Plan: 0 to create, 0 to update, 0 to delete, 0 kept, 2 conflicts'].join('\n'));
  });

  it('is built from the JSON report: planView fills every field the template reads', () => {
    const report: PlanReport = {
      create: [],
      update: [{ entry: entry({ id: 'rec-3', hint: 'h' }), object: 'ClusterSPIFFEID/db', changed: ['hint', 'selectors'], old: { hint: '', selectors: [] } }],
      delete: [{ ...entry({ id: 'rec-4' }), reason: 'undeclared', podUID: 'u1' }],
      conflicts: [],
      renderFailures: [],
      federationOmissions: [],
      unknownNamespaces: [],
      kept: [],
      status: { clusterSPIFFEIDs: {}, clusterStaticEntries: { s: { rendered: true, masked: false, set: false } } },
      notes: [],
      summary: { create: 0, update: 1, delete: 1, kept: 0, conflicts: 0, renderFailures: 0 },
    } as unknown as PlanReport;
    expect(renderReport('plan', planView(report, undefined, 'Source'))).toBe(
      [
        'Source',
        '',
        'Create (0)',
        '',
        'Update (1)',
        '  ~ rec-3  spiffe://td/ns/a/sa/b  [ClusterSPIFFEID/db]',
        '      hint:  -> h',
        '      selectors: [] -> k8s:ns:a, k8s:sa:b',
        '',
        'Delete (1)',
        '  - rec-4  spiffe://td/ns/a/sa/b  parent=spiffe://td/agent/n1  selectors=k8s:ns:a,k8s:sa:b  (undeclared) [pod UID u1]',
        '',
        'ClusterStaticEntry status',
        '  NAME  RENDERED  MASKED  SET',
        '  s     true      false   false',
        '',
        'Plan: 0 to create, 1 to update, 1 to delete, 0 kept, 0 conflicts',
      ].join('\n'),
    );
  });
});

const pod: PodView = {
  pod: 'a/p1',
  uid: 'u1',
  node: 'n1',
  phase: 'Running',
  terminating: '2026-01-01T00:00:00Z',
  namespace: { name: 'a', found: true, labels: 'team=x' },
  source: 'Manifests in ./m (1 file)',
  clusterSPIFFEIDs: { header: ['CLUSTERSPIFFEID', 'RESULT'], rows: [['web', 'entry spiffe://td/x: registered as rec-1'], ['a-longer-name', 'podSelector {app=db} does not match']] },
  missingFederation: [{ object: 'ClusterSPIFFEID/web', missing: ['other.td', 'z.td'] }],
  registrations: [{ object: 'ClusterSPIFFEID/web', id: 'rec-1', detail: 'created 2026-01-01T00:00:03Z, 1 s after the pod was scheduled (2026-01-01T00:00:02Z)' }],
  otherEntries: [{ id: 'rec-20', spiffeID: 'spiffe://td/old', fate: 'to be deleted (undeclared)' }],
  summary: 'a/p1 is registered: its entry is on the server as declared.',
};

describe('explain-pod.hbs', () => {
  it('renders the pod, its namespace, one row per ClusterSPIFFEID, when its entries were created, its other entries and the verdict', () => {
    expect(renderReport('explain-pod', pod)).toBe(
      [
        'Pod a/p1  uid u1  node n1  phase Running  terminating (due by 2026-01-01T00:00:00Z)',
        'Namespace a  labels team=x',
        'Manifests in ./m (1 file)',
        '',
        'CLUSTERSPIFFEID  RESULT',
        'web              entry spiffe://td/x: registered as rec-1',
        'a-longer-name    podSelector {app=db} does not match',
        '  ! ClusterSPIFFEID/web: set without federatesWith other.td, z.td until SPIRE has a bundle for it',
        '',
        "When its entries were created (SPIRE's created_at, the pod's and objects' timestamps: whole seconds, each server's clock)",
        '  ClusterSPIFFEID/web  rec-1: created 2026-01-01T00:00:03Z, 1 s after the pod was scheduled (2026-01-01T00:00:02Z)',
        '',
        'Other entries of this pod on the server (1)',
        '  rec-20  spiffe://td/old: to be deleted (undeclared)',
        '',
        'a/p1 is registered: its entry is on the server as declared.',
      ].join('\n'),
    );
  });

  it('says when no ClusterSPIFFEID was read and the namespace was not', () => {
    const x = podView(
      { pod: 'b/q', uid: 'u2', namespace: { name: 'b', found: false }, registered: false, summary: 'b/q is not registered: there is no ClusterSPIFFEID.', clusterSPIFFEIDs: [], otherEntries: [] },
      'Source',
    );
    expect(renderReport('explain-pod', x)).toBe(
      ['Pod b/q  uid u2  node (none)  phase (unknown)', 'Namespace b  (not read)', 'Source', '', 'No ClusterSPIFFEID was read.', '', 'b/q is not registered: there is no ClusterSPIFFEID.'].join('\n'),
    );
  });
});

const list = (items: string[], more = 0) => ({ total: items.length + more, shown: items, more });
const object: ObjectView = {
  object: 'ClusterSPIFFEID/web',
  className: '"spire"',
  fallback: true,
  source: 'Source',
  ours: true,
  status: { namespacesSelected: 1, namespacesIgnored: 0, podsSelected: 2, podEntryRenderFailures: 1, entriesToSet: 1, entriesMasked: 0, entryFailures: 3, entriesWithoutFederation: 0 },
  invalid: null,
  namespaceSelector: '{team=x}',
  podSelector: '(empty: selects everything)',
  namespaces: { selected: 12, ignored: 1, notSelected: 4, list: list(['ns0', 'ns1 (ignored: pattern "ns1")'], 10) },
  pods: {
    selected: 3,
    notSelected: 2,
    withEntry: 1,
    renderFailures: list(['ns0/p: bad']),
    unscheduled: list(['ns0/u']),
    finished: list([]),
    fallbackSuppressed: list(['ns0/s']),
  },
  entries: list(['ns0/a  spiffe://td/a: registered as rec-1']),
  summary: 'ClusterSPIFFEID/web: 1 of 3 selected pods get an entry, 1 registered.',
};

describe('explain-clusterspiffeid.hbs', () => {
  it('renders the status, namespaces, pods and entries, each list cut with a count of the rest', () => {
    expect(renderReport('explain-clusterspiffeid', object)).toBe(
      [
        'ClusterSPIFFEID/web  className "spire"  fallback',
        'Source',
        '',
        'Status  1 namespace selected (0 ignored), 2 pods selected, 1 render failure, 1 entry to set, 0 masked, 3 entry failures',
        'Namespaces  namespaceSelector {team=x}: 12 selected (1 ignored by ignoreNamespaces), 4 not selected',
        '  selected:',
        '    ns0',
        '    ns1 (ignored: pattern "ns1")',
        '    ... and 10 more (--output json lists all)',
        'Pods  podSelector (empty: selects everything): 3 selected, 2 not selected; 1 with an entry',
        '  render failures (1):',
        '    ns0/p: bad',
        '  not scheduled yet (1):',
        '    ns0/u',
        '  given an entry by another ClusterSPIFFEID, so not by this fallback (1):',
        '    ns0/s',
        'Entries (1)',
        '    ns0/a  spiffe://td/a: registered as rec-1',
        '',
        'ClusterSPIFFEID/web: 1 of 3 selected pods get an entry, 1 registered.',
      ].join('\n'),
    );
  });

  it('shows only the verdict for an invalid object or one of another class', () => {
    expect(renderReport('explain-clusterspiffeid', { ...object, status: null, invalid: 'spec.x: bad', summary: 'invalid.' })).toBe(['ClusterSPIFFEID/web  className "spire"  fallback', 'Source', '', '', 'invalid.'].join('\n'));
    expect(renderReport('explain-clusterspiffeid', { ...object, ours: false, summary: 'not read.' })).toBe(['ClusterSPIFFEID/web  className "spire"  fallback', 'Source', '', 'not read.'].join('\n'));
  });

  it('cuts a list at 10 items', () => {
    const x = objectView(
      {
        object: 'ClusterSPIFFEID/many',
        className: '',
        ours: true,
        fallback: false,
        namespaceSelector: '(empty: selects everything)',
        podSelector: '(empty: selects everything)',
        namespaces: { selected: Array.from({ length: 11 }, (_, i) => `ns${i}`), ignored: [], notSelected: 0 },
        pods: { selected: 0, notSelected: 0, withEntry: 0, renderFailures: [], unscheduled: [], finished: [], fallbackSuppressed: [] },
        entries: [],
        spire: { registered: 0, outdated: 0, waiting: 0, conflict: 0, masked: 0, kept: 0 },
        summary: 'ClusterSPIFFEID/many: 0 of 0 selected pods get an entry.',
      },
      'Source',
    );
    const lines = renderReport('explain-clusterspiffeid', x).split('\n');
    expect(lines[0]).toBe('ClusterSPIFFEID/many  className (none)');
    expect(lines.filter((l) => /^ {4}ns\d+$/.test(l))).toHaveLength(10);
    expect(lines).toContain('    ... and 1 more (--output json lists all)');
  });
});

describe('strict rendering', () => {
  it('fails, naming the template and the field, when the view lacks a field a line prints', () => {
    const { uid: _uid, ...noUid } = pod;
    expect(() => renderReport('explain-pod', noUid)).toThrow(/^report template explain-pod\.hbs: "uid" not defined/);
  });

  it('fails when the view lacks a field a block helper tests, which Handlebars alone would treat as false', () => {
    const { terminating: _t, ...noTerminating } = pod;
    expect(() => renderReport('explain-pod', noTerminating)).toThrow(/^report template explain-pod\.hbs: \{\{#if\}\} names a field the view does not have - 5:\d+$/);
  });

  it('prints terminal text as it is, without HTML escapes', () => {
    expect(renderReport('explain-pod', { ...pod, summary: `a/p1 <is> "registered" & 'fine'` }).split('\n').at(-1)).toBe(`a/p1 <is> "registered" & 'fine'`);
  });
});

describe('helpers', () => {
  it('aligns columns two spaces apart, without trailing spaces', () => {
    expect(alignColumns(['A', 'LONG HEADER'], [['wide cell', ''], ['b', 'c']])).toEqual(['A          LONG HEADER', 'wide cell', 'b          c']);
  });

  it('counts with a singular or a plural', () => {
    expect([plural(1, 'pod'), plural(0, 'pod'), plural(2, 'entry', 'entries'), plural(1, 'entry', 'entries')]).toEqual(['1 pod', '0 pods', '2 entries', '1 entry']);
  });
});

describe('the template folder', () => {
  const files = readdirSync(TEMPLATE_DIR);
  const read = (file: string) => readFileSync(new URL(file, TEMPLATE_DIR), 'utf8');
  const reports = files.filter((f) => f.endsWith('.hbs') && !f.startsWith('_')).map((f) => f.slice(0, -'.hbs'.length));
  const partials = files.filter((f) => f.startsWith('_') && f.endsWith('.hbs')).map((f) => f.slice(1, -'.hbs'.length));

  it('holds templates only', () => {
    expect(files.filter((f) => !f.endsWith('.hbs'))).toEqual([]);
  });

  it('holds exactly the reports the code names, and each is rendered by a command', () => {
    expect(reports.sort()).toEqual([...REPORT_TEMPLATES].sort());
    const cliDir = new URL('../../src/cli/', import.meta.url);
    const code = readdirSync(cliDir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => readFileSync(new URL(f, cliDir), 'utf8'))
      .join('\n');
    for (const name of REPORT_TEMPLATES) expect(code, `renderReport('${name}', ...) in src/cli/`).toContain(`renderReport('${name}',`);
  });

  it('includes every partial in some other template', () => {
    expect(partials.length).toBeGreaterThan(0);
    for (const name of partials) {
      const users = files.filter((f) => f !== `_${name}.hbs` && new RegExp(`\\{\\{~?> ${name}[\\s}]`).test(read(f)));
      expect(users, `{{> ${name}}} in src/cli/templates/`).not.toEqual([]);
    }
  });
});
