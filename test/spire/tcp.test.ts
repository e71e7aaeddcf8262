import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { type Entry, SpireClient, SpireConnectError, SpireRpcError } from '../../src/spire/index.js';
import { createCertificateAuthority } from '../../src/memspire/ca.js';
import { toPem } from '../../src/workloadapi/der.js';
import { spiffeTransport, X509Source } from '../../src/workloadapi/index.js';
import { CONTROLLER_ID, startWorkloadApi, type TestWorkloadApi, until } from '../support/workload-api.js';

const td = 'example.org';

function entry(i: number, overrides: Partial<Entry> = {}): Entry {
  return {
    parent_id: { trust_domain: td, path: '/spire/agent/k8s_psat/demo/node-1' },
    spiffe_id: { trust_domain: td, path: `/ns/default/sa/app-${i}` },
    selectors: [{ type: 'k8s', value: `pod-uid:uid-${i}` }],
    ...overrides,
  };
}

/** An entry for the controller itself, as `spire-reconciler bootstrap` makes it (admin or not). */
function controllerEntry(admin: boolean): Entry {
  return entry(0, { spiffe_id: { trust_domain: td, path: '/spire-reconciler' }, selectors: [{ type: 'k8s', value: 'sa:spire-reconciler' }], admin });
}

/** A loopback port nothing listens on (bound, read and released). */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

describe("SpireClient over the SPIRE server's TCP port with SPIFFE mTLS", () => {
  let t: TestWorkloadApi | undefined;
  let source: X509Source | undefined;
  const clients: SpireClient[] = [];
  const extra: { close(): Promise<void> | void }[] = [];

  async function setUp(opts: Parameters<typeof startWorkloadApi>[0] = {}, adminIds: string[] = [CONTROLLER_ID]) {
    t = await startWorkloadApi({ ...opts, spire: { tcp: { adminIds }, ...opts.spire } });
    source = new X509Source({ socket: t.socketPath, trustDomain: td, backoff: { minMs: 50, maxMs: 200 } });
    return t;
  }
  function client(address: string, more: { serverId?: string; rpcTimeoutMs?: number } = {}): SpireClient {
    const c = new SpireClient({ transport: spiffeTransport(source!, { address, ...(more.serverId ? { serverId: more.serverId } : {}) }), rpcTimeoutMs: more.rpcTimeoutMs ?? 5000 });
    clients.push(c);
    return c;
  }
  const tcpCalls = () => t!.spire.calls.filter((c) => c.socket.startsWith('tcp:'));

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    source?.close();
    source = undefined;
    for (const e of extra.splice(0)) await e.close();
    await t?.close();
    t = undefined;
  });

  it('an admin by admin_ids lists, creates and deletes entries; the server sees its SPIFFE ID', async () => {
    const { spire } = await setUp();
    const spireClient = client(spire.tcpAddress!);
    expect(spireClient.where).toBe(`${spire.tcpAddress} (SPIFFE mTLS)`);
    expect(spireClient.socketPath).toBe('');
    const created = await spireClient.createEntries([entry(1), entry(2)]);
    expect(created.results.map((r) => r.status.codeName)).toEqual(['OK', 'OK']);
    expect((await spireClient.listEntries()).map((e) => e.spiffe_id?.path).sort()).toEqual(['/ns/default/sa/app-1', '/ns/default/sa/app-2']);
    const deleted = await spireClient.deleteEntries([created.results[0]!.entry!.id]);
    expect(deleted.results[0]?.status.ok).toBe(true);
    expect(spire.entries.size).toBe(1);
    const calls = tcpCalls();
    expect(calls.map((c) => c.method)).toEqual(['BatchCreateEntry', 'ListEntries', 'ListEntries', 'BatchDeleteEntry']);
    for (const c of calls) expect(c.caller).toEqual({ spiffeId: CONTROLLER_ID, serialNumber: source!.svid()!.serialNumber });
  });

  it('an admin by its entry (admin: true) is allowed too, as SPIRE allows it', async () => {
    const { spire } = await setUp({}, []);
    spire.seed({ entries: [controllerEntry(true)] });
    expect(await client(spire.tcpAddress!).countEntries()).toBe(1);
  });

  it("a caller that is not admin gets SPIRE's PERMISSION_DENIED, in one line; GetBundle stays open to it", async () => {
    const { spire } = await setUp({}, []);
    spire.seed({ entries: [controllerEntry(false)] });
    const spireClient = client(spire.tcpAddress!);
    const err = (await spireClient.listEntries().catch((e: unknown) => e)) as SpireRpcError;
    expect(err).toBeInstanceOf(SpireRpcError);
    expect(err.message).toBe(
      `SPIRE Entry.ListEntries failed: PERMISSION_DENIED on ${spire.tcpAddress} (SPIFFE mTLS): authorization denied for method /spire.api.server.entry.v1.Entry/ListEntries`,
    );
    expect((await spireClient.getBundle()).trust_domain).toBe(td);
    expect(tcpCalls().map((c) => [c.method, c.denied ?? false])).toEqual([
      ['ListEntries', true],
      ['GetBundle', false],
    ]);
  });

  it('refuses a server that presents another SPIFFE ID, naming both', async () => {
    const { spire } = await setUp();
    const spireClient = client(spire.tcpAddress!, { serverId: `spiffe://${td}/not-spire`, rpcTimeoutMs: 1500 });
    const err = (await spireClient.countEntries().catch((e: unknown) => e)) as SpireRpcError;
    expect(err.codeName).toBe('DEADLINE_EXCEEDED');
    expect(err.message).toContain(
      `; the server presented spiffe://${td}/spire/server, not spiffe://${td}/not-spire (spireServerID): it is not the SPIRE server this controller is configured for`,
    );
    expect(err.message).not.toContain('\n');
    expect(tcpCalls()).toEqual([]);
    const waited = await spireClient.waitUntilReady({ timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(waited).toBeInstanceOf(SpireConnectError);
    expect((waited as Error).message).toBe(
      `SPIRE server not reachable at ${spire.tcpAddress} (SPIFFE mTLS) after 1s: the server presented spiffe://${td}/spire/server, not spiffe://${td}/not-spire (spireServerID): it is not the SPIRE server this controller is configured for`,
    );
  });

  it('refuses a server whose certificate another CA of the same trust domain signed: only the bundle is trusted', async () => {
    await setUp();
    // A second SPIRE server of the same trust domain name, with its own CA.
    const dir = mkdtempSync(join(tmpdir(), 'other-spire-'));
    const other = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: td, tcp: { adminIds: [CONTROLLER_ID] } });
    extra.push({ close: async () => (await other.stop(), rmSync(dir, { recursive: true, force: true })) });
    const err = (await client(other.tcpAddress!, { rpcTimeoutMs: 1500 }).countEntries().catch((e: unknown) => e)) as SpireRpcError;
    expect(err.message).toMatch(/; the server's certificate does not verify against the X\.509 authorities of example\.org from the Workload API: .+$/);
    expect(other.calls).toEqual([]);
  });

  it('an agent that serves only an expired bundle leaves nothing to present: the call fails naming it', async () => {
    const { spire } = await setUp({ mode: 'expired-bundle' });
    await until(() => source!.problem !== undefined, 'the expired bundle to be reported');
    const err = (await client(spire.tcpAddress!, { rpcTimeoutMs: 1000 }).countEntries().catch((e: unknown) => e)) as SpireRpcError;
    expect(err.codeName).toBe('DEADLINE_EXCEEDED');
    expect(err.message).toMatch(/; no SVID to present: every X\.509 authority the SPIRE agent at \S+ gave for example\.org has expired \(the last at \S+Z\): is the agent connected to the SPIRE server\?$/);
    expect(tcpCalls()).toEqual([]);
  });

  it('says so when the server drops the connection after the handshake, refusing our certificate', async () => {
    const { spire } = await setUp();
    await source!.ready();
    // The SPIRE server's own certificate, but client certificates checked against a CA that signed none of ours.
    // Node closes such a connection after the handshake; a SPIRE server sends the alert "bad certificate" (seen on v1.15.3).
    const stranger = await createCertificateAuthority(td, 3600);
    const svid = spire.serverSvid!;
    const refusing = createTlsServer({
      key: toPem('PRIVATE KEY', [svid.privateKey]),
      cert: toPem('CERTIFICATE', svid.certChain),
      ca: toPem('CERTIFICATE', [stranger.der]),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    });
    refusing.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    extra.push({ close: () => new Promise<void>((resolve) => refusing.close(() => resolve())) });
    const address = `127.0.0.1:${(refusing.address() as { port: number }).port}`;
    const err = (await client(address, { rpcTimeoutMs: 1500 }).countEntries().catch((e: unknown) => e)) as SpireRpcError;
    expect(err.message.endsWith(`; ${address} closed the connection after the TLS handshake: it may not accept the SVID presented`)).toBe(true);
  });

  it('says "connection refused" when nothing listens on the port', async () => {
    await setUp();
    await source!.ready();
    const address = `127.0.0.1:${await closedPort()}`;
    const err = (await client(address, { rpcTimeoutMs: 1500 }).countEntries().catch((e: unknown) => e)) as SpireRpcError;
    expect(err.message).toMatch(new RegExp(`^SPIRE Entry\\.CountEntries failed: DEADLINE_EXCEEDED on ${address} \\(SPIFFE mTLS\\): .*; connection refused by ${address}: is the SPIRE server running, and is this its bind_port\\?$`));
  });

  it('waits until the server comes up, then reaches it (waitUntilReady over TCP)', async () => {
    const { spire } = await setUp();
    const address = spire.tcpAddress!;
    await spire.stop();
    const spireClient = client(address);
    let settled = false;
    const ready = spireClient.waitUntilReady({ timeoutMs: 20_000 }).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 500));
    expect(settled).toBe(false);
    await spire.resume();
    await ready;
    expect(await spireClient.countEntries()).toBe(0);
  });
});

describe('no call fails because of a rotation', () => {
  it('calls run without pause across several rotations of a 3 s SVID: none fails, each connection presents a live SVID', async () => {
    const t = await startWorkloadApi({ ttlSeconds: 3, rotateAfter: 0.4, spire: { tcp: { adminIds: [CONTROLLER_ID] } } });
    const source = new X509Source({ socket: t.socketPath, trustDomain: td, backoff: { minMs: 50, maxMs: 200 } });
    const spireClient = new SpireClient({ transport: spiffeTransport(source, { address: t.spire.tcpAddress! }), rpcTimeoutMs: 5000 });
    try {
      t.spire.seed({ entries: Array.from({ length: 50 }, (_, i) => entry(i)) });
      await source.ready();
      const failures: string[] = [];
      let done = 0;
      const stopAt = Date.now() + 7000;
      // Four callers in a loop: lists (several pages) and counts, so calls are in flight at every rotation.
      await Promise.all(
        Array.from({ length: 4 }, async (_, worker) => {
          while (Date.now() < stopAt) {
            try {
              if (worker % 2 === 0) expect(await spireClient.listEntries({ pageSize: 10 })).toHaveLength(50);
              else expect(await spireClient.countEntries()).toBe(50);
              done++;
            } catch (err) {
              failures.push((err as Error).message);
            }
          }
        }),
      );
      expect(failures).toEqual([]);
      expect(done).toBeGreaterThan(50);
      const issued = new Map(t.api.issued.map((s) => [s.serialNumber, s]));
      const seen = new Set(t.spire.calls.map((c) => c.caller?.serialNumber));
      // At least four SVIDs were presented, each one the fake issued.
      expect(seen.size).toBeGreaterThanOrEqual(4);
      for (const serial of seen) expect(issued.has(serial!)).toBe(true);
      // No call arrived on a connection whose certificate had expired.
      for (const c of t.spire.calls) expect(c.at).toBeLessThan(issued.get(c.caller!.serialNumber)!.notAfter.getTime());
      expect(spireClient.connections).toBeGreaterThanOrEqual(4);
    } finally {
      spireClient.close();
      source.close();
      await t.close();
    }
  }, 30_000);
});

