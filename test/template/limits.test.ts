/**
 * No template can cost more than a bounded amount of heap or time: one over
 * the size limits is refused before it is parsed (a 950 KB template of 50,000
 * actions used to exhaust a 192 MiB heap while compiling), and a render that
 * loops or grows without end stops with an error at its place.
 */
import { describe, expect, it } from 'vitest';
import type { ClusterSPIFFEID } from '../../src/api/index.js';
import { parseClusterSPIFFEID } from '../../src/entries/index.js';
import { MAX_OBJECT_ACTIONS, MAX_OBJECT_TEMPLATES } from '../../src/entries/template-checks.js';
import {
  compileTemplate,
  MAX_RENDER_CHARS,
  MAX_RENDER_ITERATIONS,
  MAX_TEMPLATE_ACTIONS,
  MAX_TEMPLATE_BYTES,
  type TemplateData,
  TemplateExecError,
  TemplateLimitError,
} from '../../src/template/index.js';

const data: TemplateData = {
  TrustDomain: 'example.org',
  ClusterName: 'demo',
  ClusterDomain: 'cluster.local',
  PodMeta: { name: 'web', namespace: 'shop', labels: { a: '1', b: '2', c: '3' } },
  PodSpec: {},
  NodeMeta: { name: 'node-1' },
  NodeSpec: {},
};

/** The template of the crash: 950 KB, 50,000 actions. */
const HUGE = `spiffe://example.org/${'{{ .PodMeta.Name }}'.repeat(50_000)}`;

describe('a template over the size limits is refused before it is parsed', () => {
  it('50,000 actions in 950 KB', () => {
    expect(() => compileTemplate(HUGE)).toThrow(TemplateLimitError);
    expect(() => compileTemplate(HUGE)).toThrow(`template is ${HUGE.length} bytes, over the limit of ${MAX_TEMPLATE_BYTES}`);
  });

  it(`more than ${MAX_TEMPLATE_ACTIONS} actions, though short`, () => {
    const at = (n: number) => `spiffe://example.org/${'{{.A}}'.repeat(n)}`.replaceAll('.A', '.PodMeta.Name');
    expect(compileTemplate(at(MAX_TEMPLATE_ACTIONS)).render(data)).toBe(`spiffe://example.org/${'web'.repeat(MAX_TEMPLATE_ACTIONS)}`);
    expect(() => compileTemplate(at(MAX_TEMPLATE_ACTIONS + 1))).toThrow(`template has ${MAX_TEMPLATE_ACTIONS + 1} actions, over the limit of ${MAX_TEMPLATE_ACTIONS}`);
  });

  it('counts bytes, not characters', () => {
    const text = 'é'.repeat(MAX_TEMPLATE_BYTES / 2);
    expect(compileTemplate(text).render(data)).toBe(text);
    expect(() => compileTemplate(`${text}x`)).toThrow(TemplateLimitError);
  });
});

describe('a render that would loop or grow without end stops at its place', () => {
  it('a range over a huge integer', () => {
    const t = compileTemplate('{{ range 1000000000 }}x{{ end }}');
    expect(() => t.render(data)).toThrow(TemplateExecError);
    expect(() => t.render(data)).toThrow(`template: 1:9: executing at <1000000000>: range exceeds the limit of ${MAX_RENDER_ITERATIONS} iterations in one render`);
  });

  it('nested ranges count together', () => {
    const t = compileTemplate('{{ range 200 }}{{ range 200 }}{{ end }}{{ end }}');
    expect(() => t.render(data)).toThrow(/range exceeds the limit of 10000 iterations/);
    // Each render has its own budget: a small one after a failed one works.
    expect(compileTemplate('{{ range 3 }}{{ . }}{{ end }}').render(data)).toBe('012');
  });

  it('output grown by printf widths inside a range', () => {
    const t = compileTemplate('{{ range 100 }}{{ printf "%1000000d" 1 }}{{ end }}');
    expect(() => t.render(data)).toThrow(`render output exceeds the limit of ${MAX_RENDER_CHARS} characters`);
  });

  it('a value grown by printf that is never printed', () => {
    const t = compileTemplate('{{ range 100 }}{{ $x := printf "%1000000d" 1 }}{{ end }}');
    expect(() => t.render(data)).toThrow(/error calling printf|render output exceeds the limit/);
  });

  it('a template that invokes itself without end', () => {
    const t = compileTemplate('{{ define "r" }}{{ template "r" . }}{{ end }}{{ template "r" . }}');
    let caught: unknown;
    try {
      t.render(data);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TemplateExecError);
    expect((caught as TemplateExecError).message).toBe('template: 1:19: executing at <{{template "r" .}}>: exceeded maximum template depth (1000; Go allows 100000)');
    expect((caught as TemplateExecError).unsupported).toBe(true);
  });

  it('ordinary ranges are untouched', () => {
    expect(compileTemplate('{{ range $k, $v := .PodMeta.Labels }}{{ $k }}={{ $v }};{{ end }}').render(data)).toBe('a=1;b=2;c=3;');
  });
});

const csid = (spec: Partial<ClusterSPIFFEID['spec']>): ClusterSPIFFEID =>
  ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'c', uid: 'u' }, spec: { spiffeIDTemplate: 'spiffe://example.org/x', ...spec } }) as ClusterSPIFFEID;
const errors = (r: ReturnType<typeof parseClusterSPIFFEID>) => ('errors' in r ? r.errors : []);

describe('a ClusterSPIFFEID over the limits is refused with the field that crosses them', () => {
  it('the 950 KB template', () => {
    expect(errors(parseClusterSPIFFEID(csid({ spiffeIDTemplate: HUGE })))).toEqual([
      { field: 'spec.spiffeIDTemplate', message: `template is ${HUGE.length} bytes, over the limit of ${MAX_TEMPLATE_BYTES}` },
    ]);
  });

  it('too many templates', () => {
    const dnsNameTemplates = Array.from({ length: MAX_OBJECT_TEMPLATES }, (_, i) => `n${i}.example.org`);
    expect(errors(parseClusterSPIFFEID(csid({ dnsNameTemplates: dnsNameTemplates.slice(1) })))).toEqual([]);
    expect(errors(parseClusterSPIFFEID(csid({ dnsNameTemplates })))).toEqual([
      { field: `spec.dnsNameTemplates[${MAX_OBJECT_TEMPLATES - 1}]`, message: `a ClusterSPIFFEID may have at most ${MAX_OBJECT_TEMPLATES} templates in all; this one has ${MAX_OBJECT_TEMPLATES + 1}` },
    ]);
  });

  it('too many actions across templates, each under its own limit', () => {
    const full = '{{ .PodMeta.Name }}'.repeat(MAX_TEMPLATE_ACTIONS);
    const workloadSelectorTemplates = Array.from({ length: MAX_OBJECT_ACTIONS / MAX_TEMPLATE_ACTIONS + 1 }, (_, i) => `k8s:x${i}:${full}`);
    expect(errors(parseClusterSPIFFEID(csid({ workloadSelectorTemplates })))).toEqual([
      {
        field: `spec.workloadSelectorTemplates[${MAX_OBJECT_ACTIONS / MAX_TEMPLATE_ACTIONS}]`,
        message: `a ClusterSPIFFEID may have at most ${MAX_OBJECT_ACTIONS} template actions in all; its templates reach ${MAX_OBJECT_ACTIONS + MAX_TEMPLATE_ACTIONS} here`,
      },
    ]);
  });
});
