import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { type Entry, SpireClient, SpireConnectError, SpireRpcError, parseSocket } from '../../src/spire/index.js';
import { startTestSpire, type TestSpire } from '../support/spire.js';

const td = 'example.org';

function entry(i: number, overrides: Partial<Entry> = {}): Entry {
  return {
    parent_id: { trust_domain: td, path: '/spire/agent/k8s_psat/demo/node-1' },
    spiffe_id: { trust_domain: td, path: `/ns/default/sa/app-${i}` },
    selectors: [{ type: 'k8s', value: `pod-uid:uid-${i}` }],
    ...overrides,
  };
}

describe('the SPIRE client talks to a SPIRE server over its Unix socket', () => {
  let spire: TestSpire;
  let client: SpireClient;

  beforeEach(async () => {
    spire = await startTestSpire();
    client = new SpireClient({ socket: `unix://${spire.socketPath}`, rpcTimeoutMs: 5000 });
  });
  afterEach(async () => {
    client.close();
    await spire.close();
  });

  it('lists 1,000 entries in pages of 200 and returns every entry exactly once', async () => {
    spire.server.seed({ entries: Array.from({ length: 1000 }, (_, i) => entry(i)) });
    const listed = await client.listEntries();
    const ids = listed.map((e) => e.id);
    expect(ids).toHaveLength(1000);
    expect(new Set(ids).size).toBe(1000);
    expect(new Set(ids)).toEqual(new Set(spire.server.entries.all().map((e) => e.id)));
    const pages = spire.server.calls.filter((c) => c.method === 'ListEntries');
    // Five full pages, then the empty page that ends the walk (spire-semantics §1.4).
    expect(pages.map((c) => c.items)).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it('stops paging at an empty page even if the server sends a token with it', async () => {
    spire.server.seed({ entries: [entry(1), entry(2), entry(3)] });
    const pages: number[] = [];
    for await (const page of client.entryPages({ pageSize: 2 })) pages.push(page.length);
    expect(pages).toEqual([2, 1]);
    expect(spire.server.calls.filter((c) => c.method === 'ListEntries')).toHaveLength(3);
  });

  it('splits 480 creates into batches of 200, 200 and 80 and puts each per-item error on its own item', async () => {
    spire.server.seed({ entries: [entry(7)] });
    const entries = Array.from({ length: 480 }, (_, i) => entry(1000 + i));
    entries[3] = entry(3, { spiffe_id: { trust_domain: td, path: 'no-leading-slash' } });
    entries[64] = entry(7); // similar to the seeded entry
    entries[479] = entry(479, { spiffe_id: { trust_domain: 'other.org', path: '/w' } });

    const outcome = await client.createEntries(entries);

    expect(spire.server.calls.filter((c) => c.method === 'BatchCreateEntry').map((c) => c.items)).toEqual([200, 200, 80]);
    expect(outcome.rpcError).toBeUndefined();
    expect(outcome.results).toHaveLength(480);
    const failures = outcome.results.flatMap((r, i) => (r.status.ok ? [] : [[i, r.status.codeName, r.status.message]]));
    expect(failures).toEqual([
      [3, 'INVALID_ARGUMENT', 'failed to convert entry: invalid spiffe ID: path must have a leading slash'],
      [64, 'ALREADY_EXISTS', 'similar entry already exists'],
      [
        479,
        'INVALID_ARGUMENT',
        'failed to convert entry: invalid spiffe ID: "spiffe://other.org/w" is not a member of trust domain "example.org"',
      ],
    ]);
    // The similar-entry result carries the existing entry, so the caller can adopt its ID.
    expect(outcome.results[64]?.entry?.id).toBe(spire.server.entries.all()[0]?.id);
    expect(spire.server.entries.size).toBe(1 + 477);
  });

  it('uses the configured batch sizes for updates and deletes', async () => {
    const small = new SpireClient({ socket: spire.socketPath, batchSizes: { updateEntries: 7, deleteEntries: 4 } });
    try {
      const created = await small.createEntries(Array.from({ length: 10 }, (_, i) => entry(i)));
      const stored = created.results.map((r) => r.entry!);
      const updated = await small.updateEntries(stored.map((e) => ({ ...e, dns_names: ['a.example.org'] })));
      expect(updated.results.every((r) => r.status.ok && r.entry?.dns_names[0] === 'a.example.org')).toBe(true);
      const deleted = await small.deleteEntries([...stored.map((e) => e.id), 'missing']);
      expect(deleted.results.map((r) => r.status.code)).toEqual([...Array(10).fill(0), 5]);
      expect(spire.server.calls.filter((c) => c.method === 'BatchUpdateEntry').map((c) => c.items)).toEqual([7, 3]);
      expect(spire.server.calls.filter((c) => c.method === 'BatchDeleteEntry').map((c) => c.items)).toEqual([4, 4, 3]);
    } finally {
      small.close();
    }
  });

  it('lists entries exactly as GetEntry returns them (list pages have a decoder of their own)', async () => {
    spire.server.seed({
      entries: [
        entry(1, { dns_names: ['a.example', 'b.example'], x509_svid_ttl: 3600, jwt_svid_ttl: 300, hint: 'web' }),
        entry(2, { downstream: true, admin: true, store_svid: true, expires_at: '4102444800' }),
      ],
    });
    const listed = await client.listEntries();
    expect(listed).toHaveLength(2);
    for (const e of listed) expect(e).toEqual(await client.getEntry(e.id));
    expect(listed.find((e) => e.downstream)).toMatchObject({ admin: true, store_svid: true, expires_at: '4102444800', dns_names: [] });
  });

  it('tells an observer about every call, with its method, code and duration', async () => {
    const seen: [string, string][] = [];
    const observed = new SpireClient({ socket: spire.socketPath, observe: (rpc, code, seconds) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      seen.push([rpc, code]);
    } });
    try {
      await observed.countEntries();
      await observed.getEntry('nope').catch(() => undefined);
      await observed.listEntries();
      expect(seen).toEqual([
        ['Entry.CountEntries', 'OK'],
        ['Entry.GetEntry', 'NOT_FOUND'],
        ['Entry.ListEntries', 'OK'],
      ]);
    } finally {
      observed.close();
    }
  });

  it('gets and counts entries', async () => {
    spire.server.seed({ entries: [entry(1), entry(2, { downstream: true })] });
    const [first] = spire.server.entries.all();
    expect((await client.getEntry(first!.id)).spiffe_id).toEqual({ trust_domain: td, path: '/ns/default/sa/app-1' });
    expect(await client.countEntries()).toBe(2);
    expect(await client.countEntries({ by_downstream: { value: true } })).toBe(1);
    await expect(client.getEntry('nope')).rejects.toThrow('SPIRE Entry.GetEntry failed: NOT_FOUND');
  });

  it('fails a call on a stalled server with DEADLINE_EXCEEDED once the configured deadline passes', async () => {
    const quick = new SpireClient({ socket: spire.socketPath, rpcTimeoutMs: 300 });
    try {
      await quick.countEntries(); // connected before the stall
      spire.server.faults.stall();
      const err = await quick.countEntries().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SpireRpcError);
      expect(err).toMatchObject({ rpc: 'Entry.CountEntries', codeName: 'DEADLINE_EXCEEDED', where: spire.socketPath });
      expect((err as Error).message).toMatch(/^SPIRE Entry\.CountEntries failed: DEADLINE_EXCEEDED on \/.*api\.sock/);
      expect((err as Error).message).not.toContain('\n');
    } finally {
      spire.server.faults.release();
      quick.close();
    }
  });

  it('reports a whole-batch failure on every item: the failed batch as unknown, later batches as not sent', async () => {
    const sequential = new SpireClient({ socket: spire.socketPath, batchSizes: { createEntries: 50, writeConcurrency: 1 } });
    spire.server.faults.failNext(1, 14, { method: 'BatchCreateEntry', message: 'server shutting down' });
    const outcome = await sequential.createEntries(Array.from({ length: 60 }, (_, i) => entry(i)));
    sequential.close();
    expect(outcome.rpcError?.codeName).toBe('UNAVAILABLE');
    expect(outcome.results).toHaveLength(60);
    expect(outcome.results[0]?.status.message).toMatch(/^outcome unknown: SPIRE Entry.BatchCreateEntry failed: UNAVAILABLE/);
    expect(outcome.results[59]?.status.message).toMatch(/^not sent: an earlier batch failed/);
    expect(spire.server.entries.size).toBe(0);
  });

  it('sends batches in parallel, up to writeConcurrency at once, with results in input order', async () => {
    const fifties = new SpireClient({ socket: spire.socketPath, batchSizes: { createEntries: 50 } });
    spire.server.faults.stall();
    const run = fifties.createEntries(Array.from({ length: 300 }, (_, i) => entry(i)));
    await new Promise((r) => setTimeout(r, 150));
    // Six batches of 50; four are in flight while the server holds them.
    expect(spire.server.calls.filter((c) => c.method === 'BatchCreateEntry')).toHaveLength(4);
    spire.server.faults.release();
    const outcome = await run;
    fifties.close();
    expect(spire.server.calls.filter((c) => c.method === 'BatchCreateEntry')).toHaveLength(6);
    expect(outcome.results.map((r) => r.entry?.spiffe_id?.path)).toEqual(Array.from({ length: 300 }, (_, i) => `/ns/default/sa/app-${i}`));
  });

  it('lets batches already in flight finish when one fails: only batches not yet started are not sent', async () => {
    const fifties = new SpireClient({ socket: spire.socketPath, batchSizes: { createEntries: 50 } });
    spire.server.faults.stall();
    const run = fifties.createEntries(Array.from({ length: 300 }, (_, i) => entry(i)));
    while (spire.server.calls.filter((c) => c.method === 'BatchCreateEntry').length < 4) await new Promise((r) => setTimeout(r, 10));
    spire.server.faults.failNext(1, 14, { method: 'BatchCreateEntry', message: 'server shutting down' });
    spire.server.faults.release();
    const outcome = await run;
    fifties.close();
    const said = (prefix: string) => outcome.results.filter((r) => r.status.message.startsWith(prefix)).length;
    expect(outcome.rpcError?.codeName).toBe('UNAVAILABLE');
    expect({ ok: outcome.results.filter((r) => r.status.ok).length, unknown: said('outcome unknown: '), notSent: said('not sent: an earlier batch failed') }).toEqual({
      ok: 150,
      unknown: 50,
      notSent: 100,
    });
    expect(outcome.results.slice(200).every((r) => r.status.message.startsWith('not sent: '))).toBe(true);
    expect(spire.server.entries.size).toBe(150);
  });

  it('sends no further batch once its signal is aborted (e.g. leadership lost)', async () => {
    const abort = new AbortController();
    const sequential = new SpireClient({ socket: spire.socketPath, batchSizes: { createEntries: 50, writeConcurrency: 1 } });
    spire.server.faults.stall();
    const run = sequential.createEntries(Array.from({ length: 120 }, (_, i) => entry(i)), { signal: abort.signal });
    await new Promise((r) => setTimeout(r, 100));
    abort.abort(new Error('leadership lost'));
    spire.server.faults.release();
    const outcome = await run;
    expect(spire.server.calls.filter((c) => c.method === 'BatchCreateEntry').map((c) => c.items)).toEqual([50]);
    expect(outcome.results.filter((r) => r.status.ok)).toHaveLength(50);
    expect(outcome.results[50]?.status.message).toBe('not sent: leadership lost');
    expect(spire.server.entries.size).toBe(50);
    sequential.close();
  });

  it('reaches a SPIRE server restarted on the same socket without a new client', async () => {
    spire.server.seed({ entries: [entry(1)] });
    expect(await client.countEntries()).toBe(1);
    await spire.server.stop();
    const during = client.countEntries();
    await new Promise((r) => setTimeout(r, 200));
    await spire.server.resume();
    expect(await during).toBe(1);
    expect(await client.countEntries()).toBe(1);
  });

  it('survives the server dropping every connection', async () => {
    expect(await client.countEntries()).toBe(0);
    await spire.server.dropConnections();
    expect(await client.countEntries()).toBe(0);
  });

  it('manages federation relationships and reads bundles', async () => {
    const created = await client.createFederationRelationships([
      { trust_domain: 'a.test', bundle_endpoint_url: 'https://a.test/bundle', https_web: {} },
      { trust_domain: 'b.test', bundle_endpoint_url: 'http://b.test', https_web: {} },
    ]);
    expect(created.results.map((r) => r.status.code)).toEqual([0, 3]);
    const updated = await client.updateFederationRelationships([
      { trust_domain: 'a.test', bundle_endpoint_url: 'https://a.test/v2', https_spiffe: { endpoint_spiffe_id: 'spiffe://a.test/server' } },
    ]);
    expect(updated.results[0]?.relationship).toMatchObject({
      bundle_endpoint_url: 'https://a.test/v2',
      bundle_endpoint_profile: 'https_spiffe',
    });
    const listed = await client.listFederationRelationships();
    expect(listed.map((fr) => fr.trust_domain)).toEqual(['a.test']);
    const deleted = await client.deleteFederationRelationships(['spiffe://a.test', 'nope.test']);
    expect(deleted.results.map((r) => [r.trustDomain, r.status.code])).toEqual([
      ['a.test', 0],
      ['nope.test', 5],
    ]);

    const own = await client.getBundle();
    expect(own.trust_domain).toBe(td);
    expect(own.x509_authorities).toHaveLength(1);
    expect(await client.listFederatedBundles()).toEqual([]);
  });
});

describe('the SPIRE client explains an unreachable socket in one line', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'spire-missing-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('says that the socket file does not exist', async () => {
    const socket = join(dir, 'api.sock');
    const client = new SpireClient({ socket, rpcTimeoutMs: 300 });
    try {
      const err = (await client.countEntries().catch((e: unknown) => e)) as SpireRpcError;
      expect(err).toBeInstanceOf(SpireRpcError);
      expect(err.message).toContain(`no socket file at ${socket}`);
      expect(err.message).not.toContain('\n');
    } finally {
      client.close();
    }
  });

  it('gives up waiting for readiness with a clear error', async () => {
    const socket = join(dir, 'api.sock');
    const client = new SpireClient({ socket });
    try {
      const err = await client.waitUntilReady({ timeoutMs: 300 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SpireConnectError);
      expect((err as Error).message).toBe(`SPIRE server not reachable at ${socket} after 0s: no socket file at ${socket} (is the SPIRE server running?)`);
    } finally {
      client.close();
    }
  });

  it('waits at start-up for a SPIRE server that comes up later', async () => {
    const socket = join(dir, 'api.sock');
    const client = new SpireClient({ socket });
    let server: MemorySpireServer | undefined;
    try {
      let settled = false;
      const ready = client.waitUntilReady({ timeoutMs: 20_000 }).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 500));
      expect(settled).toBe(false);
      server = await MemorySpireServer.start({ socketPath: socket });
      await ready;
      expect(await client.countEntries()).toBe(0);
    } finally {
      client.close();
      await server?.stop();
    }
  });
});

describe('SPIRE socket addresses are read as upstream reads them', () => {
  it.each([
    ['/spire-server/api.sock', 'unix:///spire-server/api.sock', '/spire-server/api.sock'],
    ['unix:///run/spire/api.sock', 'unix:///run/spire/api.sock', '/run/spire/api.sock'],
    ['unix:/run/spire/api.sock', 'unix:///run/spire/api.sock', '/run/spire/api.sock'],
  ])('%s', (input, target, path) => {
    expect(parseSocket(input)).toEqual({ target, path });
  });

  it('refuses a relative path', () => {
    expect(() => parseSocket('api.sock')).toThrow('SPIRE socket "api.sock" must be an absolute path or unix:///absolute/path');
  });
});
