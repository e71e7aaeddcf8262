/**
 * How the config file's `tlsConfig` (spire-controller-manager v0.8.0) is
 * read: upstream's names, its refusals and what it logs and goes on
 * without. Each refusal names the key, the value and the nearest valid name.
 * The handshakes each profile allows are in test/webhook/tls-config.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/api/index.js';

const BASE = 'trustDomain: example.org\nclusterName: demo\n';

function load(tlsConfig: string) {
  return parseConfig(`${BASE}tlsConfig:\n${tlsConfig}`, 'config.yaml');
}

function problems(tlsConfig: string): string[] {
  try {
    load(tlsConfig);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('tlsConfig as upstream documents it', () => {
  it("is at the top of the file; upstream's example loads, with no warning", () => {
    const { config, warnings } = load(
      '  minTLSVersion: VersionTLS12\n  cipherSuites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]\n  curvePreferences: [X25519MLKEM768, X25519, secp256r1, secp384r1]\n',
    );
    expect(warnings).toEqual([]);
    expect(config.webhookTls).toEqual({
      minVersion: 'TLSv1.2',
      ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384',
      ecdhCurve: 'X25519MLKEM768:X25519:P-256:P-384',
    });
  });

  it('unset, or empty, is TLS 1.2 at least with Go\'s default suites and groups', () => {
    const unset = parseConfig(BASE, 'config.yaml').config.webhookTls;
    expect(unset.minVersion).toBe('TLSv1.2');
    expect(unset.ecdhCurve).toBe('X25519MLKEM768:SecP256r1MLKEM768:SecP384r1MLKEM1024:X25519:P-256:P-384:P-521');
    expect(unset.ciphers.split(':')).toHaveLength(10);
    expect(load('  {}\n').config.webhookTls).toEqual(unset);
    // A partial profile sets only what it gives.
    expect(load('  minTLSVersion: VersionTLS13\n').config.webhookTls).toEqual({ ...unset, minVersion: 'TLSv1.3' });
  });

  it('curve names are case-insensitive; decimal group IDs are taken; empty items are skipped', () => {
    expect(load('  curvePreferences: [x25519, SECP521R1, "23", "  ", "4588"]\n').config.webhookTls.ecdhCurve).toBe('X25519:P-521:P-256:X25519MLKEM768');
  });

  it('the CHACHA20 suites answer to their older names too', () => {
    expect(load('  cipherSuites: [TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305]\n').config.webhookTls.ciphers).toBe('ECDHE-RSA-CHACHA20-POLY1305');
  });
});

describe('what upstream logs and goes on without', () => {
  it('an insecure suite is left out; none left means the defaults', () => {
    const { config, warnings } = load('  cipherSuites: [TLS_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]\n');
    expect(config.webhookTls.ciphers).toBe('ECDHE-ECDSA-AES128-GCM-SHA256');
    expect(warnings).toEqual(["tlsConfig.cipherSuites[0]: TLS_RSA_WITH_AES_128_GCM_SHA256 is insecure (Go's InsecureCipherSuites), left out as spire-controller-manager leaves it out"]);
    const none = load('  cipherSuites: [TLS_ECDHE_RSA_WITH_RC4_128_SHA]\n');
    expect(none.config.webhookTls.ciphers.split(':')).toHaveLength(10);
    expect(none.warnings.at(-1)).toMatch(/no secure suite is left, so Go's default suites are offered/);
  });

  it('with minTLSVersion VersionTLS13, cipherSuites are ignored', () => {
    const { warnings } = load('  minTLSVersion: VersionTLS13\n  cipherSuites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]\n');
    expect(warnings).toEqual(['tlsConfig.cipherSuites: ignored, since minTLSVersion is VersionTLS13 (TLS 1.3\'s suites are not configurable, in Go as here)']);
  });
});

describe('an invalid value refuses to start, naming the key, the value and the nearest valid name', () => {
  it('minTLSVersion', () => {
    expect(problems('  minTLSVersion: VersionTLS31\n')).toEqual(['tlsConfig.minTLSVersion: "VersionTLS31" is not a TLS version: VersionTLS12 or VersionTLS13 (did you mean VersionTLS13?)']);
    expect(problems('  minTLSVersion: "1.3"\n')).toEqual(['tlsConfig.minTLSVersion: "1.3" is not a TLS version: VersionTLS12 or VersionTLS13']);
    expect(problems('  minTLSVersion: VersionTLS11\n')).toEqual(['tlsConfig.minTLSVersion: "VersionTLS11" is below VersionTLS12, the least the webhook serves (spire-controller-manager refuses it too)']);
  });

  it('cipherSuites', () => {
    expect(problems('  cipherSuites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA265]\n')).toEqual([
      'tlsConfig.cipherSuites[0]: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA265" is not a cipher suite Go knows (did you mean TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256?)',
    ]);
    // OpenSSL's names are not Go's.
    expect(problems('  cipherSuites: [ECDHE-ECDSA-AES128-GCM-SHA256]\n')[0]).toMatch(/^tlsConfig\.cipherSuites\[0\]: "ECDHE-ECDSA-AES128-GCM-SHA256" is not a cipher suite Go knows/);
  });

  it('curvePreferences: unknown names (Go\'s and OpenSSL\'s among them), IDs Go does not know, duplicates', () => {
    expect(problems('  curvePreferences: [CurveP256]\n')).toEqual([
      'tlsConfig.curvePreferences[0]: "CurveP256" is not a curve spire-controller-manager knows: X25519MLKEM768, SecP256r1MLKEM768, SecP384r1MLKEM1024, X25519, secp256r1, secp384r1, secp521r1, or a decimal group ID (did you mean secp256r1?)',
    ]);
    expect(problems('  curvePreferences: [P-384]\n')[0]).toMatch(/\(did you mean secp384r1\?\)$/);
    expect(problems('  curvePreferences: [X2551]\n')[0]).toMatch(/\(did you mean X25519\?\)$/);
    expect(problems('  curvePreferences: ["9999"]\n')[0]).toMatch(/^tlsConfig\.curvePreferences\[0\]: curve ID 9999 is not a group Go knows \(4588 X25519MLKEM768, /);
    expect(problems('  curvePreferences: ["999999"]\n')).toEqual(['tlsConfig.curvePreferences[0]: curve ID 999999 is out of range (1-65535)']);
    expect(problems('  curvePreferences: [X25519, "29"]\n')).toEqual(['tlsConfig.curvePreferences[1]: X25519 is listed twice']);
  });

  it('below TLS 1.3 the groups must hold a classical curve: the ML-KEM hybrids are TLS 1.3 only', () => {
    expect(problems('  curvePreferences: [X25519MLKEM768]\n')).toEqual([
      'tlsConfig.curvePreferences: X25519MLKEM768 is TLS 1.3 only: list a classical curve too (X25519, secp256r1, secp384r1 or secp521r1), or set minTLSVersion: VersionTLS13',
    ]);
    expect(problems('  minTLSVersion: VersionTLS13\n  curvePreferences: [X25519MLKEM768]\n')).toEqual([]);
  });

  it('a misspelt key is named with the nearest one', () => {
    const { warnings } = load('  minTlsVersion: VersionTLS13\n');
    expect(warnings).toEqual(['tlsConfig.minTlsVersion: unknown field, ignored (did you mean minTLSVersion?)']);
  });
});
