import { describe, expect, it } from 'vitest';
import { compileTemplate, type TemplateData } from '../../src/template/index.js';
import { parentIdData, POD_META, POD_SPEC, podData } from './fixtures.js';

/** The output, or the error's reason (its position and context differ between the twins, which differ in text). */
function outcome(source: string, data: TemplateData): string {
  try {
    return `ok: ${compileTemplate(source).render(data)}`;
  } catch (err) {
    return `error: ${(err as Error).message.replace(/^template: \d+:\d+: executing at <.*?>: /, '')}`;
  }
}

// Each simple template beside one Go evaluates the same way but that the direct renderer does not take
// (`print` of one string prints it as it is), so only the general renderer runs it.
const PAIRS: [string, string][] = [
  ['spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}', 'spiffe://{{ print .TrustDomain }}/ns/{{ print .PodMeta.Namespace }}/sa/{{ print .PodSpec.ServiceAccountName }}'],
  ['{{ index .PodMeta.Labels "app.kubernetes.io/name" }}.{{ .PodMeta.Namespace }}.svc', '{{ print (index .PodMeta.Labels "app.kubernetes.io/name") }}.{{ print .PodMeta.Namespace }}.svc'],
  ['k8s:pod-uid:{{ .PodMeta.UID }}', 'k8s:pod-uid:{{ print .PodMeta.UID }}'],
  ['{{- .PodSpec.NodeName -}} / {{ .ClusterName }}', '{{- print .PodSpec.NodeName -}} / {{ print .ClusterName }}'],
  ['{{ .NodeMeta.Name }}', '{{ print .NodeMeta.Name }}'],
  ['{{ index .PodMeta.Annotations "quirky" }}', '{{ print (index .PodMeta.Annotations "quirky") }}'],
];

const VARIANTS: [string, TemplateData][] = [
  ['a pod as the API server returns it', podData()],
  ['no labels at all', podData({ PodMeta: { ...POD_META, labels: undefined } })],
  ['the label missing', podData({ PodMeta: { ...POD_META, labels: { app: 'x' } } })],
  ['a label value that is not a string', podData({ PodMeta: { ...POD_META, labels: { 'app.kubernetes.io/name': 7 } } })],
  ['labels set to null', podData({ PodMeta: { ...POD_META, labels: null } })],
  ['an empty namespace', podData({ PodMeta: { ...POD_META, namespace: '' } })],
  ['the namespace absent', podData({ PodMeta: { ...POD_META, namespace: undefined } })],
  ['the service account absent', podData({ PodSpec: { ...POD_SPEC, serviceAccountName: undefined } })],
  ['the pod spec nil', podData({ PodSpec: null })],
  ['a parent ID (pod nil)', parentIdData()],
  ['the namespace not a string', podData({ PodMeta: { ...POD_META, namespace: 42 } })],
  ['a label map inherited, not own', podData({ PodMeta: { ...POD_META, labels: Object.create({ 'app.kubernetes.io/name': 'inherited' }) as Record<string, string> } })],
];

describe('simple templates render the same whether or not Handlebars runs them', () => {
  it.each(PAIRS)('%s takes the direct path; its twin does not', (direct, general) => {
    expect(compileTemplate(direct).isDirect).toBe(true);
    expect(compileTemplate(general).isDirect).toBe(false);
  });

  for (const [label, data] of VARIANTS) {
    it.each(PAIRS)(`${label}: %s`, (direct, general) => {
      expect(outcome(direct, data)).toBe(outcome(general, data));
    });
  }
});

describe('templates that need Go semantics beyond strings are not rendered directly', () => {
  it.each([
    '{{ .PodMeta.Labels }}',
    '{{ .PodSpec.Priority }}',
    '{{ .PodMeta.GetName }}',
    '{{ .PodMeta.CreationTimestamp }}',
    '{{ if .PodMeta.Name }}x{{ end }}',
    '{{ printf "%s" .PodMeta.Name }}',
    '{{ $n := .PodMeta.Name }}{{ $n }}',
    '{{ .PodMeta.Labels.app }}',
    '{{ index .PodSpec.Containers 0 }}',
    '{{ .PodMeta.Name | print }}',
  ])('%s', (source) => {
    expect(compileTemplate(source).isDirect).toBe(false);
  });
});
