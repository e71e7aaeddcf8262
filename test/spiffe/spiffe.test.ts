import { describe, expect, it } from 'vitest';
import { lengthProblem, parseSpiffeId, parseTrustDomain } from '../../src/spiffe/index.js';

describe('SPIFFE IDs are accepted and rejected as go-spiffe does, with its exact reasons', () => {
  it.each([
    ['spiffe://example.org', { trustDomain: 'example.org', path: '' }],
    ['spiffe://example.org/ns/default/sa/web', { trustDomain: 'example.org', path: '/ns/default/sa/web' }],
    ['spiffe://a-b_c.9/A.b-C_9', { trustDomain: 'a-b_c.9', path: '/A.b-C_9' }],
  ])('%s parses', (id, parsed) => {
    expect(parseSpiffeId(id)).toEqual(parsed);
  });

  it.each([
    ['', 'cannot be empty'],
    ['http://example.org/w', 'scheme is missing or invalid'],
    ['example.org/w', 'scheme is missing or invalid'],
    ['spiffe:///w', 'trust domain is missing'],
    ['spiffe://Example.org/w', 'trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores'],
    ['spiffe://exa mple.org', 'trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores'],
    ['spiffe://example.org/a//b', 'path cannot contain empty segments'],
    ['spiffe://example.org/a/./b', 'path cannot contain dot segments'],
    ['spiffe://example.org/a/..', 'path cannot contain dot segments'],
    ['spiffe://example.org/a/', 'path cannot have a trailing slash'],
    ['spiffe://example.org/a b', 'path segment characters are limited to letters, numbers, dots, dashes, and underscores'],
    ['spiffe://example.org/<no value>', 'path segment characters are limited to letters, numbers, dots, dashes, and underscores'],
  ])('%j is rejected: %s', (id, reason) => {
    expect(() => parseSpiffeId(id)).toThrow(reason);
  });

  it.each([
    ['example.org', 'example.org'],
    ['spiffe://example.org', 'example.org'],
    ['spiffe://example.org/with/path', 'example.org'],
  ])('trust domain %s reads as %s', (input, td) => {
    expect(parseTrustDomain(input)).toBe(td);
  });

  it.each([
    ['', 'trust domain is missing'],
    ['Example.org', 'trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores'],
    ['https://example.org', 'scheme is missing or invalid'],
  ])('trust domain %j is rejected: %s', (input, reason) => {
    expect(() => parseTrustDomain(input)).toThrow(reason);
  });
});

describe('the SPIFFE specification length limits are checked on IDs we render', () => {
  it('accepts a 255-byte trust domain and a 2048-byte ID', () => {
    expect(lengthProblem({ trustDomain: 'a'.repeat(255), path: '' })).toBeUndefined();
    const path = `/${'p'.repeat(2048 - 'spiffe://example.org/'.length)}`;
    expect(lengthProblem({ trustDomain: 'example.org', path })).toBeUndefined();
  });

  it('rejects a 256-byte trust domain and a 2049-byte ID with the limit in the reason', () => {
    expect(lengthProblem({ trustDomain: 'a'.repeat(256), path: '' })).toBe('trust domain is longer than 255 bytes');
    const path = `/${'p'.repeat(2049 - 'spiffe://example.org/'.length)}`;
    expect(lengthProblem({ trustDomain: 'example.org', path })).toBe('SPIFFE ID is longer than 2048 bytes');
  });
});
