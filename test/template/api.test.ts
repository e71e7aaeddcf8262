import { describe, expect, it } from 'vitest';
import { TemplateExecError, TemplateParseError, compileTemplate } from '../../src/template/index.js';
import { parentIdData, podData } from './fixtures.js';

describe('compiled templates are cached per source string', () => {
  it('returns the same compiled object for the same string', () => {
    const source = 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}';
    const first = compileTemplate(source);
    expect(compileTemplate(source)).toBe(first);
    expect(compileTemplate(`${source} `)).not.toBe(first);
    expect(first.source).toBe(source);
  });

  it('keeps rejecting a template that does not parse, with the same message', () => {
    const source = '{{ lower .PodMeta.Name }}';
    const messages = [0, 1].map(() => {
      try {
        compileTemplate(source);
      } catch (err) {
        expect(err).toBeInstanceOf(TemplateParseError);
        return (err as Error).message;
      }
      return 'no error';
    });
    expect(messages).toEqual(['template: 1:3: function "lower" not defined', 'template: 1:3: function "lower" not defined']);
  });

  it('renders one compiled template for many pods without carrying state between renders', () => {
    const template = compileTemplate('{{ $ns := .PodMeta.Namespace }}{{ if and .PodMeta.Labels (index .PodMeta.Labels "app") }}{{ $ns }}/{{ .PodMeta.Labels.app }}{{ else }}{{ $ns }}/-{{ end }}');
    const outputs = ['a', 'b', 'c'].map((ns, i) =>
      template.render(podData({ PodMeta: { namespace: ns, labels: i === 1 ? {} : { app: `app-${ns}` } } })),
    );
    expect(outputs).toEqual(['a/app-a', 'b/-', 'c/app-c']);
  });
});

describe('label keys are data, never paths', () => {
  it('reads a dotted, slashed label key as one key', () => {
    const template = compileTemplate('{{ index .PodMeta.Labels "app.kubernetes.io/name" }}.{{ .PodMeta.Labels.app }}');
    expect(template.render(podData())).toBe('checkout-api.checkout');
  });

  it('renders an empty template as the empty string', () => {
    expect(compileTemplate('').render(podData())).toBe('');
  });
});

describe('render errors are TemplateExecError, other failures never escape as anything else', () => {
  it('raises TemplateExecError for the default parent ID template when the node is missing', () => {
    const template = compileTemplate('spiffe://{{ .TrustDomain }}/spire/agent/k8s_psat/{{ .ClusterName }}/{{ .NodeMeta.UID }}');
    expect(() => template.render(parentIdData({ NodeMeta: null }))).toThrow(TemplateExecError);
    expect(() => template.render(parentIdData({ NodeMeta: null }))).toThrow('nil pointer evaluating *v1.ObjectMeta.UID');
  });
});
