/**
 * The admission webhook's `tlsConfig` (spire-controller-manager v0.8.0, its
 * pull request #725: https://github.com/spiffe/spire-controller-manager/pull/725,
 * pkg/common/tlspolicy/tlspolicy.go), read as upstream reads it and turned
 * into what Node's TLS server takes (OpenSSL's names).
 *
 * Upstream's rules, each kept here:
 * - minTLSVersion: Kubernetes' names (k8s.io/component-base cli/flag
 *   TLSVersion): VersionTLS12 or VersionTLS13; VersionTLS10 and VersionTLS11
 *   are names it knows and refuses ("must be VersionTLS12 or higher"). Unset:
 *   TLS 1.2.
 * - cipherSuites: Go's names (crypto/tls CipherSuites and
 *   InsecureCipherSuites, and component-base's two CHACHA20 aliases). An
 *   insecure suite is left out with a log line, not refused; if none is
 *   left, the defaults apply. TLS 1.3 suites are accepted and configure
 *   nothing (Go does not let TLS 1.3 suites be chosen). With minTLSVersion
 *   VersionTLS13 the whole list is ignored, with a log line.
 * - curvePreferences: IANA group names, case-insensitive (secp256r1,
 *   secp384r1, secp521r1, X25519, X25519MLKEM768, SecP256r1MLKEM768,
 *   SecP384r1MLKEM1024), or a decimal TLS group ID Go knows; empty items are
 *   skipped; a duplicate is refused. Below TLS 1.3 the list must hold a
 *   classical curve: the ML-KEM hybrids are TLS 1.3 only.
 * Anything it cannot read stops the process at start; so does it here, with
 * the field, the value and the nearest valid name.
 *
 * Unset fields take Go's defaults (crypto/tls, Go 1.26, which v0.8.0 is built
 * with), not Node's: the webhook offers what upstream's offers.
 */
import { nearestName } from './suggest.js';

export interface TlsConfigFields {
  minTLSVersion?: string;
  cipherSuites?: string[];
  curvePreferences?: string[];
}

/** What the webhook's TLS server is given (node:tls SecureContextOptions' names). */
export interface WebhookTlsProfile {
  minVersion: 'TLSv1.2' | 'TLSv1.3';
  /** OpenSSL's cipher list for TLS 1.2 (TLS 1.3's suites stay OpenSSL's, as Go's stay Go's). */
  ciphers: string;
  /** OpenSSL's group list, in preference order. */
  ecdhCurve: string;
}

/** Go 1.26's TLS 1.2 suites, secure ones (crypto/tls CipherSuites), with OpenSSL's names, in Go's preference order. */
const SECURE_TLS12: ReadonlyMap<string, string> = new Map([
  ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'ECDHE-ECDSA-AES128-GCM-SHA256'],
  ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE-RSA-AES128-GCM-SHA256'],
  ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'ECDHE-ECDSA-AES256-GCM-SHA384'],
  ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'ECDHE-RSA-AES256-GCM-SHA384'],
  ['TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', 'ECDHE-ECDSA-CHACHA20-POLY1305'],
  ['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', 'ECDHE-RSA-CHACHA20-POLY1305'],
  ['TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', 'ECDHE-ECDSA-AES128-SHA'],
  ['TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', 'ECDHE-RSA-AES128-SHA'],
  ['TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA', 'ECDHE-ECDSA-AES256-SHA'],
  ['TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA', 'ECDHE-RSA-AES256-SHA'],
]);

/** component-base's names for the CHACHA20 suites before Go 1.14 named them `_SHA256`. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256'],
  ['TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
]);

/** Go's TLS 1.3 suites: always on, in Go as in OpenSSL, whatever the list says. */
const TLS13 = new Set(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256']);

/** Go 1.26's crypto/tls InsecureCipherSuites: known, and left out. */
const INSECURE = new Set([
  'TLS_RSA_WITH_RC4_128_SHA',
  'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA',
  'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_RSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
]);

interface Group {
  /** Upstream's (IANA's) name. */
  name: string;
  /** The TLS group ID (crypto/tls CurveID). */
  id: number;
  /** OpenSSL's name. */
  openssl: string;
  /** The ML-KEM hybrids: TLS 1.3 only. */
  tls13Only: boolean;
}

/** The groups Go 1.26 knows, in its default preference order (crypto/tls defaultCurvePreferences). */
const GROUPS: readonly Group[] = [
  { name: 'X25519MLKEM768', id: 4588, openssl: 'X25519MLKEM768', tls13Only: true },
  { name: 'SecP256r1MLKEM768', id: 4587, openssl: 'SecP256r1MLKEM768', tls13Only: true },
  { name: 'SecP384r1MLKEM1024', id: 4589, openssl: 'SecP384r1MLKEM1024', tls13Only: true },
  { name: 'X25519', id: 29, openssl: 'X25519', tls13Only: false },
  { name: 'secp256r1', id: 23, openssl: 'P-256', tls13Only: false },
  { name: 'secp384r1', id: 24, openssl: 'P-384', tls13Only: false },
  { name: 'secp521r1', id: 25, openssl: 'P-521', tls13Only: false },
];

/**
 * Other names of the NIST curves (Go's constants, OpenSSL's, the earlier
 * drafts of upstream's change), which upstream refuses: named here only to
 * say which name it takes.
 */
const OTHER_CURVE_NAMES: ReadonlyMap<string, string> = new Map([
  ['curvep256', 'secp256r1'],
  ['p256', 'secp256r1'],
  ['p-256', 'secp256r1'],
  ['prime256v1', 'secp256r1'],
  ['curvep384', 'secp384r1'],
  ['p384', 'secp384r1'],
  ['p-384', 'secp384r1'],
  ['curvep521', 'secp521r1'],
  ['p521', 'secp521r1'],
  ['p-521', 'secp521r1'],
]);

const VERSIONS = ['VersionTLS12', 'VersionTLS13'] as const;
const REFUSED_VERSIONS = ['VersionTLS10', 'VersionTLS11'];

/** Unset: TLS 1.2 at least, and Go's default suites and groups. */
export const DEFAULT_WEBHOOK_TLS: WebhookTlsProfile = {
  minVersion: 'TLSv1.2',
  ciphers: [...SECURE_TLS12.values()].join(':'),
  ecdhCurve: GROUPS.map((g) => g.openssl).join(':'),
};

/** The cipher suite names upstream takes, for messages and docs. */
function knownCipherSuites(): string[] {
  return [...SECURE_TLS12.keys(), ...ALIASES.keys(), ...TLS13, ...INSECURE];
}

/** The curve names upstream takes. */
function knownCurves(): string[] {
  return GROUPS.map((g) => g.name);
}

interface ReadTlsConfig {
  profile: WebhookTlsProfile;
  /** `tlsConfig.<field>: <reason>`: the process must not start. */
  errors: string[];
  /** What upstream logs and goes on without (an insecure suite left out, suites ignored under TLS 1.3). */
  warnings: string[];
}

/** Reads a tlsConfig block (its fields already type-checked) as upstream reads it. */
export function readTlsConfig(fields: TlsConfigFields, at = 'tlsConfig'): ReadTlsConfig {
  const errors: string[] = [];
  const warnings: string[] = [];
  const profile: WebhookTlsProfile = { ...DEFAULT_WEBHOOK_TLS };

  const version = fields.minTLSVersion;
  if (version !== undefined && version !== '') {
    if ((VERSIONS as readonly string[]).includes(version)) profile.minVersion = version === 'VersionTLS13' ? 'TLSv1.3' : 'TLSv1.2';
    else if (REFUSED_VERSIONS.includes(version)) errors.push(`${at}.minTLSVersion: "${version}" is below VersionTLS12, the least the webhook serves (spire-controller-manager refuses it too)`);
    else errors.push(`${at}.minTLSVersion: "${version}" is not a TLS version: ${VERSIONS.join(' or ')}${didYouMean(version, VERSIONS)}`);
  }

  const suites = fields.cipherSuites ?? [];
  if (suites.length > 0) {
    if (profile.minVersion === 'TLSv1.3') {
      warnings.push(`${at}.cipherSuites: ignored, since minTLSVersion is VersionTLS13 (TLS 1.3's suites are not configurable, in Go as here)`);
    } else {
      const ciphers = readCipherSuites(suites, `${at}.cipherSuites`, errors, warnings);
      if (ciphers === 'tls13-only') {
        // Go then has no TLS 1.2 suite in common with any client: TLS 1.2 handshakes fail, TLS 1.3 ones work.
        warnings.push(`${at}.cipherSuites: lists TLS 1.3 suites only, which configure nothing; no TLS 1.2 suite is left, so only TLS 1.3 clients connect (as with spire-controller-manager)`);
        profile.minVersion = 'TLSv1.3';
      } else if (ciphers.length > 0) profile.ciphers = ciphers.join(':');
      else if (errors.length === 0) warnings.push(`${at}.cipherSuites: no secure suite is left, so Go's default suites are offered (as spire-controller-manager does)`);
    }
  }

  const curves = fields.curvePreferences ?? [];
  if (curves.length > 0) {
    const groups = readCurves(curves, `${at}.curvePreferences`, errors);
    if (groups.length > 0) {
      if (profile.minVersion !== 'TLSv1.3' && groups.every((g) => g.tls13Only)) {
        errors.push(
          `${at}.curvePreferences: ${groups.map((g) => g.name).join(', ')} ${groups.length === 1 ? 'is' : 'are'} TLS 1.3 only: list a classical curve too (X25519, secp256r1, secp384r1 or secp521r1), or set minTLSVersion: VersionTLS13`,
        );
      }
      profile.ecdhCurve = groups.map((g) => g.openssl).join(':');
    }
  }
  return { profile, errors, warnings };
}

/** OpenSSL's names of the TLS 1.2 suites given, or 'tls13-only' when only TLS 1.3 suites are. */
function readCipherSuites(names: readonly string[], at: string, errors: string[], warnings: string[]): string[] | 'tls13-only' {
  const out: string[] = [];
  let tls13 = 0;
  names.forEach((name, i) => {
    const go = ALIASES.get(name) ?? name;
    const openssl = SECURE_TLS12.get(go);
    if (openssl) {
      if (!out.includes(openssl)) out.push(openssl);
    } else if (TLS13.has(name)) tls13++;
    else if (INSECURE.has(name)) warnings.push(`${at}[${i}]: ${name} is insecure (Go's InsecureCipherSuites), left out as spire-controller-manager leaves it out`);
    else errors.push(`${at}[${i}]: "${name}" is not a cipher suite Go knows${didYouMean(name, knownCipherSuites())}`);
  });
  // Upstream leaves the insecure suites out first: TLS 1.3 suites and insecure ones alone leave no TLS 1.2 suite.
  return out.length === 0 && tls13 > 0 ? 'tls13-only' : out;
}

function readCurves(names: readonly string[], at: string, errors: string[]): Group[] {
  const out: Group[] = [];
  names.forEach((raw, i) => {
    const name = raw.trim();
    if (name === '') return;
    const group = curveNamed(name, `${at}[${i}]`, errors);
    if (!group) return;
    if (out.includes(group)) errors.push(`${at}[${i}]: ${group.name} is listed twice`);
    else out.push(group);
  });
  return out;
}

function curveNamed(name: string, at: string, errors: string[]): Group | undefined {
  const lower = name.toLowerCase();
  const byName = GROUPS.find((g) => g.name.toLowerCase() === lower);
  if (byName) return byName;
  if (/^[+-]?\d+$/.test(name)) {
    const id = Number(name);
    if (id <= 0 || id > 65535) {
      errors.push(`${at}: curve ID ${name} is out of range (1-65535)`);
      return undefined;
    }
    const byId = GROUPS.find((g) => g.id === id);
    if (!byId) errors.push(`${at}: curve ID ${id} is not a group Go knows (${GROUPS.map((g) => `${g.id} ${g.name}`).join(', ')})`);
    return byId;
  }
  const meant = OTHER_CURVE_NAMES.get(lower);
  const names = knownCurves();
  errors.push(`${at}: "${name}" is not a curve spire-controller-manager knows: ${names.join(', ')}, or a decimal group ID${meant ? ` (did you mean ${meant}?)` : didYouMean(name, names)}`);
  return undefined;
}

function didYouMean(word: string, known: Iterable<string>): string {
  const near = nearestName(word, known);
  return near ? ` (did you mean ${near}?)` : '';
}
