import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textWithoutManagedFields } from '../../src/kube/managed-fields.js';
import { listAll } from '../../src/kube/rest.js';
import { FakeKubeApiServer } from '../support/kube/index.js';

const cut = (json: string) => textWithoutManagedFields(Buffer.from(json));

/** The same value with every metadata.managedFields deleted, as the cache keeps it. */
function withoutMetadataManagedFields(value: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(value)) as { items?: { metadata?: Record<string, unknown> }[] };
  for (const item of copy.items ?? []) delete item.metadata?.managedFields;
  return copy;
}

describe('lists are parsed without managedFields, and nothing else changes', () => {
  it('cuts the member wherever it sits in the object, with its comma', () => {
    const fields = '[{"manager":"m","fieldsV1":{"f:spec":{"f:x":{}}}},{"manager":"n"}]';
    expect(cut(`{"metadata":{"name":"a","managedFields":${fields},"uid":"u"}}`)).toBe('{"metadata":{"name":"a","uid":"u"}}');
    expect(cut(`{"metadata":{"managedFields":${fields},"uid":"u"}}`)).toBe('{"metadata":{"uid":"u"}}');
    expect(cut(`{"metadata":{"name":"a","managedFields":${fields}}}`)).toBe('{"metadata":{"name":"a"}}');
    expect(cut(`{"metadata":{"managedFields":${fields}}}`)).toBe('{"metadata":{}}');
    expect(cut(`{"metadata":{"managedFields":[]},"x":1}`)).toBe('{"metadata":{},"x":1}');
  });

  it('skips brackets, braces and escaped quotes inside strings of the managedFields', () => {
    const tricky = '[{"manager":"a]}\\"[{","fieldsV1":{"k:{\\"name\\":\\"main\\"}":{".":{}},"f:\\\\":{}}}]';
    const body = `{"items":[{"metadata":{"name":"p","managedFields":${tricky},"uid":"u"}},{"metadata":{"name":"q","managedFields":${tricky}}}]}`;
    const text = cut(body);
    expect(JSON.parse(text)).toEqual(withoutMetadataManagedFields(JSON.parse(body)));
    expect(text).not.toContain('manager');
  });

  it('leaves the text "managedFields" alone where it is not a key: in values, in other keys, with whitespace', () => {
    const bodies = [
      '{"metadata":{"annotations":{"note":"\\"managedFields\\":[1,2]"},"name":"a"}}',
      '{"spec":{"x\\"managedFields":[1,2]},"name":"a"}',
      '{"metadata": {"managedFields": [{"manager":"m"}]}}',
      '{"metadata":{"labels":{"a":"b"}}}',
    ];
    for (const body of bodies) expect(cut(body)).toBe(body);
  });

  it('keeps multi-byte characters next to a cut whole', () => {
    const body = '{"items":[{"metadata":{"name":"é","managedFields":[{"manager":"ü"}],"annotations":{"a":"日本"}}},{"metadata":{"managedFields":[],"name":"ß"}}]}';
    expect(JSON.parse(cut(body))).toEqual(withoutMetadataManagedFields(JSON.parse(body)));
  });

  it('leaves an unterminated managedFields array in place, so that JSON.parse reports the broken body', () => {
    const body = '{"metadata":{"name":"a","managedFields":[{"manager":"m"}';
    expect(cut(body)).toBe(body);
    expect(() => JSON.parse(cut(body))).toThrow();
  });

  describe('through the API server', () => {
    let kube: FakeKubeApiServer;
    beforeEach(async () => {
      kube = await FakeKubeApiServer.start();
      kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      for (let i = 0; i < 120; i++) {
        kube.create({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `p-${i}`, namespace: 'default', labels: { app: `a${i % 3}` }, annotations: { 'x/y': `{"managedFields":[${i}]}` } },
          spec: { serviceAccountName: 'sa', containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 + i }] }] },
        });
      }
    });
    afterEach(async () => {
      await kube.close();
    });

    it('lists the same pods as a plain list, minus their managedFields', async () => {
      const kc = kube.kubeConfig();
      const plain = await listAll(kc, '/api/v1/pods', { pageSize: 50 });
      const cutList = await listAll(kc, '/api/v1/pods', { pageSize: 50, dropManagedFields: true });
      expect(plain.items.every((p) => (p.metadata?.managedFields?.length ?? 0) > 0)).toBe(true);
      expect(cutList.items.some((p) => p.metadata && 'managedFields' in p.metadata)).toBe(false);
      expect(cutList.items).toEqual((withoutMetadataManagedFields(plain) as typeof plain).items);
      expect(cutList.items.find((p) => p.metadata?.name === 'p-7')?.metadata?.annotations?.['x/y']).toBe('{"managedFields":[7]}');
    });
  });
});
