import { domainToUnicode } from 'node:url';

/** SPIRE's cause for a name ending in a dot (what an empty clusterDomain makes of `svc.{{ .ClusterDomain }}`). */
export const DOMAIN_ENDS_WITH_DOT = 'domain ends with dot';

/**
 * Why a SPIRE server refuses a DNS name: its cause text, and for an IDNA
 * refusal the label it names. The cause is the same for every name refused
 * for that reason; the label is the name's own.
 */
interface DnsNameRefusal {
  cause: string;
  label?: string;
}

/** SPIRE's cause for a label that fails the IDNA lookup profile; its message then names the label. */
const IDNA_ERROR = 'idna error';

/**
 * DNS name rules of a SPIRE server (x509util.ValidateLabel plus Go's idna
 * lookup profile as built with Go <= 1.26), or undefined when the name is
 * accepted. Names are never normalised.
 */
export function dnsNameRefusal(name: string): DnsNameRefusal | undefined {
  for (let i = 0; i < name.length; i++) {
    if (name.charCodeAt(i) >= 0x80) return { cause: 'name must be ascii' };
  }
  let rest = name;
  const stars = name.split('*').length - 1;
  if (stars > 1) return { cause: 'too many wildcards' };
  if (stars === 1) {
    if (!name.startsWith('*.')) return { cause: 'wildcard must be first label' };
    rest = name.slice(2);
  }
  if (rest.trim() === '') return { cause: 'empty or only whitespace' };
  if (rest.endsWith('.')) return { cause: DOMAIN_ENDS_WITH_DOT };
  const label = invalidLabel(rest);
  return label === undefined ? undefined : { cause: IDNA_ERROR, label };
}

/** The exact cause text a SPIRE server gives for the name, or undefined when it accepts it. */
export function dnsNameProblem(name: string): string | undefined {
  const r = dnsNameRefusal(name);
  if (r === undefined) return undefined;
  return r.label === undefined ? r.cause : `${r.cause}\nidna: invalid label "${r.label}"`;
}

/** The label (as Go's idna names it) that the lookup profile refuses, or undefined. */
function invalidLabel(name: string): string | undefined {
  if (name.length > 253) return name;
  for (const label of name.split('.')) {
    if (label === '' || label.length > 63) return label;
    // "xn--" labels are punycode: Go decodes them and checks the decoded label instead. The prefix
    // is matched case-sensitively (names are not mapped first), so "XN--..." is an ordinary label
    // whose "--" at bytes 3-4 is refused below, as SPIRE v1.15.3 refuses it.
    if (label.startsWith('xn--')) {
      // Node's IDNA returns a label it cannot decode unchanged.
      const decoded = domainToUnicode(label);
      if (decoded === '' || decoded.toLowerCase() === label.toLowerCase()) return label;
      if (decoded.normalize('NFC') !== decoded) return decoded;
      const problem = hyphenProblem(decoded);
      if (problem) return problem;
      continue;
    }
    const problem = hyphenProblem(label);
    if (problem) return problem;
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
