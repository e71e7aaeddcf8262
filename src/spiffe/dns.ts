import { domainToUnicode } from 'node:url';

/** SPIRE's cause for a name ending in a dot (what an empty clusterDomain makes of `svc.{{ .ClusterDomain }}`). */
export const DOMAIN_ENDS_WITH_DOT = 'domain ends with dot';

/**
 * DNS name rules of a SPIRE server (x509util.ValidateLabel plus Go's idna
 * lookup profile as built with Go <= 1.26), returning the exact cause text,
 * or undefined when the name is accepted. Names are never normalised.
 */
export function dnsNameProblem(name: string): string | undefined {
  for (let i = 0; i < name.length; i++) {
    if (name.charCodeAt(i) >= 0x80) return 'name must be ascii';
  }
  let rest = name;
  const stars = name.split('*').length - 1;
  if (stars > 1) return 'too many wildcards';
  if (stars === 1) {
    if (!name.startsWith('*.')) return 'wildcard must be first label';
    rest = name.slice(2);
  }
  if (rest.trim() === '') return 'empty or only whitespace';
  if (rest.endsWith('.')) return DOMAIN_ENDS_WITH_DOT;
  return idnaProblem(rest);
}

function idnaProblem(name: string): string | undefined {
  const invalid = (label: string) => `idna error\nidna: invalid label "${label}"`;
  if (name.length > 253) return invalid(name);
  for (const label of name.split('.')) {
    if (label === '' || label.length > 63) return invalid(label);
    // "xn--" labels are punycode: Go decodes them and checks the decoded label instead. The prefix
    // is matched case-sensitively (names are not mapped first), so "XN--..." is an ordinary label
    // whose "--" at bytes 3-4 is refused below (seen on SPIRE v1.15.3).
    if (label.startsWith('xn--')) {
      // Node's IDNA returns a label it cannot decode unchanged.
      const decoded = domainToUnicode(label);
      if (decoded === '' || decoded.toLowerCase() === label.toLowerCase()) return invalid(label);
      if (decoded.normalize('NFC') !== decoded) return invalid(decoded);
      const problem = hyphenProblem(decoded);
      if (problem) return invalid(problem);
      continue;
    }
    const problem = hyphenProblem(label);
    if (problem) return invalid(problem);
  }
  return undefined;
}

/**
 * Go's idna CheckHyphens: no leading or trailing "-", and "--" at bytes 3-4
 * (reserved for IDNA prefixes) only in labels longer than 4 bytes.
 */
function hyphenProblem(label: string): string | undefined {
  if (label.length > 4 && label.slice(2, 4) === '--') return label;
  if (label.startsWith('-') || label.endsWith('-')) return label;
  return undefined;
}
