/**
 * The SPIRE server the conformance suite runs against, chosen by environment:
 *
 * - default: a fresh in-memory server (src/memspire) for every test;
 * - `SPIRE_CONFORMANCE_SERVER=real`: a real spire-server (`SPIRE_SERVER_BIN`, or the
 *   one `npm run real-spire:install` built), started once per test file with our
 *   config (test/support/real-spire.ts) and emptied before every test;
 * - `SPIRE_CONFORMANCE_SOCKET=PATH`: the admin socket of a server someone else
 *   started, emptied before every test (every entry, federation relationship and
 *   federated bundle is deleted: never point it at a server whose state matters).
 *   `SPIRE_CONFORMANCE_TRUST_DOMAIN` (default example.org) and
 *   `SPIRE_CONFORMANCE_X509_SVID_TTL` (seconds, default 3600) describe it.
 */
import { afterAll } from 'vitest';
import { openRawStubs, startTestSpire, type RawStubs } from '../support/spire.js';
import { emptySpire, type RealSpire, startRealSpire } from '../support/real-spire.js';

export type TargetKind = 'memory' | 'real' | 'socket';

export function targetKind(): TargetKind {
  if (process.env.SPIRE_CONFORMANCE_SOCKET) return 'socket';
  if (process.env.SPIRE_CONFORMANCE_SERVER === 'real') return 'real';
  if (process.env.SPIRE_CONFORMANCE_SERVER && process.env.SPIRE_CONFORMANCE_SERVER !== 'memory') {
    throw new Error(`SPIRE_CONFORMANCE_SERVER must be "memory" or "real", not ${JSON.stringify(process.env.SPIRE_CONFORMANCE_SERVER)}`);
  }
  return 'memory';
}

/** The trust domain of the server under test. */
export const TARGET_TRUST_DOMAIN = targetKind() === 'socket' ? (process.env.SPIRE_CONFORMANCE_TRUST_DOMAIN ?? 'example.org') : 'example.org';

/** The server's default_x509_svid_ttl, in seconds. */
export const TARGET_DEFAULT_X509_SVID_TTL = Number(process.env.SPIRE_CONFORMANCE_X509_SVID_TTL ?? 3600);

export interface TargetServer {
  socketPath: string;
  raw: RawStubs;
  /** Ends the test's use of the server (a memory server stops; a shared one stays for the next test). */
  release(): Promise<void>;
}

/** A shared server for this test file (real or external), with stubs open on it. */
let shared: Promise<{ socketPath: string; raw: RawStubs; closeStubs(): void; real?: RealSpire }> | undefined;

function sharedServer() {
  shared ??= (async () => {
    if (targetKind() === 'socket') {
      const socketPath = process.env.SPIRE_CONFORMANCE_SOCKET as string;
      return { socketPath, ...openRawStubs(socketPath) };
    }
    const real = await startRealSpire({ trustDomain: TARGET_TRUST_DOMAIN });
    return { socketPath: real.socketPath, ...openRawStubs(real.socketPath), real };
  })();
  return shared;
}

// Registered while the test file is collected, so the shared server goes with the file.
afterAll(async () => {
  if (!shared) return;
  const s = await shared;
  shared = undefined;
  s.closeStubs();
  await s.real?.stop();
});

/** A server in a known empty state (only its own bundle), for one test. */
export async function acquireServer(): Promise<TargetServer> {
  if (targetKind() === 'memory') {
    const spire = await startTestSpire();
    return { socketPath: spire.socketPath, raw: spire.raw, release: () => spire.close() };
  }
  const s = await sharedServer();
  await emptySpire(s.raw);
  return { socketPath: s.socketPath, raw: s.raw, release: async () => {} };
}
