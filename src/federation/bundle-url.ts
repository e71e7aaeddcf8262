import { errorMessage } from '../api/index.js';

/**
 * A bundle endpoint URL checked as spire-controller-manager checks it
 * (pkg/spireapi ValidateBundleEndpointURL): parsed by Go's net/url, then the
 * scheme must be https, the host non-empty, and no userinfo. The WHATWG URL
 * parser JavaScript has would read `https:///bundle` as host `bundle` and
 * `https:/partner.org/bundle` as host `partner.org`, where Go (and so
 * upstream and SPIRE) finds no host at all; so this follows the steps of Go's
 * url.Parse that decide scheme, userinfo and host, and its errors. Returns
 * the reasons the URL is refused, in upstream's words and order (upstream
 * stops at the first; every one is reported here), or none.
 */
export function bundleEndpointUrlProblems(raw: string): string[] {
  if (raw === '') return ['bundle endpoint URL is missing'];
  let parsed: GoUrl;
  try {
    parsed = parseGoUrl(raw);
  } catch (err) {
    return [`parse ${JSON.stringify(raw)}: ${errorMessage(err)}`];
  }
  const problems: string[] = [];
  if (parsed.scheme !== 'https') problems.push('scheme must be https');
  if (parsed.host === '') problems.push('host must be specified');
  if (parsed.hasUserinfo) problems.push('cannot contain userinfo');
  return problems;
}

interface GoUrl {
  scheme: string;
  host: string;
  hasUserinfo: boolean;
}

class UrlError extends Error {}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

function parseGoUrl(raw: string): GoUrl {
  const hash = raw.indexOf('#');
  const withoutFragment = hash === -1 ? raw : raw.slice(0, hash);
  if (CONTROL.test(withoutFragment)) throw new UrlError('net/url: invalid control character in URL');
  const { scheme, rest: afterScheme } = splitScheme(withoutFragment);
  const q = afterScheme.indexOf('?');
  const rest = q === -1 ? afterScheme : afterScheme.slice(0, q);
  const out: GoUrl = { scheme: scheme.toLowerCase(), host: '', hasUserinfo: false };
  if (!rest.startsWith('/')) {
    // `https:partner.org` is an opaque URL: no authority, so no host.
    if (scheme !== '') {
      if (hash !== -1) checkEscapes(raw.slice(hash + 1));
      return out;
    }
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon !== -1 && (slash === -1 || colon < slash)) throw new UrlError('first path segment in URL cannot contain colon');
  }
  let path = rest;
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const authorityAndPath = rest.slice(2);
    const slash = authorityAndPath.indexOf('/');
    const authority = slash === -1 ? authorityAndPath : authorityAndPath.slice(0, slash);
    path = slash === -1 ? '' : authorityAndPath.slice(slash);
    const at = authority.lastIndexOf('@');
    if (at !== -1) {
      if (!/^[A-Za-z0-9\-._~!$&'()*+,;=:%@]*$/.test(authority.slice(0, at))) throw new UrlError('net/url: invalid userinfo');
      out.hasUserinfo = true;
    }
    out.host = parseHost(authority.slice(at + 1));
  }
  checkEscapes(path);
  if (hash !== -1) checkEscapes(raw.slice(hash + 1));
  return out;
}

/** Go's getScheme: letters first, then letters, digits, `+`, `-`, `.`, up to a `:`; anything else means no scheme. */
function splitScheme(raw: string): { scheme: string; rest: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return { scheme: '', rest: raw };
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new UrlError('missing protocol scheme');
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: '', rest: raw };
  }
  return { scheme: '', rest: raw };
}

function parseHost(host: string): string {
  let name = host;
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close === -1) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${JSON.stringify(colonPort)} after host`);
    name = host.slice(1, close);
  } else {
    const colon = host.lastIndexOf(':');
    if (colon !== -1) {
      const colonPort = host.slice(colon);
      if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${JSON.stringify(colonPort)} after host`);
    }
  }
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (c === '%') {
      // In a host Go accepts only escapes of bytes >= 0x80 (and %25).
      const esc = name.slice(i, i + 3);
      if (!/^%[0-9A-Fa-f]{2}$/.test(esc) || (parseInt(esc.slice(1, 2), 16) < 8 && esc !== '%25')) throw new UrlError(`invalid URL escape ${JSON.stringify(esc)}`);
      i += 2;
    } else if (c.charCodeAt(0) < 0x80 && !/[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]/.test(c)) {
      throw new UrlError(`invalid character ${JSON.stringify(c)} in host name`);
    }
  }
  return host;
}

function validOptionalPort(colonPort: string): boolean {
  return colonPort === '' || /^:[0-9]*$/.test(colonPort);
}

/** Go refuses a `%` not followed by two hex digits in a path or fragment. */
function checkEscapes(s: string): void {
  for (let i = s.indexOf('%'); i !== -1; i = s.indexOf('%', i + 1)) {
    const esc = s.slice(i, i + 3);
    if (!/^%[0-9A-Fa-f]{2}$/.test(esc)) throw new UrlError(`invalid URL escape ${JSON.stringify(esc)}`);
  }
}
