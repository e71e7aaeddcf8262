import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadPackageDefinition } from '../src/spire/proto.js';
import { wireFactsPath } from './support/paths.js';
import { fileDescriptors, type WireFacts, wireFacts } from './support/proto-facts.js';

const facts = JSON.parse(readFileSync(wireFactsPath, 'utf8')) as WireFacts;

describe('our protos are wire-compatible with every real SPIRE server', () => {
  const loaded = wireFacts(fileDescriptors(loadPackageDefinition(), 'spire.api.types.Entry'), (file) => file.package?.startsWith('spire.') === true);

  it('loads exactly the services and methods SPIRE publishes, with the same messages and streaming', () => {
    expect(loaded.services).toEqual(facts.services);
  });

  it('loads exactly the spire.* messages SPIRE publishes', () => {
    expect(Object.keys(loaded.messages).sort()).toEqual(Object.keys(facts.messages).sort());
  });

  it.each(Object.keys(facts.messages))('%s matches field by field (name, number, type, label, oneof)', (name) => {
    expect(loaded.messages[name]).toEqual(facts.messages[name]);
  });

  it('loads exactly the enums SPIRE publishes, value by value', () => {
    expect(loaded.enums).toEqual(facts.enums);
  });

  it('grpc-js routes each method by the same full path a SPIRE server serves', () => {
    const def = loadPackageDefinition();
    for (const [svc, methods] of Object.entries(facts.services)) {
      const service = def[svc] as Record<string, { path: string }>;
      for (const method of Object.keys(methods)) expect(service[method]?.path).toBe(`/${svc}/${method}`);
    }
  });
});
