/**
 * The webhook's `tlsConfig` (spire-controller-manager v0.8.0) over real
 * handshakes: a TLS client (node:tls, and `openssl s_client` where it is
 * installed) offers one version, one suite or one group at a time, and the
 * webhook serving a profile accepts exactly what the profile allows. How the
 * config file is read (names, refusals, warnings) is in
 * test/config/tls-config.test.ts.
 */
import { execFile, spawnSync } from 'node:child_process';
import { connect, type ConnectionOptions } from 'node:tls';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTlsConfig, type TlsConfigFields } from '../../src/api/tls-profile.js';
import { AdmissionServer } from '../../src/webhook/server.js';
import { issueFileCert } from './helpers.js';

const NAME = 'webhook.test';
let cert: Awaited<ReturnType<typeof issueFileCert>>;
const servers: AdmissionServer[] = [];

/** A webhook serving the test certificate (P-256: the ECDSA suites) with the profile `fields` configure. */
async function serving(fields: TlsConfigFields): Promise<number> {
  const read = readTlsConfig(fields);
  expect(read.errors).toEqual([]);
  const s = new AdmissionServer({ host: '127.0.0.1', port: 0, trustDomain: 'example.org', tls: read.profile, log: pino({ level: 'silent' }) });
  await s.install({ certPem: cert.crt, keyPem: cert.key, notAfter: new Date(Date.now() + 3600_000) });
  servers.push(s);
  return s.port;
}

interface Handshake {
  ok: boolean;
  protocol?: string | null;
  cipher?: string;
  /** The key exchange's group, as node:tls names it (not told for the ML-KEM hybrids). */
  group?: string;
  error?: string;
}

/** One handshake from node:tls offering only what `offer` says. */
function handshake(port: number, offer: Pick<ConnectionOptions, 'minVersion' | 'maxVersion' | 'ciphers' | 'ecdhCurve'>): Promise<Handshake> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ca: cert.caPem, servername: NAME, ...offer }, () => {
      const info = socket.getEphemeralKeyInfo() as { name?: string } | null;
      resolve({ ok: true, protocol: socket.getProtocol(), cipher: socket.getCipher().standardName, ...(info?.name ? { group: info.name } : {}) });
      socket.end();
    });
    socket.once('error', (err) => resolve({ ok: false, error: err.message }));
  });
}

const TLS12 = { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' } as const;
/**
 * A TLS 1.2 client's groups name the curves it takes certificates on too
 * (RFC 8422), so each offer adds P-256, the test certificate's: otherwise it
 * is refused whatever the profile, by Go as by OpenSSL. P-256 is the key
 * exchange only where the profile lists it.
 */
const tls12Groups = (group: string) => ({ ...TLS12, ecdhCurve: `${group}:P-256` });
const TLS13 = { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' } as const;

beforeAll(async () => {
  cert = await issueFileCert(undefined, NAME);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('without tlsConfig: TLS 1.2 at least, and the suites and groups Go offers by default', () => {
  let port: number;
  beforeAll(async () => {
    port = await serving({});
  });

  it('takes TLS 1.2 and 1.3, and refuses TLS 1.1 and 1.0', async () => {
    expect(await handshake(port, TLS12)).toMatchObject({ ok: true, protocol: 'TLSv1.2' });
    expect(await handshake(port, TLS13)).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
    for (const v of ['TLSv1.1', 'TLSv1'] as const) expect(await handshake(port, { minVersion: v, maxVersion: v, ciphers: 'DEFAULT@SECLEVEL=0' })).toMatchObject({ ok: false });
  });

  it('takes each group Go offers by default, and refuses one it does not (X448, ffdhe2048)', async () => {
    for (const group of ['X25519MLKEM768', 'SecP256r1MLKEM768', 'SecP384r1MLKEM1024', 'X25519', 'P-256', 'P-384', 'P-521']) {
      expect({ group, ...(await handshake(port, { ...TLS13, ecdhCurve: group })) }).toMatchObject({ group: expect.any(String), ok: true });
    }
    expect(await handshake(port, { ...TLS13, ecdhCurve: 'X448' })).toMatchObject({ ok: false });
    expect(await handshake(port, { ...TLS13, ecdhCurve: 'ffdhe2048' })).toMatchObject({ ok: false });
  });

  it('takes a TLS 1.2 suite Go offers by default, and refuses ones Go calls insecure or lacks (CBC with SHA-256, DHE)', async () => {
    expect(await handshake(port, { ...TLS12, ciphers: 'ECDHE-ECDSA-AES128-SHA' })).toMatchObject({ ok: true, cipher: 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA' });
    expect(await handshake(port, { ...TLS12, ciphers: 'ECDHE-ECDSA-AES128-SHA256' })).toMatchObject({ ok: false });
    expect(await handshake(port, { ...TLS12, ciphers: 'ECDHE-ECDSA-AES256-SHA384' })).toMatchObject({ ok: false });
  });
});

describe('minTLSVersion', () => {
  it('VersionTLS13: a TLS 1.2 client is refused, a TLS 1.3 one connects', async () => {
    const port = await serving({ minTLSVersion: 'VersionTLS13' });
    expect(await handshake(port, TLS12)).toMatchObject({ ok: false });
    expect(await handshake(port, TLS13)).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
  });

  it('VersionTLS12: both connect', async () => {
    const port = await serving({ minTLSVersion: 'VersionTLS12' });
    expect(await handshake(port, TLS12)).toMatchObject({ ok: true, protocol: 'TLSv1.2' });
    expect(await handshake(port, TLS13)).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
  });
});

describe('cipherSuites (Go names) choose the TLS 1.2 suites; TLS 1.3 keeps its own', () => {
  let port: number;
  beforeAll(async () => {
    port = await serving({ cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305'] });
  });

  it('a listed suite connects, under its Go name', async () => {
    expect(await handshake(port, { ...TLS12, ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' })).toMatchObject({ ok: true, cipher: 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384' });
    // The CHACHA20 alias component-base keeps, as upstream reads it.
    expect(await handshake(port, { ...TLS12, ciphers: 'ECDHE-ECDSA-CHACHA20-POLY1305' })).toMatchObject({ ok: true, cipher: 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256' });
  });

  it('one left out is refused', async () => {
    expect(await handshake(port, { ...TLS12, ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' })).toMatchObject({ ok: false });
  });

  it('TLS 1.3 is untouched', async () => {
    expect(await handshake(port, TLS13)).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
  });

  it('TLS 1.3 suites alone leave no TLS 1.2 suite: only TLS 1.3 clients connect, as with Go', async () => {
    const only13 = await serving({ cipherSuites: ['TLS_AES_128_GCM_SHA256'] });
    expect(await handshake(only13, TLS12)).toMatchObject({ ok: false });
    expect(await handshake(only13, TLS13)).toMatchObject({ ok: true });
  });
});

describe('curvePreferences (IANA names) choose the groups, in TLS 1.2 and 1.3', () => {
  let port: number;
  beforeAll(async () => {
    port = await serving({ curvePreferences: ['X25519MLKEM768', 'secp384r1'] });
  });

  it('a listed group connects: the ML-KEM hybrid over TLS 1.3, the classical curve over both', async () => {
    expect(await handshake(port, { ...TLS13, ecdhCurve: 'X25519MLKEM768' })).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
    expect(await handshake(port, { ...TLS13, ecdhCurve: 'P-384' })).toMatchObject({ ok: true, group: expect.stringMatching(/384/) });
    expect(await handshake(port, tls12Groups('P-384'))).toMatchObject({ ok: true, protocol: 'TLSv1.2', group: expect.stringMatching(/384/) });
  });

  it('a group left out is refused, in TLS 1.2 and 1.3', async () => {
    for (const group of ['X25519', 'P-256', 'P-521', 'SecP256r1MLKEM768']) expect(await handshake(port, { ...TLS13, ecdhCurve: group })).toMatchObject({ ok: false });
    for (const group of ['X25519', 'P-521']) expect(await handshake(port, tls12Groups(group))).toMatchObject({ ok: false });
  });

  it('with minTLSVersion VersionTLS13, the hybrids alone are enough', async () => {
    const pq = await serving({ minTLSVersion: 'VersionTLS13', curvePreferences: ['x25519mlkem768'] });
    expect(await handshake(pq, { ...TLS13, ecdhCurve: 'X25519MLKEM768' })).toMatchObject({ ok: true });
    expect(await handshake(pq, { ...TLS13, ecdhCurve: 'X25519' })).toMatchObject({ ok: false });
  });
});

/** `openssl s_client`, when installed: another TLS stack than the one serving. Its OpenSSL may predate ML-KEM, so the classical groups only. */
const openssl = spawnSync('openssl', ['version'], { encoding: 'utf8' });
const hasOpenssl = openssl.status === 0;

/** Whether `openssl s_client` completes a handshake: run apart, since the webhook serving it runs in this process. */
function sClient(port: number, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = execFile('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', NAME, '-brief', ...args], { encoding: 'utf8', timeout: 15_000 }, (err, _stdout, stderr) => {
      resolve(!err && /CONNECTION ESTABLISHED/.test(stderr));
    });
    child.stdin?.end();
  });
}

describe.skipIf(!hasOpenssl)(`openssl s_client (${hasOpenssl ? openssl.stdout.trim() : 'not installed'})`, () => {
  it('versions: the profile\'s least and above connect, below it is refused', async () => {
    const port = await serving({ minTLSVersion: 'VersionTLS13' });
    expect(await sClient(port, ['-tls1_3'])).toBe(true);
    expect(await sClient(port, ['-tls1_2'])).toBe(false);
    const any = await serving({});
    expect(await sClient(any, ['-tls1_2'])).toBe(true);
    expect(await sClient(any, ['-tls1_1', '-cipher', 'DEFAULT@SECLEVEL=0'])).toBe(false);
  });

  it('groups: each listed one connects, the others are refused', async () => {
    const port = await serving({ curvePreferences: ['X25519', 'secp521r1'] });
    for (const [group, ok] of [['X25519', true], ['P-521', true], ['P-256', false], ['P-384', false]] as const) {
      const tls12 = group === 'P-256' ? [] : [await sClient(port, ['-tls1_2', '-groups', `${group}:P-256`])];
      expect({ group, tls13: await sClient(port, ['-tls1_3', '-groups', group]), tls12 }).toEqual({ group, tls13: ok, tls12: group === 'P-256' ? [] : [ok] });
    }
  });

  it('suites: a listed TLS 1.2 suite connects, another is refused', async () => {
    const port = await serving({ cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'] });
    expect(await sClient(port, ['-tls1_2', '-cipher', 'ECDHE-ECDSA-AES128-GCM-SHA256'])).toBe(true);
    expect(await sClient(port, ['-tls1_2', '-cipher', 'ECDHE-ECDSA-AES256-GCM-SHA384'])).toBe(false);
  });
});
