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
  if (rest.endsWith('.')) return 'domain ends with dot';
  return idnaProblem(rest);
}

function idnaProblem(name: string): string | undefined {
  const invalid = (label: string) => `idna error\nidna: invalid label "${label}"`;
  if (name.length > 253) return invalid(name);
  for (const label of name.split('.')) {
    if (label === '' || label.length > 63) return invalid(label);
    if (label.startsWith('-') || label.endsWith('-')) return invalid(label);
    // "ab--" in positions 3-4 is reserved for IDNA prefixes; "xn--" is punycode and decoded instead.
    if (label.length >= 4 && label.slice(2, 4) === '--' && !label.toLowerCase().startsWith('xn--')) {
      return invalid(label);
    }
  }
  return undefined;
}
