import { describe, expect, it } from 'vitest';
import { TemplateExecError, TemplateParseError, compileTemplate } from '../../src/template/index.js';
import { compileError, podData, render, renderError } from './fixtures.js';

function parseReason(template: string): string {
  const err = compileError(template);
  expect(err).toBeInstanceOf(TemplateParseError);
  return (err as TemplateParseError).reason;
}

describe('templates Go cannot parse are rejected when compiled, with Go\'s reason', () => {
  it.each([
    ['unknown function default', '{{ .PodMeta.Labels.cluster | default "primary" }}', 'function "default" not defined'],
    ['unknown function lower', '{{ lower .PodMeta.Name }}', 'function "lower" not defined'],
    ['unclosed action', '{{ .PodMeta.Name', 'unclosed action'],
    ['end without a block', '{{ end }}', 'unexpected {{end}}'],
    ['else without a block', '{{ else }}', 'unexpected {{else}}'],
    ['block never ended', '{{ if .PodMeta.Name }}x', 'unexpected EOF'],
    ['two elses', '{{ if .PodMeta.Name }}x{{ else }}y{{ else }}z{{ end }}', 'expected end; found {{else}}'],
    ['unterminated string', '{{ index .PodMeta.Labels "app }}', 'unterminated quoted string'],
    ['unterminated raw string', '{{ `raw }}', 'unterminated raw quoted string'],
    ['unterminated character constant', "{{ .PodMeta.Name 'x }}", 'unterminated character constant'],
    ['character constant of two characters', "{{ 'ab' }}", "malformed character constant: 'ab'"],
    ['bad escape in a string', '{{ "\\q" }}', 'invalid syntax in string literal "\\q"'],
    ['empty action', '{{ }}', 'missing value for command'],
    ['empty if', '{{ if }}x{{ end }}', 'missing value for if'],
    ['empty else-if', '{{ if .PodMeta.Name }}{{ else if }}{{ end }}', 'missing value for if'],
    ['empty range', '{{ range }}{{ end }}', 'missing value for range'],
    ['literal as a later pipeline stage', '{{ .PodMeta.Name | "x" }}', 'non executable command in pipeline stage 2'],
    ['undefined variable', '{{ $x }}', 'undefined variable "$x"'],
    ['variable used after its scope', '{{ if true }}{{ $x := 1 }}{{ end }}{{ $x }}', 'undefined variable "$x"'],
    ['field of a literal', '{{ "a".Foo }}', 'unexpected . after term "\\"a\\""'],
    ['unclosed parenthesis', '{{ (.PodMeta.Name }}', 'unclosed left paren'],
    ['unopened parenthesis', '{{ .PodMeta.Name) }}', 'unexpected right paren'],
    ['unclosed comment', '{{/* open', 'unclosed comment'],
    ['comment followed by more', '{{/* c */ .PodMeta.Name }}', 'comment ends before closing delimiter'],
    ['bad number', '{{ 3x }}', 'bad number syntax: "3x"'],
    ['integer too large for Go', '{{ 99999999999999999999 }}', 'integer overflow: "99999999999999999999"'],
    ['pipe first', '{{ | .PodMeta.Name }}', 'unexpected "|" in command'],
    ['stray brace', '{{ .PodMeta.Name }', 'unexpected "}" in operand'],
    ['double dot', '{{ .PodMeta..Name }}', 'unexpected <.> in operand'],
    ['dash in a field name', '{{ .PodMeta.Labels.vm-name }}', "bad character U+002D '-'"],
    ['index brackets', '{{ .PodMeta.OwnerReferences[0].Name }}', "bad character U+005B '['"],
    ['slash in a field name', '{{ .PodMeta.Labels.tentacular.io/release }}', "bad character U+002F '/'"],
    ['three range variables', '{{ range $i, $e, $f := .PodSpec.Containers }}{{ end }}', 'too many declarations in range'],
    ['two with variables', '{{ with $a, $b := .PodMeta }}{{ end }}', 'too many declarations in with'],
    ['range over a non-variable', '{{ range $i, 3 }}{{ end }}', 'range can only initialize variables'],
    ['break outside range', '{{ break }}', '{{break}} outside {{range}}'],
  ])('%s: %j', (_, template, reason) => {
    expect(parseReason(template)).toBe(reason);
  });

  it('says where the problem is, as line and byte column', () => {
    const err = compileError('spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.cluster | default "primary" }}') as TemplateParseError;
    expect(err.message).toBe('template: 1:57: function "default" not defined');
    expect([err.line, err.column, err.offset]).toEqual([1, 57, 57]);
    const multiline = compileError('spiffe://x/\n  {{ end }}') as TemplateParseError;
    expect(multiline.message).toBe('template: 2:5: unexpected {{end}}');
  });
});

describe('every Go template construct parses, as Go parses it (outputs checked against Go by oracle.test.ts)', () => {
  it.each([
    ['{{ define "x" }}y{{ end }}', ''],
    ['{{ block "x" . }}y{{ end }}', 'y'],
    ['{{ range .PodSpec.Containers }}{{ .Name }}{{ break }}{{ end }}', 'app'],
    ['{{ range .PodSpec.Containers }}{{ continue }}{{ .Name }}{{ end }}', ''],
    ['{{ 1+2i }}', '(1+2i)'],
    ['{{ 9007199254740993 }}', '9007199254740993'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it('fails when executed, not parsed, for a template that is not defined', () => {
    expect(() => compileTemplate('{{ template "x" }}')).not.toThrow();
    expect((renderError('{{ template "x" }}') as TemplateExecError).reason).toBe('template "x" not defined');
  });
});

describe('templates that parse but fail when rendered raise TemplateExecError with Go\'s reason and place', () => {
  it('carries the line, column, failing fragment and reason', () => {
    const err = renderError('{{ .PodMeta.Namespace }}\n{{ index .PodSpec.Containers 7 }}', podData());
    expect(err).toBeInstanceOf(TemplateExecError);
    const e = err as TemplateExecError;
    expect(e.message).toBe('template: 2:3: executing at <index .PodSpec.Containers 7>: error calling index: index out of range: 7');
    expect([e.line, e.column, e.context, e.reason]).toEqual([
      2,
      3,
      'index .PodSpec.Containers 7',
      'error calling index: index out of range: 7',
    ]);
  });

  it('parses, as the Go webhook accepts it', () => {
    expect(() => compileTemplate('{{ index .PodSpec.Containers 7 }}')).not.toThrow();
    expect(() => compileTemplate('{{ .PodMeta.Foo }}')).not.toThrow();
  });

  it('refuses, marked unsupported, what Go would print or run through code spire-reconciler does not reproduce', () => {
    const cases: [string, RegExp][] = [
      ['{{ .PodSpec }}', /String\(\) method of v1\.PodSpec/],
      ['{{ .PodMeta.Size }}', /Go method v1\.ObjectMeta\.Size/],
      ['{{ printf "%v" .PodSpec.Priority }}', /memory address/],
    ];
    for (const [template, reason] of cases) {
      const err = renderError(template) as TemplateExecError;
      expect(err.reason).toMatch(reason);
      expect(err.unsupported).toBe(true);
    }
    // Go's ordinary failures are not marked.
    expect((renderError('{{ .PodMeta.Foo }}') as TemplateExecError).unsupported).toBe(false);
  });

  it('reads every field of the Kubernetes types, not only the common ones', () => {
    expect(render('{{ .PodSpec.SecurityContext.RunAsUser }}', podData({ PodSpec: { securityContext: { runAsUser: 1000 } } }))).toBe('1000');
  });
});
