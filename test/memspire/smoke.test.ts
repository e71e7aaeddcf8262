import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
