import { describe, expect, it } from 'vitest';
import { objectNameProblem, printableName } from '../../src/api/index.js';

// apimachinery's words (v0.36), as `kubectl apply` prints them for metadata.name.
const RULE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('the names the API server takes for a cluster-scoped custom resource (DNS-1123 subdomains)', () => {
  it.each([
    ['one letter', 'a'],
    ['digits', '0123'],
    ['dashes and dots inside', 'spire-server.example-1'],
    ['253 bytes', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`],
    // Left to the API server, which never passes one on: generateName is resolved first.
    ['empty', ''],
  ])('%s: taken', (_, name) => {
    expect(objectNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['uppercase', 'Greeter', `Invalid value: "Greeter": ${RULE}`],
    ['a NUL byte', 'gate\u0000way', `Invalid value: "gate\\u0000way": ${RULE}`],
    ['an underscore', 'a_b', `Invalid value: "a_b": ${RULE}`],
    ['a space', 'a b', `Invalid value: "a b": ${RULE}`],
    ['a leading dash', '-a', `Invalid value: "-a": ${RULE}`],
    ['a trailing dot', 'a.', `Invalid value: "a.": ${RULE}`],
    ['an empty label', 'a..b', `Invalid value: "a..b": ${RULE}`],
    ['non-ASCII', 'café', `Invalid value: "café": ${RULE}`],
    ['254 bytes', 'a'.repeat(254), `Invalid value: "${'a'.repeat(254)}": must be no more than 253 bytes`],
    ['254 bytes and uppercase', 'A'.repeat(254), `Invalid value: "${'A'.repeat(254)}": must be no more than 253 bytes; ${RULE}`],
  ])('%s: refused', (_, name, message) => {
    expect(objectNameProblem(name)).toBe(message);
  });

  it('a name with a character that cannot be shown as it is is quoted in messages; others are shown as they are', () => {
    expect(printableName('gate\u0000way')).toBe('"gate\\u0000way"');
    expect(printableName('a\nb')).toBe('"a\\nb"');
    expect(printableName('a b')).toBe('"a b"');
    expect(printableName('Greeter')).toBe('Greeter');
    expect(printableName('gateway.yaml#1')).toBe('gateway.yaml#1');
  });
});
