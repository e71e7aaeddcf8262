import { describe, expect, it } from 'vitest';
import { TemplateExecError } from '../../src/template/index.js';
import { podData, render, renderError } from './fixtures.js';

function reasonOf(template: string, data = podData()): string {
  const err = renderError(template, data);
  expect(err).toBeInstanceOf(TemplateExecError);
  return (err as TemplateExecError).reason;
}

describe('trim markers remove all adjacent whitespace, and only when followed or preceded by a space', () => {
  it.each([
    ['a  {{- .PodMeta.Namespace -}}  b', 'apaymentsb'],
    ['a  {{ .PodMeta.Namespace -}}  b', 'a  paymentsb'],
    ['a  {{- .PodMeta.Namespace }}  b', 'apayments  b'],
    ['a\n\t {{- .PodMeta.Namespace }}', 'apayments'],
    ['{{ .PodMeta.Namespace -}}\n\n  /x', 'payments/x'],
    ['{{ .PodMeta.Namespace   -}}  x', 'paymentsx'],
    ['a {{-\t.PodMeta.Namespace\t-}} b', 'apaymentsb'],
    ['{{-3}}', '-3'],
    ['a {{-3}}', 'a -3'],
    ['a {{- 3}}', 'a3'],
    ['[\n  {{- range .PodSpec.Containers }}\n  {{ .Name }}\n  {{- end }}\n]', '[\n  app\n  envoy\n]'],
  ])('%j renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });
});

describe('comments produce nothing', () => {
  it.each([
    ['{{/* a comment */}}ok', 'ok'],
    ['x {{- /* dropped */ -}} y', 'xy'],
    ['a {{- /* c */}} b', 'a b'],
    ['{{/* a\nmulti-line {{ comment }} */}}ok', 'ok'],
  ])('%j renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });
});

describe('literals mean what they mean in Go', () => {
  it.each([
    ['{{ "a\\tb" }}', 'a\tb'],
    ['{{ "\\u00e9\\x41\\101\\\\" }}', 'éAA\\'],
    ['{{ `a\\nb` }}', 'a\\nb'],
    ['{{ `a\r\nb` }}', 'a\nb'],
    ['{{ "{{" }}{{ .PodMeta.Namespace }}{{ "}}" }}', '{{payments}}'],
    ['{{ 42 }}|{{ -7 }}|{{ 0x1F }}|{{ 0o17 }}|{{ 017 }}|{{ 0b101 }}|{{ 1_000 }}', '42|-7|31|15|15|5|1000'],
    ["{{ 'a' }}|{{ '\\n' }}|{{ '\\x41' }}|{{ 'é' }}", '97|10|65|233'],
    ['{{ 1.5 }}|{{ 1e3 }}|{{ 2.0 }}|{{ .5 }}|{{ 0x1p-2 }}|{{ 1e21 }}', '1.5|1000|2|0.5|0.25|1e+21'],
    ['{{ true }}|{{ false }}', 'true|false'],
  ])('%j renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });
});

describe('pipelines pass each value as the last argument of the next command', () => {
  it.each([
    ['{{ .PodMeta.Namespace | printf "%s-x" }}', 'payments-x'],
    ['{{ "a" | printf "%s%s" "b" }}', 'ba'],
    ['{{ .PodMeta.Labels | len }}', '9'],
    ['{{ .PodMeta.Namespace | len | printf "%d chars" }}', '8 chars'],
    ['{{ if .PodMeta.Namespace | eq "payments" }}yes{{ end }}', 'yes'],
    ['{{ .PodMeta.Labels.app | printf "%q" | printf "%s!" }}', '"checkout"!'],
    ['{{ printf "%s/%s" (.PodMeta.Namespace) (index .PodMeta.Labels "app") }}', 'payments/checkout'],
    ['{{ (index .PodSpec.Containers 1).Name }}', 'envoy'],
    ['{{ (.PodMeta).Namespace }}', 'payments'],
    ['{{ (printf "%s" .PodMeta.Labels.app | len) }}', '8'],
    ['{{ .PodMeta.Namespace | }}', 'payments'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it.each([
    ['{{ .PodMeta.Namespace | .PodMeta.Name }}', 'Name has arguments but cannot be invoked as function'],
    ['{{ .PodMeta.Namespace | .PodMeta.Labels.app }}', 'app is not a method but has arguments'],
    ['{{ .PodMeta.Namespace | $ }}', "can't give argument to non-function $"],
    ['{{ .PodMeta.Namespace | (len "x") }}', `can't give argument to non-function len "x"`],
    ['{{ .PodMeta.Name 1 }}', 'Name has arguments but cannot be invoked as function'],
    ['{{ "a" 1 }}', `can't give argument to non-function "a"`],
    ['{{ . 1 }}', "can't give argument to non-function ."],
    ['{{ nil }}', 'nil is not a command'],
  ])('%s fails: %s', (template, reason) => {
    expect(reasonOf(template)).toBe(reason);
  });

  it('still treats a missing key with arguments as a missing key', () => {
    expect(render('{{ .PodMeta.Namespace | .PodMeta.Labels.nope.deeper }}')).toBe('<no value>');
  });
});

describe('builtin functions are checked for argument count at execution, as Go does', () => {
  it.each([
    ['{{ index }}', 'wrong number of args for index: want at least 1 got 0'],
    ['{{ not 1 2 }}', 'wrong number of args for not: want 1 got 2'],
    ['{{ 1 | not 2 }}', 'wrong number of args for not: want 1 got 2'],
    ['{{ len }}', 'wrong number of args for len: want 1 got 0'],
    ['{{ and }}', 'wrong number of args for and: want at least 1 got 0'],
    ['{{ printf }}', 'wrong number of args for printf: want at least 1 got 0'],
    ['{{ lt 1 }}', 'wrong number of args for lt: want 2 got 1'],
    ['{{ print (index) }}', 'wrong number of args for index: want at least 1 got 0'],
  ])('%s fails: %s', (template, reason) => {
    expect(reasonOf(template)).toBe(reason);
  });

  it('only fails when the call is reached', () => {
    expect(render('{{ if false }}{{ index }}{{ end }}ok')).toBe('ok');
  });
});

describe('printf formats like Go fmt.Sprintf', () => {
  const labels = podData({ PodMeta: { ...podData().PodMeta, labels: { b: '2', a: '1' }, finalizers: undefined } });
  it.each([
    ['{{ printf "%s-%d-%v-%q-%%" .PodMeta.Namespace 42 true "x" }}', 'payments-42-true-"x"-%'],
    ['{{ printf "%5s|%-5s|" "ab" "cd" }}', '   ab|cd   |'],
    ['{{ printf "%05d|%05d|%+d|% d|%-5d|" 42 -42 5 5 -3 }}', '00042|-0042|+5| 5|-3   |'],
    ['{{ printf "%x|%X|%o|%#o|%O|%b|%08b|%x" 255 255 8 8 8 5 5 -255 }}', 'ff|FF|10|010|0o10|101|00000101|-ff'],
    ['{{ printf "%x|%#x|% x|%# x|%X" "hi" "hi" "hi" "hi" "hi" }}', '6869|0x6869|68 69|0x68 0x69|6869'],
    ['{{ printf "%c|%q|%U|%#U" 65 65 128512 65 }}', "A|'A'|U+1F600|U+0041 'A'"],
    ['{{ printf "%t|%v" true false }}', 'true|false'],
    ['{{ printf "%q|%+q|%#q" "héllo\\n" "héllo" "abc" }}', '"héllo\\n"|"h\\u00e9llo"|`abc`'],
    ['{{ printf "%5.1s|%.2s|%-4s|" "abc" "héllo" "é" }}', '    a|hé|é   |'],
    [
      '{{ printf "%T %T %T %T %T %T %T" "x" .PodMeta.UID 3 .PodMeta.Labels .PodMeta 1.5 .PodSpec.Containers }}',
      'string types.UID int map[string]string *v1.ObjectMeta float64 []v1.Container',
    ],
    [
      '{{ printf "%.2f|%e|%g|%v|%v|%v|%v|%G|%08.3f|%+.1e|%6.2f|" 3.14159 1234.5678 1234.5678 1.0 1e6 0.000001 0.0001 1e-7 -3.14159 12345.0 3.14159 }}',
      '3.14|1.234568e+03|1234.5678|1|1e+06|1e-06|0.0001|1E-07|-003.142|+1.2e+04|  3.14|',
    ],
    ['{{ printf "%v %v %v" 100000000.0 123456.0 1234567.0 }}', '1e+08 123456 1.234567e+06'],
    ['{{ printf "%.3g|%g|%.0f" 1234.5678 100000.0 2.4 }}', '1.23e+03|100000|2'],
    ['{{ printf "%d|%s" "abc" }}', '%!d(string=abc)|%!s(MISSING)'],
    ['{{ printf "x" "y" 3 }}', 'x%!(EXTRA string=y, int=3)'],
    ['{{ printf "%" }}', '%!(NOVERB)'],
    ['{{ printf "%[2]s %[1]s" "a" "b" }}', 'b a'],
    ['{{ printf "%[3]s" "a" }}', '%!s(BADINDEX)'],
    ['{{ printf "%*d|%-*d|%.*f" 5 42 5 42 2 3.14159 }}', '   42|42   |3.14'],
    ['{{ printf "%d|%z" true 1 }}', '%!d(bool=true)|%!z(int=1)'],
    ['{{ printf "%s|%v" .PodMeta.Labels.nope .PodMeta.Labels.nope }}', '%!s(<nil>)|<nil>'],
    ['{{ printf "%s" .PodMeta.Generation }}', '%!s(int64=0)'],
    [
      '{{ printf "%v|%s|%q" .NodeSpec.PodCIDRs .NodeSpec.PodCIDRs .NodeSpec.PodCIDRs }}',
      '[10.244.3.0/24 fd00:10:244:3::/64]|[10.244.3.0/24 fd00:10:244:3::/64]|["10.244.3.0/24" "fd00:10:244:3::/64"]',
    ],
    [
      '{{ printf "%s|%v|%q" .PodMeta.CreationTimestamp .PodMeta.DeletionTimestamp .PodMeta.CreationTimestamp }}',
      '2024-05-14 09:26:53 +0000 UTC|<nil>|"2024-05-14 09:26:53 +0000 UTC"',
    ],
    ['{{ printf "%d%%" 50 }}', '50%'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it.each([
    ['{{ printf "%v|%d" .PodMeta.Labels .PodMeta.Labels }}', 'map[a:1 b:2]|map[%!d(string=a):%!d(string=1) %!d(string=b):%!d(string=2)]'],
    ['{{ printf "%#v|%#v|%#v|%#v" "a" 3 .PodMeta.Labels .PodMeta.Finalizers }}', '"a"|3|map[string]string{"a":"1", "b":"2"}|[]string(nil)'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template, labels)).toBe(expected);
  });

  it.each([
    ['{{ printf 1 }}', 'expected string; found 1'],
    ['{{ printf nil }}', 'cannot assign nil to string'],
    ['{{ printf .PodMeta.UID }}', 'wrong type for value; expected string; got types.UID'],
    ['{{ printf .PodMeta.Labels.nope }}', 'invalid value; expected string'],
    ['{{ printf .PodSpec.HostnameOverride }}', 'dereference of nil pointer of type string'],
  ])('%s fails: %s', (template, reason) => {
    expect(reasonOf(template)).toBe(reason);
  });

  it('takes a *string format', () => {
    expect(render('{{ printf .PodSpec.HostnameOverride 1 }}', podData({ PodSpec: { hostnameOverride: 'n-%d' } }))).toBe('n-1');
  });
});

describe('print, println, html, js, urlquery, slice and call behave as in Go', () => {
  it.each([
    ['{{ print 1 2 "a" "b" 3 }}', '1 2ab3'],
    ['{{ print }}|{{ print "a" }}', '|a'],
    ['{{ print .PodMeta.Labels.nope 1 }}', '<nil> 1'],
    ['{{ print .PodMeta.UID .PodMeta.Namespace }}', '7f3c9a2e-1b4d-4c8e-9f2a-5d6e7f8a9b0cpayments'],
    ['{{ print .NodeSpec.PodCIDRs }}', '[10.244.3.0/24 fd00:10:244:3::/64]'],
    ['{{ println "a" 1 }}', 'a 1\n'],
    [`{{ html "<a href='x'>&\\"" }}`, '&lt;a href=&#39;x&#39;&gt;&amp;&#34;'],
    ['{{ index .PodMeta.Annotations "quirky" | html }}', 'a=b&#39;c&#34;&lt;x&gt;&amp;'],
    ['{{ html .PodMeta.Labels.nope }}', '&lt;no value&gt;'],
    [`{{ js "a'b\\"<=>&\\\\" }}`, `a\\'b\\"\\u003C\\u003D\\u003E\\u0026\\\\`],
    ['{{ urlquery "a b&c/é?" }}', 'a+b%26c%2F%C3%A9%3F'],
    ['{{ urlquery .PodMeta.Namespace "x" }}', 'paymentsx'],
    ['{{ slice "abcdef" 1 3 }}|{{ slice "abcdef" 2 }}|{{ slice "abc" }}', 'bc|cdef|abc'],
    ['{{ slice .NodeSpec.PodCIDRs 0 1 }}', '[10.244.3.0/24]'],
    ['{{ range slice .PodSpec.Containers 1 }}{{ .Name }}{{ end }}', 'envoy'],
  ])('%s renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it.each([
    ['{{ slice "abc" 2 1 }}', 'error calling slice: invalid slice index: 2 > 1'],
    ['{{ slice "abc" 1 2 3 }}', 'error calling slice: cannot 3-index slice a string'],
    ['{{ slice "abc" 5 }}', 'error calling slice: index out of range: 5'],
    ['{{ slice .PodMeta.Labels 1 }}', "error calling slice: can't slice item of type map[string]string"],
    ['{{ call .PodMeta.Name }}', 'error calling call: non-function .PodMeta.Name of type string'],
    ['{{ call .PodMeta.Labels.nope }}', 'error calling call: call of nil'],
  ])('%s fails: %s', (template, reason) => {
    expect(reasonOf(template)).toBe(reason);
  });
});

describe('output is never HTML-escaped and mustache syntax in the text is inert', () => {
  it.each([
    ['{{ index .PodMeta.Annotations "quirky" }}', `a=b'c"<x>&`],
    ['{{ "a=b\'c`d" }}', "a=b'c`d"],
    ['x{y}z\\{{ .PodMeta.Namespace }}\\', 'x{y}z\\payments\\'],
    ['a{ {{- .PodMeta.Namespace -}} }b', 'a{payments}b'],
    ['{{ .PodMeta.Namespace }}}', 'payments}'],
    ['{{ .PodMeta.Namespace }}{{ "{{" }}!-- x --}}{{ "{{" }}#each}}', 'payments{{!-- x --}}{{#each}}'],
  ])('%j renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });
});
