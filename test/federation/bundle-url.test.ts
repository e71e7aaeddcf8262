import { describe, expect, it } from 'vitest';
import { bundleEndpointUrlProblems } from '../../src/federation/bundle-url.js';
import { validateFederatedTrustDomain } from '../../src/federation/validate.js';

/**
 * What upstream's ValidateBundleEndpointURL (Go's net/url.Parse, then scheme,
 * host and userinfo) answers for each URL: worked out by running that
 * function's steps with Go 1.26 in a session. Upstream stops at its first
 * reason; every case here has one.
 */
const GO: [string, string | undefined][] = [
  ['https://partner.org/bundle', undefined],
  // JavaScript's URL parser finds hosts in these two; Go finds none.
  ['https:///bundle', 'host must be specified'],
  ['https:/partner.org/bundle', 'host must be specified'],
  ['https:partner.org', 'host must be specified'],
  ['http://x', 'scheme must be https'],
  ['HTTPS://x.org', undefined],
  ['https://user@x.org', 'cannot contain userinfo'],
  ['https://user:pw@x.org/', 'cannot contain userinfo'],
  ['https://@x.org', 'cannot contain userinfo'],
  ['https://x.org:8443/b', undefined],
  ['https://x.org:port', 'parse "https://x.org:port": invalid port ":port" after host'],
  ['https://[::1]:8443/', undefined],
  ['https://[::1', 'parse "https://[::1": missing \']\' in host'],
  ['https://x y.org', 'parse "https://x y.org": invalid character " " in host name'],
  ['https://x.org ', 'parse "https://x.org ": invalid character " " in host name'],
  ['https://x{y}.org', 'parse "https://x{y}.org": invalid character "{" in host name'],
  ['https://x.org\\b', 'parse "https://x.org\\\\b": invalid character "\\\\" in host name'],
  ['https://x.org/a b', undefined],
  ['https://x.org/%zz', 'parse "https://x.org/%zz": invalid URL escape "%zz"'],
  ['https://x%41.org/', 'parse "https://x%41.org/": invalid URL escape "%41"'],
  ['https://x.org#frag', undefined],
  ['https://x.org?q=1', undefined],
  ['//x.org/bundle', 'scheme must be https'],
  ['x.org/bundle', 'scheme must be https'],
  [':foo', 'parse ":foo": missing protocol scheme'],
  [' https://x.org', 'parse " https://x.org": first path segment in URL cannot contain colon'],
  ['https://x.org:', undefined],
  ['https://:443/', undefined],
  ['https://x.org\t/', 'parse "https://x.org\\t/": net/url: invalid control character in URL'],
  ['https://-x.org/', undefined],
  ['https://x_y.org/', undefined],
  ['https://1.2.3.4/', undefined],
  ['https://é.org/', undefined],
  ['ftp://x', 'scheme must be https'],
  ['', 'bundle endpoint URL is missing'],
];

describe('bundle endpoint URLs are checked as upstream checks them (Go net/url)', () => {
  it.each(GO)('%j', (url, problem) => {
    const problems = bundleEndpointUrlProblems(url);
    // Upstream's answer first; a URL it accepts has no problem at all.
    if (problem === undefined) expect(problems).toEqual([]);
    else expect(problems[0]).toBe(problem);
  });

  it('every reason at once, where upstream stops at the first', () => {
    expect(bundleEndpointUrlProblems('http://user@/x')).toEqual(['scheme must be https', 'host must be specified', 'cannot contain userinfo']);
  });

  it('a ClusterFederatedTrustDomain with an empty host is refused, naming the field', () => {
    const spec = { trustDomain: 'partner.org', bundleEndpointProfile: { type: 'https_web' } };
    expect(validateFederatedTrustDomain({ ...spec, bundleEndpointURL: 'https:///bundle' })).toEqual([{ field: 'spec.bundleEndpointURL', message: 'host must be specified' }]);
    expect(validateFederatedTrustDomain({ ...spec, bundleEndpointURL: 'https:/partner.org/bundle' })).toEqual([{ field: 'spec.bundleEndpointURL', message: 'host must be specified' }]);
    expect(validateFederatedTrustDomain({ ...spec, bundleEndpointURL: 'https://partner.org/bundle' })).toEqual([]);
  });
});
