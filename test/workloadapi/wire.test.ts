import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { loadWorkloadDefinition, WORKLOAD_PROTO } from '../../src/workloadapi/proto.js';
import { fileDescriptors, wireFacts } from '../support/proto-facts.js';

/** The go-spiffe release whose Workload API definition ours must match (the one test/e2e/images builds with). */
const GO_SPIFFE = 'github.com/spiffe/go-spiffe/v2@v2.6.0';

/** go-spiffe's folder in the Go module cache (fetched through the Go module proxy when missing), or why there is none. */
function goSpiffeDir(): { dir: string } | { skip: string } {
  let out: string;
  try {
    out = execFileSync('go', ['mod', 'download', '-json', GO_SPIFFE], { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stdout?: string };
    if (e.code === 'ENOENT') return { skip: 'go is not on PATH' };
    return { skip: `go mod download ${GO_SPIFFE} failed: ${(e.stdout ?? e.message).trim().split('\n').slice(0, 3).join(' ')}` };
  }
  const dir = (JSON.parse(out) as { Dir?: string }).Dir;
  if (!dir || !existsSync(join(dir, 'proto', WORKLOAD_PROTO))) return { skip: `${GO_SPIFFE} has no proto/${WORKLOAD_PROTO}` };
  return { dir };
}

const found = goSpiffeDir();
if ('skip' in found) console.warn(`SKIPPED: the Workload API wire test needs go-spiffe's definition: ${found.skip}`);

describe.skipIf('skip' in found)(`our Workload API proto is wire-compatible with ${GO_SPIFFE}`, () => {
  // The definition has no proto package (protobufjs files it as root.proto); google.protobuf's files are not ours to compare.
  const ofWorkload = (file: { package?: string }) => file.package === undefined;
  const ours = wireFacts(fileDescriptors(loadWorkloadDefinition(), 'X509SVIDResponse'), ofWorkload);
  const theirs = () => {
    // Field names as written (keepCase), as ours are loaded: the names are part of what is compared.
    const def = protoLoader.loadSync(WORKLOAD_PROTO, { keepCase: true, includeDirs: [join((found as { dir: string }).dir, 'proto')] });
    return wireFacts(fileDescriptors(def, 'X509SVIDResponse'), ofWorkload);
  };

  it('declares the same service, methods, requests, responses and streaming', () => {
    expect(Object.keys(ours.services)).toEqual(['SpiffeWorkloadAPI']);
    expect(ours.services).toEqual(theirs().services);
  });

  it('declares the same messages, field by field (name, number, type, label), map entries included', () => {
    const published = theirs();
    expect(Object.keys(ours.messages).sort()).toEqual(Object.keys(published.messages).sort());
    for (const name of Object.keys(published.messages)) expect({ name, fields: ours.messages[name] }).toEqual({ name, fields: published.messages[name] });
    expect(ours.enums).toEqual(published.enums);
  });

  it('routes FetchX509SVID by the path an agent serves, as a server stream', () => {
    const method = loadWorkloadDefinition()['SpiffeWorkloadAPI'] as Record<string, { path: string; responseStream: boolean }>;
    expect(method['FetchX509SVID']).toMatchObject({ path: '/SpiffeWorkloadAPI/FetchX509SVID', responseStream: true });
  });
});
