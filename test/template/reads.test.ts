import { describe, expect, it } from 'vitest';
import { compileTemplate, type FieldsRead, OBJECT_ROOTS, type TemplateData } from '../../src/template/index.js';
import { parentIdData, podData } from './fixtures.js';

/** The output, or the error's message: what a cache that kept only `reads` must not change. */
function outcome(source: string, data: TemplateData): string {
  try {
    return `ok: ${compileTemplate(source).render(data)}`;
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

/** The data with each cluster object cut down to the first-level keys the template reads. */
function projected(data: TemplateData, reads: FieldsRead): TemplateData {
  const out: TemplateData = { ...data };
  for (const root of OBJECT_ROOTS) {
    const keys = reads[root];
    const obj = data[root];
    if (keys === 'all' || obj === null) continue;
    out[root] = Object.fromEntries(Object.entries(obj).filter(([k]) => keys.has(k)));
  }
  return out;
}

function summary(reads: FieldsRead): Record<string, string[] | 'all'> {
  return Object.fromEntries(OBJECT_ROOTS.map((r) => [r, reads[r] === 'all' ? 'all' : [...reads[r]].sort()]));
}

describe('the fields a template reads', () => {
  it.each<[string, Partial<Record<string, string[] | 'all'>>]>([
    ['spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}', { PodMeta: ['namespace'], PodSpec: ['serviceAccountName'] }],
    ['{{ index .PodMeta.Labels "app" }}', { PodMeta: ['labels'] }],
    ['{{ .PodMeta.Labels.app }}', { PodMeta: ['labels'] }],
    ['{{ .PodMeta.GetName }}', { PodMeta: ['name'] }],
    ['{{ .PodSpec.DeprecatedServiceAccount }}', { PodSpec: ['serviceAccount'] }],
    ['{{ $.PodMeta.UID }}', { PodMeta: ['uid'] }],
    ['{{ with .PodSpec.Containers }}{{ (index . 0).Image }}{{ end }}', { PodSpec: ['containers'] }],
    ['{{ range $i, $c := .PodSpec.Containers }}{{ $c.Name }}{{ $.NodeMeta.Name }}{{ end }}', { PodSpec: ['containers'], NodeMeta: ['name'] }],
    ['{{ with .PodMeta.Labels }}{{ .app }}{{ else }}{{ .PodSpec.NodeName }}{{ end }}', { PodMeta: ['labels'], PodSpec: ['nodeName'] }],
    ['{{ if .NodeSpec.ProviderID }}{{ printf "%s" (.NodeMeta.Name) }}{{ end }}', { NodeMeta: ['name'], NodeSpec: ['providerID'] }],
    ['{{ $m := .PodMeta.Annotations }}{{ index $m "a" }}', { PodMeta: ['annotations'] }],
    ['{{ .PodMeta.CreationTimestamp.Year }}', { PodMeta: ['creationTimestamp'] }],
    ['{{ printf "%v" .PodSpec }}', { PodSpec: 'all' }],
    ['{{ with .PodMeta }}{{ .Name }}{{ end }}', { PodMeta: 'all' }],
    ['{{ (.NodeSpec).ProviderID }}', { NodeSpec: 'all' }],
    ['{{ .PodMeta.String }}', { PodMeta: 'all' }],
    ['{{ printf "%v" . }}', { PodMeta: 'all', PodSpec: 'all', NodeMeta: 'all', NodeSpec: 'all' }],
    ['{{ with $ }}{{ .PodMeta.Name }}{{ end }}', { PodMeta: 'all', PodSpec: 'all', NodeMeta: 'all', NodeSpec: 'all' }],
    ['plain text {{ .ClusterName }}', {}],
    // A defined tree's dot is what its caller passes, counted at the call.
    ['{{ define "T" }}{{ .Name }}{{ end }}{{ template "T" .PodMeta }}', { PodMeta: 'all' }],
    ['{{ block "B" .PodSpec }}{{ .NodeName }}{{ end }}', { PodSpec: 'all' }],
    ['{{ define "T" }}{{ .Name }}{{ end }}{{ template "T" . }}', { PodMeta: 'all', PodSpec: 'all', NodeMeta: 'all', NodeSpec: 'all' }],
    ['{{ define "T" }}{{ $.NodeMeta.Name }}{{ end }}{{ template "T" }}{{ .PodSpec.NodeName }}', { NodeMeta: ['name'], PodSpec: ['nodeName'] }],
    ['{{ range .PodSpec.Containers }}{{ if .Name }}{{ break }}{{ end }}{{ continue }}{{ end }}', { PodSpec: ['containers'] }],
  ])('%s', (source, expected) => {
    const want = Object.fromEntries(OBJECT_ROOTS.map((r) => [r, expected[r] ?? []]));
    expect(summary(compileTemplate(source).reads)).toEqual(want);
  });
});

// Each renders exactly as before when the objects keep only what it reads: output, or error message.
const TEMPLATES = [
  'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}',
  '{{ index .PodMeta.Labels "app.kubernetes.io/name" }}.{{ .PodMeta.Namespace }}.svc',
  '{{ .PodMeta.Labels.app }}',
  '{{ .PodMeta.GetName }}/{{ .PodMeta.GetUID }}',
  '{{ range .PodSpec.Containers }}{{ .Image }},{{ end }}',
  '{{ range $i, $c := .PodSpec.Containers }}{{ $i }}={{ $c.Name }}@{{ $.NodeMeta.Name }};{{ end }}',
  '{{ with .PodMeta.OwnerReferences }}{{ (index . 0).Kind }}{{ else }}none{{ end }}',
  '{{ with .PodSpec.Hostname }}{{ . }}.{{ $.PodSpec.Subdomain }}{{ end }}',
  '{{ if .PodSpec.HostNetwork }}host{{ else }}{{ .PodSpec.DNSPolicy }}{{ end }}',
  '{{ printf "%v" .PodSpec.Tolerations }}',
  '{{ .PodMeta.CreationTimestamp }}',
  '{{ .PodMeta.DeletionTimestamp }}',
  '{{ len .PodMeta.Annotations }} {{ len .NodeMeta.Labels }}',
  '{{ .PodSpec.Priority }} {{ .PodSpec.TerminationGracePeriodSeconds }}',
  '{{ .PodSpec.NoSuchField }}',
  '{{ .NodeSpec.ProviderID }}/{{ index .NodeSpec.PodCIDRs 1 }}',
  '{{ printf "%v" .PodMeta }}',
  '{{ with .PodMeta }}{{ .Name }}{{ end }}',
  '{{ printf "%v" . }}',
  'spiffe://{{ .TrustDomain }}/spire/agent/k8s_psat/{{ .ClusterName }}/{{ .NodeMeta.UID }}',
  '{{ define "T" }}{{ .Name }}.{{ .Namespace }}{{ end }}{{ template "T" .PodMeta }}',
  '{{ block "B" .PodSpec }}{{ .NodeName }}{{ end }}/{{ .PodMeta.Name }}',
  '{{ define "T" }}{{ index .Labels "app" }}{{ end }}{{ template "T" $.NodeMeta }}',
];

describe('a template renders the same from the fields it reads as from the whole object', () => {
  for (const source of TEMPLATES) {
    it(source, () => {
      const reads = compileTemplate(source).reads;
      for (const data of [podData(), parentIdData()]) {
        expect(outcome(source, projected(data, reads))).toBe(outcome(source, data));
      }
    });
  }
});
