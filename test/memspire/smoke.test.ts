import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { SpireClient } from '../../src/spire/index.js';
import { startTestSpire, type TestSpire } from '../support/spire.js';

describe('the in-memory SPIRE server answers over its Unix socket', () => {
  let spire: TestSpire;
  beforeAll(async () => {
    spire = await startTestSpire();
  });
  afterAll(async () => {
    await spire.close();
  });

  it('creates an entry and lists it back', async () => {
    const created = await spire.raw.entry.BatchCreateEntry({
      entries: [
        {
          parent_id: { trust_domain: 'example.org', path: '/node' },
          spiffe_id: { trust_domain: 'example.org', path: '/w' },
          selectors: [{ type: 'k8s', value: 'ns:a' }],
        },
      ],
    });
    expect(created.results[0]?.status).toEqual({ code: 0, message: 'OK' });
    const listed = await spire.raw.entry.ListEntries({});
    expect(listed.entries.map((e) => e.id)).toEqual([created.results[0]?.entry?.id]);
  });
});

describe('the in-memory SPIRE server can behave like SPIRE before 1.8.0 and serve on several sockets', () => {
  const entry = (id: string, path: string) => ({
    id,
    parent_id: { trust_domain: 'example.org', path: '/node' },
    spiffe_id: { trust_domain: 'example.org', path },
    selectors: [{ type: 'k8s', value: `ns:${path.slice(1)}` }],
  });

  it('with ignoreRequestedEntryIds, a requested ID is neither checked nor kept', async () => {
    const spire = await startTestSpire({ ignoreRequestedEntryIds: true });
    try {
      const created = await spire.raw.entry.BatchCreateEntry({ entries: [entry('east.1', '/a'), entry('not valid!', '/b')] });
      expect(created.results.map((r) => r.status?.code)).toEqual([0, 0]);
      for (const r of created.results) expect(r.entry?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // A seed is a past state: its IDs stay.
      spire.server.seed({ entries: [entry('scm-seeded', '/c')] });
      expect(spire.server.entries.get('scm-seeded')).toBeDefined();
    } finally {
      await spire.close();
    }
  });

  it('serves one state on every socket, and records which socket each call and deletion came on', async () => {
    const spire = await startTestSpire();
    const second = `${spire.dir}/second.sock`;
    const both = await MemorySpireServer.start({ socketPath: `${spire.dir}/first.sock`, extraSocketPaths: [second] });
    const client = new SpireClient({ socket: second });
    try {
      await client.createEntries([entry('x.1', '/a')]);
      expect(both.entries.get('x.1')).toBeDefined();
      await client.deleteEntries(['x.1']);
      expect(both.deletions.map((d) => [d.socket, d.entry.id])).toEqual([[second, 'x.1']]);
      expect(new Set(both.calls.map((c) => c.socket))).toEqual(new Set([second]));
    } finally {
      client.close();
      await both.stop();
      await spire.close();
    }
  });
});
