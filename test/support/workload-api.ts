import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySpireServer, type MemorySpireServerOptions, MemoryWorkloadApi, type MemoryWorkloadApiOptions } from '../../src/memspire/index.js';

/** The SPIFFE ID the fake Workload API issues unless told otherwise: the controller's, as `spire-reconciler bootstrap` registers it. */
export const CONTROLLER_ID = 'spiffe://example.org/spire-reconciler';

export interface TestWorkloadApi {
  readonly dir: string;
  /** The in-memory SPIRE server whose CA signs the SVIDs (with a TCP listener when asked for). */
  readonly spire: MemorySpireServer;
  readonly api: MemoryWorkloadApi;
  readonly socketPath: string;
  close(): Promise<void>;
}

/** An in-memory SPIRE server and a Workload API fake issuing from its CA, on sockets in a fresh temp folder. */
export async function startWorkloadApi(
  opts: { spire?: Partial<MemorySpireServerOptions> } & Partial<Omit<MemoryWorkloadApiOptions, 'spire' | 'socketPath'>> = {},
): Promise<TestWorkloadApi> {
  const dir = mkdtempSync(join(tmpdir(), 'wlapi-test-'));
  const spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'example.org', ...opts.spire });
  const socketPath = join(dir, 'agent.sock');
  const { spire: _spire, ...apiOpts } = opts;
  const api = await MemoryWorkloadApi.start({ spiffeId: CONTROLLER_ID, ...apiOpts, socketPath, spire });
  return {
    dir,
    spire,
    api,
    socketPath,
    async close() {
      await api.close();
      await spire.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once `check` holds, polling every 20 ms; rejects with `what` after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
