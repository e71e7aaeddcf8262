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

// Each simple template beside one Go evaluates the same way but that the executor's plain-string path
// (exec.ts, plainPrint) does not take (`print` of one string prints it as it is), so only the general evaluation runs it.
const PAIRS: [string, string][] = [
  ['spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}', 'spiffe://{{ print .TrustDomain }}/ns/{{ print .PodMeta.Namespace }}/sa/{{ print .PodSpec.ServiceAccountName }}'],
  ['{{ index .PodMeta.Labels "app.kubernetes.io/name" }}.{{ .PodMeta.Namespace }}.svc', '{{ print (index .PodMeta.Labels "app.kubernetes.io/name") }}.{{ print .PodMeta.Namespace }}.svc'],
  ['k8s:pod-uid:{{ .PodMeta.UID }}', 'k8s:pod-uid:{{ print .PodMeta.UID }}'],
  ['{{- .PodSpec.NodeName -}} / {{ .ClusterName }}', '{{- print .PodSpec.NodeName -}} / {{ print .ClusterName }}'],
  ['{{ .NodeMeta.Name }}', '{{ print .NodeMeta.Name }}'],
  ['{{ index .PodMeta.Annotations "quirky" }}', '{{ print (index .PodMeta.Annotations "quirky") }}'],
  ['{{ with $ }}{{ .PodMeta.Namespace }}{{ end }}', '{{ with $ }}{{ print .PodMeta.Namespace }}{{ end }}'],
  ['{{ with .PodMeta }}{{ .Namespace }}{{ end }}', '{{ with .PodMeta }}{{ print .Namespace }}{{ end }}'],
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

describe('simple templates render the same on the plain-string path as through the general evaluation', () => {
  for (const [label, data] of VARIANTS) {
    it.each(PAIRS)(`${label}: %s`, (plain, general) => {
      expect(outcome(plain, data)).toBe(outcome(general, data));
    });
  }
});

describe('the plain-string path counts output against the render budget as the general evaluation does', () => {
  // 300,000 characters: three prints stay under the 1 MiB budget, four do not; index's result counts once more.
  const big = 'x'.repeat(300_000);
  const data = podData({ PodMeta: { ...POD_META, name: big, annotations: { big } } });
  it.each([
    [3, '{{ .PodMeta.Name }}', '{{ $.PodMeta.Name }}', 'ok'],
    [4, '{{ .PodMeta.Name }}', '{{ $.PodMeta.Name }}', 'error'],
    [1, '{{ index .PodMeta.Annotations "big" }}', '{{ index $.PodMeta.Annotations "big" }}', 'ok'],
    [2, '{{ index .PodMeta.Annotations "big" }}', '{{ index $.PodMeta.Annotations "big" }}', 'error'],
  ])('%i × %s', (times, plain, general, result) => {
    const got = outcome(plain.repeat(times), data);
    expect(got.slice(0, result.length)).toBe(result);
    expect(got).toBe(outcome(general.repeat(times), data));
  });
});
