import { describe, expect, it } from 'vitest';
import { TemplateExecError } from '../../src/template/index.js';
import { POD_META, POD_SPEC, parentIdData, podData, render, renderError } from './fixtures.js';

function reasonOf(template: string, data = podData()): string {
  const err = renderError(template, data);
  expect(err).toBeInstanceOf(TemplateExecError);
  return (err as TemplateExecError).reason;
}

describe('Go field names reach the Kubernetes JSON keys', () => {
  it.each([
    ['{{ .PodMeta.UID }}', '7f3c9a2e-1b4d-4c8e-9f2a-5d6e7f8a9b0c'],
    ['{{ .PodMeta.Namespace }}', 'payments'],
    ['{{ .PodMeta.GenerateName }}', 'checkout-6d4cf56db6-'],
    ['{{ .PodMeta.ResourceVersion }}', '48213'],
    ['{{ .PodSpec.ServiceAccountName }}', 'checkout-sa'],
    ['{{ .PodSpec.DeprecatedServiceAccount }}', 'checkout-sa-legacy'],
    ['{{ .PodSpec.NodeName }}', 'ip-10-0-1-23.eu-west-1.compute.internal'],
    ['{{ .PodSpec.DNSPolicy }}', 'ClusterFirst'],
    ['{{ .PodSpec.RestartPolicy }}', 'Always'],
    ['{{ .PodSpec.TerminationGracePeriodSeconds }}', '30'],
    ['{{ .PodSpec.Priority }}', '0'],
    ['{{ .PodSpec.Hostname }}.{{ .PodSpec.Subdomain }}', 'checkout-0.checkout-headless'],
    ['{{ .NodeSpec.PodCIDR }}', '10.244.3.0/24'],
    ['{{ .NodeSpec.ProviderID }}', 'aws:///eu-west-1a/i-0abc123def4567890'],
    ['{{ .NodeMeta.Name }}', 'ip-10-0-1-23.eu-west-1.compute.internal'],
    ['{{ (index .PodMeta.OwnerReferences 0).Kind }}/{{ (index .PodMeta.OwnerReferences 0).APIVersion }}', 'ReplicaSet/apps/v1'],
    ['{{ (index .PodMeta.OwnerReferences 0).UID }}', '0c1d2e3f-4a5b-6c7d-8e9f-a0b1c2d3e4f5'],
    ['{{ (index .PodMeta.OwnerReferences 0).Controller }}', 'true'],
    ['{{ (index .PodSpec.Containers 0).Image }}', 'registry.example.com/payments/checkout:1.4.2'],
    ['{{ (index (index .PodSpec.Containers 0).Ports 0).ContainerPort }}', '8443'],
    ['{{ (index .PodSpec.Tolerations 0).TolerationSeconds }}', '300'],
    ['{{ (index .NodeSpec.Taints 0).Effect }}', 'NoSchedule'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it('calls the metav1.Object getters of ObjectMeta', () => {
    expect(render('{{ .PodMeta.GetName }}/{{ .PodMeta.GetNamespace }}/{{ .PodMeta.GetLabels.app }}')).toBe(
      'checkout-6d4cf56db6-x8k2p/payments/checkout',
    );
  });

  // Each field set under the JSON key the Kubernetes API uses makes `if` true; an empty object makes it false.
  const OBJECT_META_FIELDS: [string, string, unknown][] = [
    ['Name', 'name', 'x'],
    ['GenerateName', 'generateName', 'x-'],
    ['Namespace', 'namespace', 'ns'],
    ['SelfLink', 'selfLink', '/api/v1/x'],
    ['UID', 'uid', 'u-1'],
    ['ResourceVersion', 'resourceVersion', '7'],
    ['Generation', 'generation', 3],
    ['DeletionTimestamp', 'deletionTimestamp', '2024-05-14T09:26:53Z'],
    ['DeletionGracePeriodSeconds', 'deletionGracePeriodSeconds', 30],
    ['Labels', 'labels', { a: 'b' }],
    ['Annotations', 'annotations', { a: 'b' }],
    ['OwnerReferences', 'ownerReferences', [{ kind: 'ReplicaSet' }]],
    ['Finalizers', 'finalizers', ['example.com/f']],
    ['ManagedFields', 'managedFields', [{ manager: 'kubectl' }]],
  ];
  const POD_SPEC_FIELDS: [string, string, unknown][] = [
    ['Volumes', 'volumes', [{ name: 'data' }]],
    ['InitContainers', 'initContainers', [{ name: 'init' }]],
    ['Containers', 'containers', [{ name: 'app' }]],
    ['EphemeralContainers', 'ephemeralContainers', [{ name: 'debug' }]],
    ['RestartPolicy', 'restartPolicy', 'Never'],
    ['TerminationGracePeriodSeconds', 'terminationGracePeriodSeconds', 0],
    ['ActiveDeadlineSeconds', 'activeDeadlineSeconds', 60],
    ['DNSPolicy', 'dnsPolicy', 'Default'],
    ['NodeSelector', 'nodeSelector', { disktype: 'ssd' }],
    ['ServiceAccountName', 'serviceAccountName', 'sa'],
    ['DeprecatedServiceAccount', 'serviceAccount', 'sa'],
    ['AutomountServiceAccountToken', 'automountServiceAccountToken', false],
    ['NodeName', 'nodeName', 'n1'],
    ['HostNetwork', 'hostNetwork', true],
    ['HostPID', 'hostPID', true],
    ['HostIPC', 'hostIPC', true],
    ['ShareProcessNamespace', 'shareProcessNamespace', false],
    ['SecurityContext', 'securityContext', {}],
    ['ImagePullSecrets', 'imagePullSecrets', [{ name: 'regcred' }]],
    ['Hostname', 'hostname', 'h'],
    ['Subdomain', 'subdomain', 's'],
    ['Affinity', 'affinity', {}],
    ['SchedulerName', 'schedulerName', 'default-scheduler'],
    ['Tolerations', 'tolerations', [{ key: 'k' }]],
    ['HostAliases', 'hostAliases', [{ ip: '10.0.0.1' }]],
    ['PriorityClassName', 'priorityClassName', 'high'],
    ['Priority', 'priority', 0],
    ['DNSConfig', 'dnsConfig', {}],
    ['ReadinessGates', 'readinessGates', [{ conditionType: 'x' }]],
    ['RuntimeClassName', 'runtimeClassName', 'gvisor'],
    ['EnableServiceLinks', 'enableServiceLinks', false],
    ['PreemptionPolicy', 'preemptionPolicy', 'Never'],
    ['Overhead', 'overhead', { cpu: '250m' }],
    ['TopologySpreadConstraints', 'topologySpreadConstraints', [{ maxSkew: 1 }]],
    ['SetHostnameAsFQDN', 'setHostnameAsFQDN', false],
    ['OS', 'os', { name: 'linux' }],
    ['HostUsers', 'hostUsers', false],
    ['SchedulingGates', 'schedulingGates', [{ name: 'g' }]],
    ['ResourceClaims', 'resourceClaims', [{ name: 'gpu' }]],
    ['Resources', 'resources', {}],
    ['HostnameOverride', 'hostnameOverride', 'h'],
  ];
  const NODE_SPEC_FIELDS: [string, string, unknown][] = [
    ['PodCIDR', 'podCIDR', '10.0.0.0/24'],
    ['PodCIDRs', 'podCIDRs', ['10.0.0.0/24']],
    ['ProviderID', 'providerID', 'gce://p/z/n'],
    ['Unschedulable', 'unschedulable', true],
    ['Taints', 'taints', [{ key: 'k' }]],
    ['ConfigSource', 'configSource', {}],
    ['DoNotUseExternalID', 'externalID', 'ext-1'],
  ];

  it.each(OBJECT_META_FIELDS)('ObjectMeta.%s reads JSON key %s', (goName, jsonKey, value) => {
    const template = `{{ if .PodMeta.${goName} }}set{{ else }}unset{{ end }}`;
    expect(render(template, podData({ PodMeta: { [jsonKey]: value } }))).toBe('set');
    expect(render(template, podData({ PodMeta: {} }))).toBe('unset');
  });

  it.each(POD_SPEC_FIELDS)('PodSpec.%s reads JSON key %s', (goName, jsonKey, value) => {
    const template = `{{ if .PodSpec.${goName} }}set{{ else }}unset{{ end }}`;
    expect(render(template, podData({ PodSpec: { [jsonKey]: value } }))).toBe('set');
    expect(render(template, podData({ PodSpec: {} }))).toBe('unset');
  });

  it.each(NODE_SPEC_FIELDS)('NodeSpec.%s reads JSON key %s', (goName, jsonKey, value) => {
    const template = `{{ if .NodeSpec.${goName} }}set{{ else }}unset{{ end }}`;
    expect(render(template, podData({ NodeSpec: { [jsonKey]: value } }))).toBe('set');
    expect(render(template, podData({ NodeSpec: {} }))).toBe('unset');
  });

  it('reads ObjectMeta.CreationTimestamp from creationTimestamp', () => {
    expect(render('{{ .PodMeta.CreationTimestamp }}', podData({ PodMeta: { creationTimestamp: '2023-11-30T23:59:58Z' } }))).toBe(
      '2023-11-30 23:59:58 +0000 UTC',
    );
  });

  it('does not accept the JSON spelling of a field', () => {
    expect(reasonOf('{{ .PodMeta.namespace }}')).toBe("can't evaluate field namespace in type *v1.ObjectMeta");
    expect(reasonOf('{{ .PodSpec.serviceAccountName }}')).toBe("can't evaluate field serviceAccountName in type *v1.PodSpec");
  });

});

describe('map keys are looked up exactly, never renamed', () => {
  it('reads a capitalised label key as written', () => {
    expect(render('{{ .PodMeta.Labels.Tier }}')).toBe('frontend');
    expect(render('{{ .PodMeta.Labels.tier }}')).toBe('<no value>');
  });

  it('does not apply the Go-to-JSON rule inside NodeSelector', () => {
    const data = podData({ PodSpec: { nodeSelector: { UID: 'kept', uid: 'lower' } } });
    expect(render('{{ .PodSpec.NodeSelector.UID }}|{{ .PodSpec.NodeSelector.uid }}', data)).toBe('kept|lower');
  });

  it('finds keys that are JavaScript object property names only as real keys', () => {
    expect(render('{{ .PodMeta.Labels.constructor }}|{{ index .PodMeta.Labels "toString" }}|')).toBe('<no value>||');
  });
});

describe('zero values print as Go prints them', () => {
  const empty = podData({ PodMeta: {}, PodSpec: {}, NodeSpec: {} });
  it.each([
    ['absent string', '{{ .PodMeta.Name }}', ''],
    ['absent int64', '{{ .PodMeta.Generation }}', '0'],
    ['absent bool', '{{ .PodSpec.HostNetwork }}', 'false'],
    ['absent bool (node)', '{{ .NodeSpec.Unschedulable }}', 'false'],
    ['nil map', '{{ .PodMeta.Labels }}', 'map[]'],
    ['nil slice of strings', '{{ .PodMeta.Finalizers }}', '[]'],
    ['nil slice of structs', '{{ .PodSpec.Containers }}', '[]'],
    ['nil *int64', '{{ .PodSpec.TerminationGracePeriodSeconds }}', '<nil>'],
    ['nil *Time', '{{ .PodMeta.DeletionTimestamp }}', '<nil>'],
    ['zero metav1.Time', '{{ .PodMeta.CreationTimestamp }}', '0001-01-01 00:00:00 +0000 UTC'],
  ])('%s: %s renders %j', (_, template, expected) => {
    expect(render(template, empty)).toBe(expected);
  });

  it('treats JSON null like an absent value', () => {
    const data = podData({ PodMeta: { name: null, labels: null, finalizers: null } });
    expect(render('[{{ .PodMeta.Name }}] {{ .PodMeta.Labels }} {{ .PodMeta.Finalizers }}', data)).toBe('[] map[] []');
  });
});

describe('set values print as Go prints them', () => {
  it.each([
    ['a map, keys sorted bytewise', { labels: { b: '2', a: '1', 'app.kubernetes.io/name': 'x', Z: 'z' } }, '{{ .PodMeta.Labels }}', 'map[Z:z a:1 app.kubernetes.io/name:x b:2]'],
    ['a slice', { finalizers: ['kubernetes.io/pv-protection', 'example.com/x'] }, '{{ .PodMeta.Finalizers }}', '[kubernetes.io/pv-protection example.com/x]'],
    ['an int64', { generation: 42 }, '{{ .PodMeta.Generation }}', '42'],
    ['a *int64', { deletionGracePeriodSeconds: 15 }, '{{ .PodMeta.DeletionGracePeriodSeconds }}', '15'],
    ['a time with fractional seconds', { creationTimestamp: '2024-05-14T09:26:53.250Z' }, '{{ .PodMeta.CreationTimestamp }}', '2024-05-14 09:26:53.25 +0000 UTC'],
    ['a time given with an offset, shown in UTC', { creationTimestamp: '2024-05-14T11:26:53+02:00' }, '{{ .PodMeta.CreationTimestamp }}', '2024-05-14 09:26:53 +0000 UTC'],
    ['a *Time', { deletionTimestamp: '2024-05-14T09:30:00Z' }, '{{ .PodMeta.DeletionTimestamp }}', '2024-05-14 09:30:00 +0000 UTC'],
  ])('%s', (_, meta, template, expected) => {
    expect(render(template, podData({ PodMeta: meta }))).toBe(expected);
  });

  it('prints a slice field of the node spec', () => {
    expect(render('{{ .NodeSpec.PodCIDRs }}')).toBe('[10.244.3.0/24 fd00:10:244:3::/64]');
  });

  it("prints nil for a nil *ObjectMeta or *PodSpec, as their generated String() methods do", () => {
    expect(render('{{ .PodMeta }}|{{ .PodSpec }}', parentIdData())).toBe('nil|nil');
  });
});

describe('missing map keys: <no value> through field syntax, "" through index', () => {
  it.each([
    ['{{ .PodMeta.Labels.nope }}', '<no value>'],
    ['{{ index .PodMeta.Labels "nope" }}', ''],
    ['{{ .PodMeta.Labels.nope.deeper }}', '<no value>'],
    ['{{ index .PodSpec.NodeSelector "disktype" }}', ''],
    ['{{ .PodSpec.NodeSelector.disktype }}', '<no value>'],
    ['{{ printf "%q" (index .PodMeta.Labels "nope") }}', '""'],
    ['{{ if .PodMeta.Labels.nope }}yes{{ else }}no{{ end }}', 'no'],
    ['{{ with .PodMeta.Labels.nope }}yes{{ else }}no{{ end }}', 'no'],
    ['{{ print .PodMeta.Labels.nope }}', '<nil>'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });
});

describe('nil pointers: printing shows <nil>, reading through them fails', () => {
  it.each([
    ['{{ .PodMeta.Name }}', 'nil pointer evaluating *v1.ObjectMeta.Name'],
    ['{{ .PodSpec.ServiceAccountName }}', 'nil pointer evaluating *v1.PodSpec.ServiceAccountName'],
    ['{{ .PodMeta.Labels.app }}', 'nil pointer evaluating *v1.ObjectMeta.Labels'],
    ['{{ index .PodMeta.Labels "app" }}', 'nil pointer evaluating *v1.ObjectMeta.Labels'],
    ['{{ .PodMeta.Bogus }}', "can't evaluate field Bogus in type *v1.ObjectMeta"],
    ['{{ .PodMeta.GetName }}', 'error calling GetName: runtime error: invalid memory address or nil pointer dereference'],
  ])('%s fails: %s', (template, reason) => {
    expect(reasonOf(template, parentIdData())).toBe(reason);
  });

  it('reports a nil pointer field of a pod as Go does', () => {
    expect(reasonOf('{{ .PodSpec.Affinity.NodeAffinity }}')).toBe('nil pointer evaluating *v1.Affinity.NodeAffinity');
  });
});

describe('unknown struct fields are execution errors naming the field and the type', () => {
  it.each([
    ['{{ .PodMeta.Foo }}', "can't evaluate field Foo in type *v1.ObjectMeta"],
    ['{{ .PodSpec.Foo }}', "can't evaluate field Foo in type *v1.PodSpec"],
    ['{{ .NodeSpec.Foo }}', "can't evaluate field Foo in type *v1.NodeSpec"],
    ['{{ .NodeMeta.Foo }}', "can't evaluate field Foo in type *v1.ObjectMeta"],
    ['{{ .TrustDomain.Foo }}', "can't evaluate field Foo in type string"],
    ['{{ .PodMeta.Labels.app.Foo }}', "can't evaluate field Foo in type string"],
    ['{{ (index .PodSpec.Containers 0).Foo }}', "can't evaluate field Foo in type v1.Container"],
    ['{{ .PodMeta.CreationTimestamp.Foo }}', "can't evaluate field Foo in type v1.Time"],
  ])('%s fails: %s', (template, reason) => {
    expect(reasonOf(template)).toBe(reason);
  });

  it('places the error at the field as Go does (line, byte column of the second segment)', () => {
    const err = renderError('spiffe://x/\n  {{ .PodMeta.Foo }}') as TemplateExecError;
    expect(err.message).toBe("template: 2:13: executing at <.PodMeta.Foo>: can't evaluate field Foo in type *v1.ObjectMeta");
    expect([err.line, err.column, err.context]).toEqual([2, 13, '.PodMeta.Foo']);
  });
});

describe('if, with and not follow Go truth, not JavaScript truth', () => {
  const cases: [string, string, Record<string, unknown>, string][] = [
    ['empty string', '.PodMeta.Name', { name: '' }, 'F'],
    ['non-empty string', '.PodMeta.Name', { name: 'x' }, 'T'],
    ['zero int', '.PodMeta.Generation', { generation: 0 }, 'F'],
    ['non-zero int', '.PodMeta.Generation', { generation: 2 }, 'T'],
    ['nil map', '.PodMeta.Labels', {}, 'F'],
    ['empty map', '.PodMeta.Labels', { labels: {} }, 'F'],
    ['non-empty map', '.PodMeta.Labels', { labels: { a: '' } }, 'T'],
    ['empty slice', '.PodMeta.Finalizers', { finalizers: [] }, 'F'],
    ['non-empty slice', '.PodMeta.Finalizers', { finalizers: ['f'] }, 'T'],
    ['nil pointer', '.PodMeta.DeletionTimestamp', {}, 'F'],
    ['non-nil pointer', '.PodMeta.DeletionTimestamp', { deletionTimestamp: '2024-01-01T00:00:00Z' }, 'T'],
    ['zero struct', '.PodMeta.CreationTimestamp', {}, 'T'],
    ['missing key', '.PodMeta.Labels.nope', { labels: {} }, 'F'],
  ];
  it.each(cases)('%s (%s) is %s', (_, expr, meta, expected) => {
    expect(render(`{{ if ${expr} }}T{{ else }}F{{ end }}`, podData({ PodMeta: meta }))).toBe(expected);
    expect(render(`{{ if not ${expr} }}F{{ else }}T{{ end }}`, podData({ PodMeta: meta }))).toBe(expected);
  });

  it('treats a non-nil pointer to false as true', () => {
    expect(render('{{ if .PodSpec.AutomountServiceAccountToken }}T{{ else }}F{{ end }}', podData({ PodSpec: { automountServiceAccountToken: false } }))).toBe('T');
  });

  it('treats literals as Go does', () => {
    expect(render('{{ if 0 }}T{{ else }}F{{ end }}{{ if "" }}T{{ else }}F{{ end }}{{ if false }}T{{ else }}F{{ end }}{{ if 1.5 }}T{{ else }}F{{ end }}')).toBe('FFFT');
  });

  it('takes the first true branch of an else-if chain', () => {
    const template = '{{ if eq .PodMeta.Namespace "a" }}A{{ else if eq .PodMeta.Namespace "payments" }}P{{ else }}O{{ end }}';
    expect(render(template)).toBe('P');
    expect(render(template, podData({ PodMeta: { namespace: 'z' } }))).toBe('O');
  });

  it('rebinds dot in with, and chains else with', () => {
    expect(render('{{ with .PodMeta.Labels }}{{ .app }}/{{ $.TrustDomain }}{{ end }}')).toBe('checkout/example.org');
    expect(render('{{ with .PodMeta.Labels.nope }}{{ . }}{{ else with .PodMeta.Labels.app }}[{{ . }}]{{ end }}')).toBe('[checkout]');
    expect(render('{{ with .PodSpec.Affinity }}x{{ else }}no affinity{{ end }}')).toBe('no affinity');
  });
});

describe('comparisons follow Go: same basic kind required, eq accepts several operands', () => {
  it.each([
    ['{{ eq .PodMeta.Namespace "payments" }}', 'true'],
    ['{{ eq .PodMeta.Namespace "a" "b" "payments" }}', 'true'],
    ['{{ eq .PodMeta.Namespace "a" "b" }}', 'false'],
    ['{{ ne .PodMeta.Namespace "payments" }}', 'false'],
    ['{{ eq .PodMeta.UID "7f3c9a2e-1b4d-4c8e-9f2a-5d6e7f8a9b0c" }}', 'true'],
    ['{{ lt "abc" "abd" }} {{ le 2 2 }} {{ gt 3 2 }} {{ ge 1 2 }}', 'true true true false'],
    ['{{ lt "Z" "a" }}', 'true'],
    ['{{ eq (len .PodSpec.Containers) 2 }}', 'true'],
    ['{{ eq (index "abc" 0) 97 }}', 'true'],
    ['{{ eq .PodSpec.TerminationGracePeriodSeconds .PodSpec.TerminationGracePeriodSeconds }}', 'true'],
    ['{{ eq .PodMeta.Labels.nope "x" }}', 'false'],
    ['{{ eq .PodMeta.Labels.nope .PodMeta.Labels.other }}', 'true'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it.each([
    ['{{ eq .PodMeta.Namespace 1 }}', 'error calling eq: incompatible types for comparison: string and int'],
    ['{{ eq .PodMeta.Generation 1.0 }}', 'error calling eq: incompatible types for comparison: int64 and float64'],
    ['{{ lt true false }}', 'error calling lt: invalid type for comparison'],
    ['{{ lt .PodMeta.Labels 1 }}', 'error calling lt: invalid type for comparison'],
    ['{{ eq .PodMeta.Labels .PodMeta.Annotations }}', 'error calling eq: non-comparable type map[kubectl.kubernetes.io/restartedAt:2024-05-14T09:26:00Z openshell.ai/sandbox-id:sbx-314 quirky:a=b\'c"<x>&]: map[string]string'],
    ['{{ eq .PodMeta.Namespace }}', 'error calling eq: missing argument for comparison'],
  ])('%s fails: %s', (template, reason) => {
    expect(reasonOf(template)).toBe(reason);
  });
});

describe('and/or return an operand and evaluate only as far as needed, as in Go 1.18+', () => {
  it.each([
    ['{{ and .PodMeta.Labels.app .PodMeta.Namespace }}', 'payments'],
    ['{{ and 1 0 2 }}', '0'],
    ['{{ or .PodMeta.Labels.nope .PodMeta.Labels.app }}', 'checkout'],
    ['{{ or 0 "" }}', ''],
    ['{{ or .PodMeta.Labels.nope "fallback" }}', 'fallback'],
    ['{{ .PodMeta.Labels.nope | or "piped" }}', 'piped'],
    ['{{ .PodMeta.Namespace | and "first" }}', 'payments'],
    ['{{ if and .PodMeta.Labels (index .PodMeta.Labels "app") }}labelled{{ end }}', 'labelled'],
    ['{{ and false (index .PodSpec.Containers 9) }}', 'false'],
    ['{{ or .PodMeta.Name (index .PodSpec.Containers 9) }}', 'checkout-6d4cf56db6-x8k2p'],
    ['{{ or (and .PodMeta.Labels.nope "x") (and .PodMeta.Labels.app "y") }}', 'y'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it('does not evaluate past a nil pointer guard', () => {
    expect(render('{{ if and .PodMeta .PodMeta.Name }}{{ .PodMeta.Name }}{{ else }}no pod{{ end }}', parentIdData())).toBe('no pod');
  });

  it('does evaluate an operand that errors when it is reached', () => {
    expect(reasonOf('{{ and true (index .PodSpec.Containers 9) }}')).toBe('error calling index: index out of range: 9');
  });
});

describe('len and index work on maps, slices and strings', () => {
  it.each([
    ['{{ len .PodMeta.Labels }}', '9'],
    ['{{ len .PodSpec.Containers }}', '2'],
    ['{{ len .PodMeta.Namespace }}', '8'],
    ['{{ len "héllo" }}', '6'],
    ['{{ len .PodSpec.NodeSelector }}', '0'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it.each([
    ['{{ index .PodSpec.Containers 2 }}', 'error calling index: reflect: slice index out of range'],
    ['{{ index .PodSpec.Containers 5 }}', 'error calling index: index out of range: 5'],
    ['{{ index .PodSpec.Containers -1 }}', 'error calling index: index out of range: -1'],
    ['{{ index .PodSpec.Containers "a" }}', 'error calling index: cannot index slice/array with type string'],
    ['{{ index .PodMeta.Labels 1 }}', 'error calling index: value has type int; should be string'],
    ['{{ index .PodMeta.Labels nil }}', 'error calling index: value is nil; should be of type string'],
    ['{{ index .PodSpec.Overhead "cpu" }}', 'error calling index: value has type string; should be v1.ResourceName'],
    ['{{ index .PodSpec.Containers 0 "x" }}', "error calling index: can't index item of type v1.Container"],
    ['{{ index .PodMeta.Labels.nope 0 }}', 'error calling index: index of untyped nil'],
    ['{{ len .PodMeta.Generation }}', 'error calling len: len of type int64'],
    ['{{ len .PodMeta.Labels.nope }}', 'error calling len: reflect: call of reflect.Value.Type on zero Value'],
    ['{{ len .PodSpec.Affinity }}', 'error calling len: len of nil pointer'],
  ])('%s fails: %s', (template, reason) => {
    expect(reasonOf(template)).toBe(reason);
  });

  it('indexes a string by byte, giving a number', () => {
    expect(render('{{ index "abc" 1 }}')).toBe('98');
  });
});

describe('range iterates maps in sorted key order and slices in order, rebinding dot', () => {
  const labels = podData({ PodMeta: { labels: { b: '2', a: '1', c: '3' } } });
  it.each([
    ['{{ range .PodMeta.Labels }}{{ . }},{{ end }}', '1,2,3,'],
    ['{{ range $k, $v := .PodMeta.Labels }}{{ $k }}={{ $v }};{{ end }}', 'a=1;b=2;c=3;'],
    ['{{ range $v := .PodMeta.Labels }}{{ $v }}{{ end }}', '123'],
    ['{{ range .PodMeta.Annotations }}x{{ else }}none{{ end }}', 'none'],
    ['{{ range .PodMeta.Labels.nope }}x{{ else }}missing{{ end }}', 'missing'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template, labels)).toBe(expected);
  });

  it.each([
    ['{{ range $i, $c := .PodSpec.Containers }}{{ $i }}:{{ .Name }} {{ end }}', '0:app 1:envoy '],
    ['{{ range .PodSpec.Containers }}{{ $.PodMeta.Namespace }}/{{ .Name }} {{ end }}', 'payments/app payments/envoy '],
    ['{{ range .PodSpec.InitContainers }}x{{ else }}none{{ end }}', 'none'],
    ['{{ range $e := .PodSpec.InitContainers }}x{{ else }}{{ $e }}{{ end }}', '[]'],
    ['{{ range 3 }}{{ . }}{{ end }}', '012'],
    ['{{ range $i := 2 }}[{{ $i }}]{{ end }}', '[0][1]'],
    ['{{ range 0 }}x{{ else }}zero{{ end }}', 'zero'],
    ['{{ $last := "" }}{{ range .PodSpec.Containers }}{{ $last = .Name }}{{ end }}{{ $last }}', 'envoy'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it.each([
    ['{{ range .PodMeta.Namespace }}{{ end }}', "range can't iterate over payments"],
    ['{{ range $i, $e := 3 }}{{ end }}', "can't use 3 to iterate over more than one variable"],
    ['{{ range .PodSpec.Affinity }}{{ end }}', "range can't iterate over nil"],
  ])('%s fails: %s', (template, reason) => {
    expect(reasonOf(template)).toBe(reason);
  });
});

describe('variables are scoped as in Go', () => {
  it.each([
    ['{{ $ns := .PodMeta.Namespace }}{{ $ns }}/{{ $ns }}', 'payments/payments'],
    ['{{ $x := "outer" }}{{ if true }}{{ $x := "inner" }}{{ $x }}{{ end }}-{{ $x }}', 'inner-outer'],
    ['{{ $x := "a" }}{{ if true }}{{ $x = "b" }}{{ end }}{{ $x }}', 'b'],
    ['{{ $x := "a" }}{{ $x := printf "%s%s" $x $x }}{{ $x }}', 'aa'],
    ['{{ with $app := index .PodMeta.Labels "app" }}{{ $app }}={{ . }}{{ end }}', 'checkout=checkout'],
    ['{{ if $n := .PodMeta.Namespace }}{{ $n }}{{ end }}', 'payments'],
    ['{{ print ($x := "p") $x }}', 'pp'],
    ['{{ $.TrustDomain }}', 'example.org'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it('keeps variables of one render out of the next', () => {
    const template = '{{ $n := .PodMeta.Namespace }}{{ $n }}';
    expect(render(template)).toBe('payments');
    expect(render(template, podData({ PodMeta: { namespace: 'other' } }))).toBe('other');
  });

  it.each([
    ['{{ $x = 1 }}', 'undefined variable: $x'],
    ['{{ if false }}{{ $y := 1 }}{{ else }}{{ $y }}{{ end }}', 'undefined variable: $y'],
    ['{{ range .PodSpec.Containers }}{{ if eq .Name "app" }}{{ $y := 1 }}{{ else }}{{ $y }}{{ end }}{{ end }}', 'undefined variable: $y'],
  ])('%s fails: %s', (template, reason) => {
    expect(reasonOf(template)).toBe(reason);
  });
});

describe('pod data drives the render, not the fixture module', () => {
  it('uses the objects passed to render', () => {
    expect(render('{{ .PodMeta.Name }}', podData({ PodMeta: { ...POD_META, name: 'other' }, PodSpec: POD_SPEC }))).toBe('other');
  });
});
