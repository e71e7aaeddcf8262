/**
 * The standalone controller's way to SPIRE, every program real: a SPIRE
 * server with its TCP listener on loopback, a SPIRE agent attested with a
 * join token serving the Workload API (unix workload attestor), and this
 * test process as the workload (selector unix:uid:<our uid>). Checks what
 * the fakes of test/workloadapi/ and test/spire/tcp.test.ts assume.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Entry, SpireClient, SpireRpcError } from '../../src/spire/index.js';
import { spiffeTransport, type WorkloadApiProblem, type X509Context, X509Source } from '../../src/workloadapi/index.js';
import { probeServer } from '../../src/workloadapi/probe.js';
import { type RealAgent, startRealAgent } from '../support/real-spire-agent.js';
import { type RealSpire, spireAgentBinary, startRealSpire } from '../support/real-spire.js';
import { until } from '../support/workload-api.js';

const td = 'example.org';
const ADMIN_ID = `spiffe://${td}/spire-reconciler`;
const PLAIN_ID = `spiffe://${td}/not-an-admin`;
/** The admin entry's X.509 SVID TTL: short, so that it rotates several times while the test runs. */
const SHORT_TTL = 30;

const agentMissing = !existsSync(spireAgentBinary());
if (agentMissing) console.warn(`SKIPPED: test/real-spire/workload-api.test.ts needs spire-agent at ${spireAgentBinary()} (npm run real-spire:install -- --agent)`);

describe.skipIf(agentMissing)('the Workload API and SPIFFE mTLS against a real SPIRE server and agent', () => {
  let server: RealSpire;
  let agent: RealAgent;
  let admin: SpireClient;
  let source: X509Source;
  let tcp: SpireClient;
  const problems: (WorkloadApiProblem | undefined)[] = [];
  /** The first context with the admin SVID, kept past its expiry. */
  let firstAdmin: X509Context | undefined;
  const uid = process.getuid?.() ?? 0;

  const entryFor = (id: string, extra: Partial<Entry> = {}): Entry => {
    const path = new URL(id).pathname;
    return { spiffe_id: { trust_domain: td, path }, parent_id: { trust_domain: td, path: new URL(agent.agentId).pathname }, selectors: [{ type: 'unix', value: `uid:${uid}` }], ...extra };
  };

  beforeAll(async () => {
    server = await startRealSpire({ trustDomain: td });
    agent = await startRealAgent(server);
    admin = new SpireClient({ socket: server.socketPath });
    source = new X509Source({ socket: agent.socketPath, trustDomain: td, backoff: { minMs: 200, maxMs: 1000 } });
    source.onProblem((p) => problems.push(p));
    tcp = new SpireClient({ transport: spiffeTransport(source, { address: server.address }), rpcTimeoutMs: 10_000 });
  }, 120_000);

  afterAll(async () => {
    tcp?.close();
    source?.close();
    admin?.close();
    await agent?.stop();
    await server?.stop();
  });

  it('with no entry for this process, the agent answers "no identity issued", classified as such', async () => {
    await until(() => source.problem !== undefined, 'the first answer', 30_000);
    expect(source.problem).toMatchObject({
      cause: 'no-identity',
      message: `the SPIRE agent at ${agent.socketPath} issued no identity to this process (PERMISSION_DENIED "no identity issued"): the controller's admin entry is missing or not yet synced to the agent; create it with \`spire-reconciler bootstrap\``,
    });
    expect(source.current()).toBeUndefined();
  });

  it("an entry that is not admin: its SVID comes, and the server's TCP port denies the admin API in SPIRE's words", async () => {
    const created = await admin.createEntries([entryFor(PLAIN_ID)]);
    expect(created.results[0]?.status.codeName).toBe('OK');
    await source.ready();
    await until(() => source.svid()?.spiffeId === PLAIN_ID, 'the plain SVID', 30_000);
    const err = (await tcp.listEntries().catch((e: unknown) => e)) as SpireRpcError;
    expect(err).toBeInstanceOf(SpireRpcError);
    expect(err.message).toBe(`SPIRE Entry.ListEntries failed: PERMISSION_DENIED on ${server.address} (SPIFFE mTLS): authorization denied for method /spire.api.server.entry.v1.Entry/ListEntries`);
    // GetBundle is open to any caller.
    expect((await tcp.getBundle()).trust_domain).toBe(td);
    await admin.deleteEntries([created.results[0]!.entry!.id]);
  }, 60_000);

  it('the admin entry: over TCP the same client lists, creates and deletes entries', async () => {
    await admin.createEntries([entryFor(ADMIN_ID, { admin: true, x509_svid_ttl: SHORT_TTL })]);
    await until(() => source.svid()?.spiffeId === ADMIN_ID, 'the admin SVID', 30_000);
    firstAdmin = source.current();
    const listed = await tcp.listEntries();
    expect(listed.map((e) => e.spiffe_id?.path)).toEqual(['/spire-reconciler']);
    const made = await tcp.createEntries([entryFor(`spiffe://${td}/workload`, { selectors: [{ type: 'unix', value: 'uid:4242' }] })]);
    expect(made.results[0]?.status.codeName).toBe('OK');
    expect(await admin.countEntries()).toBe(2);
    const gone = await tcp.deleteEntries([made.results[0]!.entry!.id]);
    expect(gone.results[0]?.status.ok).toBe(true);
    expect(await admin.countEntries()).toBe(1);
  }, 60_000);

  it(`the ${SHORT_TTL} s SVID rotates while calls go on: none fails, each new SVID comes before the old expires`, async () => {
    const rotations: { serial: string; at: number; notAfter: number; previousNotAfter: number }[] = [];
    let previous = source.svid()!;
    const stop = source.onUpdate((c) => {
      const svid = c?.svids[0];
      if (!svid || svid.serialNumber === previous.serialNumber) return;
      rotations.push({ serial: svid.serialNumber, at: Date.now(), notAfter: svid.notAfter.getTime(), previousNotAfter: previous.notAfter.getTime() });
      previous = svid;
    });
    const failures: string[] = [];
    let calls = 0;
    const stopAt = Date.now() + 40_000;
    try {
      await Promise.all(
        Array.from({ length: 2 }, async () => {
          while (Date.now() < stopAt) {
            try {
              await tcp.listEntries();
              calls++;
            } catch (err) {
              failures.push((err as Error).message);
            }
            await new Promise((r) => setTimeout(r, 50));
          }
        }),
      );
    } finally {
      stop();
    }
    console.log(
      `real SPIRE rotation: ${rotations.length} rotations of a ${SHORT_TTL} s SVID in 40 s, ${calls} calls, ${failures.length} failed; ` +
        `each new SVID came ${rotations.map((r) => Math.round((r.previousNotAfter - r.at) / 1000)).join(', ')} s before the old one expired`,
    );
    expect(failures).toEqual([]);
    expect(rotations.length).toBeGreaterThanOrEqual(2);
    for (const r of rotations) expect(r.at).toBeLessThan(r.previousNotAfter);
    expect(tcp.connections).toBeGreaterThanOrEqual(rotations.length);
  }, 90_000);

  it('a new connection with an expired SVID is refused at the handshake, and the probe names the alert', async () => {
    const expired = firstAdmin!;
    expect(expired.svids[0]!.notAfter.getTime()).toBeLessThan(Date.now());
    const [host, port] = server.address.split(':') as [string, string];
    const t = spiffeTransport(source, { address: server.address });
    const why = await probeServer(expired, { host, port: Number(port), servername: td, trustDomain: td, checkServerIdentity: t.mtls.checkServerIdentity });
    expect(why).toBe('the server refused the TLS handshake (alert "bad certificate"): it did not accept the SVID presented');
    t.mtls.close();
    // The current SVID passes the same probe.
    expect(await probeServer(source.current()!, { host, port: Number(port), servername: td, trustDomain: td, checkServerIdentity: t.mtls.checkServerIdentity })).toBeUndefined();
  });

  it('the problems along the way were the classified ones, and none is left', () => {
    expect(new Set(problems.filter((p) => p).map((p) => p!.cause))).toEqual(new Set(['no-identity']));
    expect(source.problem).toBeUndefined();
  });
});
