import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterEach, beforeEach } from 'vitest';
import { MemorySpireServer, type MemorySpireServerOptions } from '../../src/memspire/index.js';
import { SpireClient, type EntryOut } from '../../src/spire/index.js';
import { loadSpireGrpc } from '../../src/spire/proto.js';
import { diagnoseSocket } from '../../src/spire/errors.js';
import { type UnaryApi, unaryApi } from '../../src/spire/rpc.js';
import type { EntryDefinition } from '../../src/gen/spire/api/server/entry/v1/Entry.js';
import type { TrustDomainDefinition } from '../../src/gen/spire/api/server/trustdomain/v1/TrustDomain.js';
import type { BundleDefinition } from '../../src/gen/spire/api/server/bundle/v1/Bundle.js';
import type { SVIDDefinition } from '../../src/gen/spire/api/server/svid/v1/SVID.js';

export interface RawStubs {
  entry: UnaryApi<EntryDefinition>;
  trustDomain: UnaryApi<TrustDomainDefinition>;
  bundle: UnaryApi<BundleDefinition>;
  svid: UnaryApi<SVIDDefinition>;
}

export interface TestSpire {
  server: MemorySpireServer;
  dir: string;
  socketPath: string;
  /**
   * Generated gRPC stubs, promisified: the wire exactly as any client sees it.
   * A failed call rejects with a SpireRpcError carrying `code` and `details`.
   */
  raw: RawStubs;
  close(): Promise<void>;
}

/** Generated gRPC stubs on a SPIRE admin socket (any server: ours or a real one). */
export function openRawStubs(socketPath: string): { raw: RawStubs; closeStubs(): void } {
  const pkg = loadSpireGrpc();
  const creds = grpc.credentials.createInsecure();
  const target = `unix://${socketPath}`;
  const clients = [
    new pkg.spire.api.server.entry.v1.Entry(target, creds),
    new pkg.spire.api.server.trustdomain.v1.TrustDomain(target, creds),
    new pkg.spire.api.server.bundle.v1.Bundle(target, creds),
    new pkg.spire.api.server.svid.v1.SVID(target, creds),
  ] as const;
  const settings = (service: string) => ({ service, where: socketPath, diagnose: () => diagnoseSocket(socketPath), deadlineMs: 10_000, waitForReady: false });
  return {
    raw: {
      entry: unaryApi<EntryDefinition>(clients[0], settings('Entry')),
      trustDomain: unaryApi<TrustDomainDefinition>(clients[1], settings('TrustDomain')),
      bundle: unaryApi<BundleDefinition>(clients[2], settings('Bundle')),
      svid: unaryApi<SVIDDefinition>(clients[3], settings('SVID')),
    },
    closeStubs() {
      for (const c of clients) c.close();
    },
  };
}

/** Starts an in-memory SPIRE server on a fresh socket under a temp folder. */
export async function startTestSpire(opts: Partial<MemorySpireServerOptions> = {}): Promise<TestSpire> {
  const dir = mkdtempSync(join(tmpdir(), 'spire-test-'));
  const socketPath = join(dir, 'api.sock');
  const server = await MemorySpireServer.start({ socketPath, ...opts });
  const { raw, closeStubs } = openRawStubs(socketPath);
  return {
    server,
    dir,
    socketPath,
    raw,
    async close() {
      closeStubs();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Inside a describe: a fresh in-memory SPIRE server (with `opts`) and a
 * SpireClient on its socket for every test, closed after it. Read them as
 * `t.spire`, `t.client`.
 */
export function spireForEachTest(opts: Partial<MemorySpireServerOptions> = {}): { readonly spire: TestSpire; readonly client: SpireClient } {
  const t = {} as { spire: TestSpire; client: SpireClient };
  beforeEach(async () => {
    t.spire = await startTestSpire(opts);
    t.client = new SpireClient({ socket: t.spire.socketPath });
  });
  afterEach(async () => {
    t.client.close();
    await t.spire.close();
  });
  return t;
}

/** An entry as SPIRE lists it, with every field at its proto3 default except `id`. */
export function onlyId(id: string): EntryOut {
  return {
    id,
    spiffe_id: null,
    parent_id: null,
    selectors: [],
    x509_svid_ttl: 0,
    federates_with: [],
    admin: false,
    downstream: false,
    expires_at: '0',
    dns_names: [],
    revision_number: '0',
    store_svid: false,
    jwt_svid_ttl: 0,
    hint: '',
    created_at: '0',
  };
}
