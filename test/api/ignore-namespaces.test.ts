import { describe, expect, it } from 'vitest';
import { globLikeWarning, IgnoredNamespaces, IgnoreNamespacesError, parseConfig } from '../../src/api/index.js';

const NAMES = ["spire", "spire-system", "my-spire-apps", "spire-server", "kube-system", "kube-public", "openshift", "openshift-monitoring", "my-openshift-ns", "opensh", "openshif", "ibm-cloud", "team-a", "TEAM-A", "my-team-a-x", "ns1", "ns", "nsx", "default", "a", "aa", "", "abc123", "x.y"];

/**
 * What Go's regexp does with each pattern: `regexp.Compile(p)`, then
 * `MatchString(name)` for each of NAMES, or the compile error. Worked out by
 * running exactly that (Go 1.26, the standard library's regexp, as
 * spire-controller-manager's main.go calls it), so these are Go's answers,
 * not ours. The RE2 features and the failures real configs run into are
 * both here: `(?i)`, POSIX classes, Perl classes, Unicode classes, named
 * groups, and lookaheads, backreferences and `\Z` that RE2 refuses.
 */
const GO: [string, { matches: string[] } | { error: string }][] = [
  ["spire", { matches: ["spire", "spire-system", "my-spire-apps", "spire-server"] }],
  ["spire-system", { matches: ["spire-system"] }],
  ["kube-system", { matches: ["kube-system"] }],
  ["openshift-*", { matches: ["openshift", "openshift-monitoring", "my-openshift-ns"] }],
  ["openshift-.*", { matches: ["openshift-monitoring", "my-openshift-ns"] }],
  ["ibm-.*", { matches: ["ibm-cloud"] }],
  ["^team-a$", { matches: ["team-a"] }],
  ["(?i)team-a", { matches: ["team-a", "TEAM-A", "my-team-a-x"] }],
  ["ns[[:digit:]]+", { matches: ["ns1"] }],
  ["\\d+", { matches: ["ns1", "abc123"] }],
  ["(", { error: "error parsing regexp: missing closing ): `(`" }],
  ["a{2,1}", { error: "error parsing regexp: invalid repeat count: `{2,1}`" }],
  ["x**", { error: "error parsing regexp: invalid nested repetition operator: `**`" }],
  ["a++", { error: "error parsing regexp: invalid nested repetition operator: `++`" }],
  ["(?P<n>a)", { matches: ["my-spire-apps", "team-a", "my-team-a-x", "default", "a", "aa", "abc123"] }],
  ["(?<n>a)", { matches: ["my-spire-apps", "team-a", "my-team-a-x", "default", "a", "aa", "abc123"] }],
  ["\\pL+", { matches: ["spire", "spire-system", "my-spire-apps", "spire-server", "kube-system", "kube-public", "openshift", "openshift-monitoring", "my-openshift-ns", "opensh", "openshif", "ibm-cloud", "team-a", "TEAM-A", "my-team-a-x", "ns1", "ns", "nsx", "default", "a", "aa", "abc123", "x.y"] }],
  ["\\p{Greek}", { matches: [] }],
  ["[[:^alpha:]]", { matches: ["spire-system", "my-spire-apps", "spire-server", "kube-system", "kube-public", "openshift-monitoring", "my-openshift-ns", "ibm-cloud", "team-a", "TEAM-A", "my-team-a-x", "ns1", "abc123", "x.y"] }],
  ["(?U)a+", { matches: ["my-spire-apps", "team-a", "my-team-a-x", "default", "a", "aa", "abc123"] }],
  ["a{1001}", { error: "error parsing regexp: invalid repeat count: `{1001}`" }],
  ["\\Z", { error: "error parsing regexp: invalid escape sequence: `\\Z`" }],
  ["\\b", { matches: ["spire", "spire-system", "my-spire-apps", "spire-server", "kube-system", "kube-public", "openshift", "openshift-monitoring", "my-openshift-ns", "opensh", "openshif", "ibm-cloud", "team-a", "TEAM-A", "my-team-a-x", "ns1", "ns", "nsx", "default", "a", "aa", "abc123", "x.y"] }],
  ["(?=a)", { error: "error parsing regexp: invalid or unsupported Perl syntax: `(?=`" }],
  ["\\1", { error: "error parsing regexp: invalid escape sequence: `\\1`" }],
  ["[z-a]", { error: "error parsing regexp: invalid character class range: `z-a`" }],
  ["", { matches: ["spire", "spire-system", "my-spire-apps", "spire-server", "kube-system", "kube-public", "openshift", "openshift-monitoring", "my-openshift-ns", "opensh", "openshif", "ibm-cloud", "team-a", "TEAM-A", "my-team-a-x", "ns1", "ns", "nsx", "default", "a", "aa", "", "abc123", "x.y"] }],
  ["^$", { matches: [""] }],
  ["*", { error: "error parsing regexp: missing argument to repetition operator: `*`" }],
  ["+a", { error: "error parsing regexp: missing argument to repetition operator: `+`" }],
  ["a|", { matches: ["spire", "spire-system", "my-spire-apps", "spire-server", "kube-system", "kube-public", "openshift", "openshift-monitoring", "my-openshift-ns", "opensh", "openshif", "ibm-cloud", "team-a", "TEAM-A", "my-team-a-x", "ns1", "ns", "nsx", "default", "a", "aa", "", "abc123", "x.y"] }],
  ["\\Qa.b\\E", { matches: [] }],
  ["(?s).", { matches: ["spire", "spire-system", "my-spire-apps", "spire-server", "kube-system", "kube-public", "openshift", "openshift-monitoring", "my-openshift-ns", "opensh", "openshif", "ibm-cloud", "team-a", "TEAM-A", "my-team-a-x", "ns1", "ns", "nsx", "default", "a", "aa", "abc123", "x.y"] }],
  ["[^a-z]", { matches: ["spire-system", "my-spire-apps", "spire-server", "kube-system", "kube-public", "openshift-monitoring", "my-openshift-ns", "ibm-cloud", "team-a", "TEAM-A", "my-team-a-x", "ns1", "abc123", "x.y"] }],
  ["\\x{41}", { matches: ["TEAM-A"] }],
  ["\\C", { error: "error parsing regexp: invalid escape sequence: `\\C`" }],
  ["(?m)^a$", { matches: ["a"] }],
  ["a{,3}", { matches: [] }],
  ["\\z", { matches: ["spire", "spire-system", "my-spire-apps", "spire-server", "kube-system", "kube-public", "openshift", "openshift-monitoring", "my-openshift-ns", "opensh", "openshif", "ibm-cloud", "team-a", "TEAM-A", "my-team-a-x", "ns1", "ns", "nsx", "default", "a", "aa", "", "abc123", "x.y"] }],
  ["[\\d-z]", { matches: ["spire-system", "my-spire-apps", "spire-server", "kube-system", "kube-public", "openshift-monitoring", "my-openshift-ns", "ibm-cloud", "team-a", "TEAM-A", "my-team-a-x", "ns1", "abc123"] }],
  ["(?i:A)b", { matches: ["abc123"] }],
  ["\\pN", { matches: ["ns1", "abc123"] }],
  ["[[:word:]]", { matches: ["spire", "spire-system", "my-spire-apps", "spire-server", "kube-system", "kube-public", "openshift", "openshift-monitoring", "my-openshift-ns", "opensh", "openshif", "ibm-cloud", "team-a", "TEAM-A", "my-team-a-x", "ns1", "ns", "nsx", "default", "a", "aa", "abc123", "x.y"] }],
  ["x{2}{3}", { error: "error parsing regexp: invalid nested repetition operator: `{2}{3}`" }],
  ["a**", { error: "error parsing regexp: invalid nested repetition operator: `**`" }],];

describe('ignoreNamespaces are Go regular expressions matched anywhere in the name, as upstream matches them', () => {
  it.each(GO)('%j compiles and matches as Go does', (pattern, expected) => {
    if ('error' in expected) {
      expect(() => IgnoredNamespaces.compile([pattern])).toThrow(IgnoreNamespacesError);
      expect(() => IgnoredNamespaces.compile([pattern])).toThrow(`ignoreNamespaces[0]: ${expected.error}`);
      return;
    }
    const ignored = IgnoredNamespaces.compile([pattern]);
    expect(NAMES.filter((n) => ignored.ignores(n))).toEqual(expected.matches);
  });

  it('ignores a namespace when any pattern matches, and says which', () => {
    const ignored = IgnoredNamespaces.compile(['kube-system', 'spire']);
    expect(ignored.ignores('my-spire-apps')).toBe(true);
    expect(ignored.ignoredBy('my-spire-apps')).toBe('spire');
    expect(ignored.ignores('default')).toBe(false);
    expect(ignored.ignoredBy('default')).toBeUndefined();
    // Answers are remembered per name; asking again gives the same answer.
    expect(ignored.ignores('my-spire-apps')).toBe(true);
  });

  it('names every pattern that does not compile, with its index, and hints at globs', () => {
    try {
      IgnoredNamespaces.compile(['ok', '(', '*-system']);
      expect.unreachable();
    } catch (err) {
      expect((err as IgnoreNamespacesError).problems).toEqual([
        { index: 1, message: 'error parsing regexp: missing closing ): `(`' },
        { index: 2, message: 'error parsing regexp: missing argument to repetition operator: `*` (ignoreNamespaces are regular expressions, not globs: write ".*" for "*")' },
      ]);
    }
  });
});

describe('patterns that look like globs are warned about, saying what they really match', () => {
  it.each([
    ['openshift-*', '"openshift-*" looks like a glob, but ignoreNamespaces are regular expressions matched anywhere in the name: it ignores every namespace whose name contains "openshift"; for names starting with "openshift-", write "^openshift-"'],
    ['^team-*', '"^team-*" looks like a glob, but ignoreNamespaces are regular expressions matched anywhere in the name: it ignores every namespace whose name starts with "team"; for names starting with "team-", write "^team-"'],
    ['ns?', '"ns?" looks like a glob, but ignoreNamespaces are regular expressions matched anywhere in the name: it ignores every namespace whose name contains "n" with an optional "s"; for names starting with "ns", write "^ns"'],
    ['a*', '"a*" looks like a glob, but ignoreNamespaces are regular expressions matched anywhere in the name: it ignores every namespace; for names starting with "a", write "^a"'],
  ])('%j', (pattern, warning) => {
    expect(globLikeWarning(pattern)).toBe(warning);
  });

  it.each(['openshift-.*', 'ibm-.*', 'kube-system', 'spire', '^kube-(system|public)$', 'ns[0-9]*', '(?i)team-a'])('%j is not glob-like', (pattern) => {
    expect(globLikeWarning(pattern)).toBeUndefined();
  });

  it('the warning is a config warning, so `run` logs it at start and `validate` prints it', () => {
    const { warnings, config } = parseConfig('trustDomain: example.org\nclusterName: c\nignoreNamespaces: [kube-system, openshift-*]\n', 'x');
    expect(config.ignoreNamespaces).toEqual(['kube-system', 'openshift-*']);
    expect(warnings).toEqual([`ignoreNamespaces[1]: ${globLikeWarning('openshift-*')!}`]);
  });
});
