import { describe, expect, it } from 'vitest';
import { compileLabelSelector, LabelSelectorError, type LabelSelector } from '../../src/api/index.js';

// Kubernetes' reasons, verbatim. Each expectation below was produced by k8s.io/apimachinery v0.36.2's
// metav1.LabelSelectorAsSelector (what spire-controller-manager's webhook and reconcile call) on the same
// selector, run with Go in a session; we name our own field in front of the same reason.
const NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const PREFIX_RULE =
  "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const a64 = 'a'.repeat(64);

const problems = (selector: LabelSelector) => {
  try {
    compileLabelSelector(selector);
    return [];
  } catch (err) {
    if (!(err instanceof LabelSelectorError)) throw err;
    return err.problems.map((p) => `${p.field}: ${p.message}`);
  }
};

describe('label selectors are refused exactly where metav1.LabelSelectorAsSelector refuses them', () => {
  it.each<[string, LabelSelector, string[]]>([
    ['a key with a space and !', { matchLabels: { 'bad key!': 'v' } }, [`matchLabels["bad key!"]: key: Invalid value: "bad key!": name part ${NAME_RULE}`]],
    [
      'a key with two slashes',
      { matchLabels: { 'a/b/c': 'v' } },
      [`matchLabels["a/b/c"]: key: Invalid value: "a/b/c": a valid label key ${NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`],
    ],
    ['a 64-byte value', { matchLabels: { k: a64 } }, [`matchLabels["k"]: Invalid value: "${a64}": must be no more than 63 bytes`]],
    ['a value with a space', { matchLabels: { k: 'a b' } }, [`matchLabels["k"]: Invalid value: "a b": ${VALUE_RULE}`]],
    ['a value starting with -', { matchLabels: { k: '-a' } }, [`matchLabels["k"]: Invalid value: "-a": ${VALUE_RULE}`]],
    ['a non-ASCII value', { matchLabels: { k: 'é' } }, [`matchLabels["k"]: Invalid value: "é": ${VALUE_RULE}`]],
    ['an empty key', { matchLabels: { '': 'v' } }, [`matchLabels[""]: key: Invalid value: "": name part must be non-empty; name part ${NAME_RULE}`]],
    ['an uppercase prefix', { matchLabels: { 'Example.com/app': 'v' } }, [`matchLabels["Example.com/app"]: key: Invalid value: "Example.com/app": ${PREFIX_RULE}`]],
    ['an empty prefix', { matchLabels: { '/app': 'v' } }, ['matchLabels["/app"]: key: Invalid value: "/app": prefix part must be non-empty']],
    ['an empty name after the prefix', { matchLabels: { 'example.com/': 'v' } }, [`matchLabels["example.com/"]: key: Invalid value: "example.com/": name part must be non-empty; name part ${NAME_RULE}`]],
    ['a 64-byte name', { matchLabels: { [a64]: 'v' } }, [`matchLabels["${a64}"]: key: Invalid value: "${a64}": name part must be no more than 63 bytes`]],
    ['a 256-byte prefix', { matchLabels: { [`${'a'.repeat(254)}/x`]: 'v' } }, [`matchLabels["${'a'.repeat(254)}/x"]: key: Invalid value: "${'a'.repeat(254)}/x": prefix part must be no more than 253 bytes`]],
    ['a key starting with _', { matchLabels: { _a: 'v' } }, [`matchLabels["_a"]: key: Invalid value: "_a": name part ${NAME_RULE}`]],
    ['In without values', { matchExpressions: [{ key: 'app', operator: 'In' }] }, ["matchExpressions[0].values: for 'in', 'notin' operators, values set can't be empty"]],
    ['NotIn without values', { matchExpressions: [{ key: 'app', operator: 'NotIn', values: [] }] }, ["matchExpressions[0].values: for 'in', 'notin' operators, values set can't be empty"]],
    ['Exists with values', { matchExpressions: [{ key: 'app', operator: 'Exists', values: ['x'] }] }, ['matchExpressions[0].values: values set must be empty for exists and does not exist']],
    ['DoesNotExist with values', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist', values: ['x'] }] }, ['matchExpressions[0].values: values set must be empty for exists and does not exist']],
    ['an unknown operator', { matchExpressions: [{ key: 'app', operator: 'Equals', values: ['x'] }] }, ['matchExpressions[0].operator: "Equals" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)']],
    ['an empty operator', { matchExpressions: [{ key: 'app', operator: '' }] }, ['matchExpressions[0].operator: "" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)']],
    ['an invalid In value', { matchExpressions: [{ key: 'app', operator: 'In', values: ['ok', 'bad value!'] }] }, [`matchExpressions[0].values[1]: Invalid value: "bad value!": ${VALUE_RULE}`]],
    ['an invalid NotIn value', { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['bad value!'] }] }, [`matchExpressions[0].values[0]: Invalid value: "bad value!": ${VALUE_RULE}`]],
    ['a 64-byte In value', { matchExpressions: [{ key: 'app', operator: 'In', values: [a64] }] }, [`matchExpressions[0].values[0]: Invalid value: "${a64}": must be no more than 63 bytes`]],
    ['an empty expression key', { matchExpressions: [{ key: '', operator: 'Exists' }] }, [`matchExpressions[0].key: Invalid value: "": name part must be non-empty; name part ${NAME_RULE}`]],
    [
      'a bad key, no values for In: both, as apimachinery aggregates them',
      { matchExpressions: [{ key: 'bad key', operator: 'In' }] },
      [`matchExpressions[0].key: Invalid value: "bad key": name part ${NAME_RULE}`, "matchExpressions[0].values: for 'in', 'notin' operators, values set can't be empty"],
    ],
  ])('%s', (_what, selector, expected) => {
    expect(problems(selector)).toEqual(expected);
  });

  it.each<[string, LabelSelector]>([
    ['a 63-byte value', { matchLabels: { k: 'a'.repeat(63) } }],
    ['an empty value', { matchLabels: { k: '' } }],
    ['a prefixed key', { matchLabels: { 'example.com/app': 'v' } }],
    ['a 253-byte prefix', { matchLabels: { [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}/x`]: 'v' } }],
    ['a prefix whose label exceeds 63 bytes (the subdomain check is the whole name\'s length only)', { matchLabels: { [`${a64}.com/x`]: 'v' } }],
    ['underscores, dots and dashes inside a value', { matchLabels: { k: 'a_b.c-d' } }],
    ['an empty selector', {}],
  ])('accepts %s', (_what, selector) => {
    expect(problems(selector)).toEqual([]);
  });

  it('an object with an invalid NotIn value matches nothing, instead of every pod', () => {
    // Before: the value could never equal a label, so NotIn was true for every pod.
    expect(() => compileLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['not a label value'] }] })).toThrow(LabelSelectorError);
  });
});
