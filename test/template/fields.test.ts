import { describe, expect, it } from 'vitest';
import { templateFieldMessages } from '../../src/cli/template-fields.js';
import { compileTemplate, TEMPLATE_NAMES, type TemplateData, unknownFields } from '../../src/template/index.js';
import { CORPUS_DATA } from './oracle/data.js';
import { corpus } from './oracle/corpus.js';
import { podData } from './fixtures.js';

/** As validate words them (src/cli/template-fields.ts), from what src/template/fields.ts finds. */
const found = (source: string, name: string = TEMPLATE_NAMES.spiffeID) => templateFieldMessages(source, name);

function renderError(source: string, name: string, data: TemplateData): string | undefined {
  try {
    compileTemplate(source, name).render(data);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('field names a template reads that its data cannot have', () => {
  it.each<[string, string[]]>([
    ['spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Nmespace }}', ['.PodMeta.Nmespace: PodMeta has no field Nmespace (did you mean Namespace?)']],
    ['{{ .Trustdomain }}', ['.Trustdomain: the template data has no field Trustdomain (did you mean TrustDomain?)']],
    ['{{ .PodMeta.namespace }}', ['.PodMeta.namespace: PodMeta has no field namespace (did you mean Namespace?)']],
    ['{{ $.PodSpec.ServiceAcountName }}', ['$.PodSpec.ServiceAcountName: PodSpec has no field ServiceAcountName (did you mean ServiceAccountName?)']],
    ['{{ .NodeSpec.ProviderId }}', ['.NodeSpec.ProviderId: NodeSpec has no field ProviderId (did you mean ProviderID?)']],
    ['{{ .PodSpec.SecurityContext.RunAsUsr }}', ['.PodSpec.SecurityContext.RunAsUsr: SecurityContext has no field RunAsUsr (did you mean RunAsUser?)']],
    ['{{ .PodMeta.GetNme }}', ['.PodMeta.GetNme: PodMeta has no field GetNme (did you mean GetName?)']],
    // Far from every name: no guess.
    ['{{ .PodSpec.Foo }}', ['.PodSpec.Foo: PodSpec has no field Foo']],
    // In a condition, an argument, a pipeline, an `if` branch and `else` branches, where dot is still the data.
    ['{{ if .PodMeta.Lables }}x{{ end }}', ['.PodMeta.Lables: PodMeta has no field Lables (did you mean Labels?)']],
    ['{{ printf "%s" (.PodMeta.Nmae) | len }}', ['.PodMeta.Nmae: PodMeta has no field Nmae (did you mean Name?)']],
    ['{{ with .PodMeta.Labels }}{{ .app }}{{ else }}{{ .PodSpec.NodeNmae }}{{ end }}', ['.PodSpec.NodeNmae: PodSpec has no field NodeNmae (did you mean NodeName?)']],
    // Each chain once.
    ['{{ .PodMeta.Nmespace }}/{{ .PodMeta.Nmespace }}', ['.PodMeta.Nmespace: PodMeta has no field Nmespace (did you mean Namespace?)']],
  ])('%s', (source, expected) => {
    expect(found(source)).toEqual(expected);
  });

  it.each([
    // Map keys, methods (and what follows them), embedded fields and promoted methods.
    '{{ .PodMeta.Labels.app }}{{ index .PodMeta.Labels "app.kubernetes.io/name" }}{{ .PodMeta.Annotations.Anything }}',
    '{{ .PodMeta.GetName }}{{ .PodMeta.CreationTimestamp.Year }}{{ .PodMeta.CreationTimestamp.Time.Unix }}{{ .PodMeta.CreationTimestamp.Format "2006" }}',
    '{{ .PodSpec.DeprecatedServiceAccount }}{{ .PodMeta.UID }}{{ .NodeMeta.UID }}{{ .ClusterName }}{{ .ClusterDomain }}',
    // Dot inside `with` and `range`, variables, parenthesised pipelines and `{{define}}`d trees are not followed.
    '{{ with .PodMeta }}{{ .Nope }}{{ end }}{{ range .PodSpec.Containers }}{{ .Nope }}{{ end }}',
    '{{ $m := .PodMeta }}{{ $m.Nope }}{{ (.PodMeta).Nope }}',
    '{{ define "x" }}{{ .Nope }}{{ end }}{{ template "x" .PodMeta }}',
    // Fields of a slice, a string or an interface are Go's to judge at run time, not here.
    '{{ .PodSpec.Containers.Nope }}{{ .PodMeta.Name.Nope }}',
  ])('%s: nothing', (source) => {
    expect(found(source)).toEqual([]);
  });

  it('the parent ID template, under its name', () => {
    expect(found('spiffe://{{ .TrustDomain }}/spire/agent/k8s_psat/{{ .ClusterName }}/{{ .NodeMeta.UID }}', TEMPLATE_NAMES.parentID)).toEqual([]);
    expect(found('spiffe://{{ .TrustDomain }}/agent/{{ .NodeMeta.Uid }}', TEMPLATE_NAMES.parentID)).toEqual(['.NodeMeta.Uid: NodeMeta has no field Uid (did you mean UID?)']);
  });

  // The differential test's corpora hold every template the repository renders against Go: public
  // manifests and Go's corners. A name reported here must be one Go's evaluation refuses.
  it('reports nothing a render accepts, across the template corpora', () => {
    const entries = [...corpus('real-world.json'), ...corpus('quirks.json')];
    let reported = 0;
    for (const entry of entries) {
      const name = entry.name ?? TEMPLATE_NAMES.spiffeID;
      let problems;
      try {
        problems = unknownFields(entry.template, name);
      } catch {
        continue; // does not parse: the parser's error, not this check's
      }
      for (const p of problems) {
        reported++;
        const errors = CORPUS_DATA.map(([, data]) => renderError(entry.template, name, data));
        expect(errors.some((e) => e?.includes(`can't evaluate field ${p.name}`)), `${entry.template}: ${p.chain}`).toBe(true);
      }
    }
    // The corpora do hold such names (Go's own error for them is among the quirks).
    expect(reported).toBeGreaterThan(0);
  });

  it('what it reports fails the render of a pod, with Go\'s error for the same name', () => {
    const source = 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Nmespace }}';
    expect(found(source)).toHaveLength(1);
    expect(renderError(source, TEMPLATE_NAMES.spiffeID, podData())).toContain("can't evaluate field Nmespace in type *v1.ObjectMeta");
  });
});
