import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SpireClient } from '../../src/spire/index.js';
import { exitCode, spawnCli, waitForOutput } from '../support/cli.js';

describe('`spire-reconciler memory-spire` serves a seeded SPIRE server from the command line', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memspire-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('loads `spire-server entry show -output json` output, answers over the socket and exits 0 on SIGTERM', async () => {
    const seed = join(dir, 'entries.json');
    writeFileSync(
      seed,
      JSON.stringify({
        entries: [
          {
            id: 'scm-0f6a1c9e-seeded',
            spiffe_id: { trust_domain: 'demo.test', path: '/ns/default/sa/web' },
            parent_id: { trust_domain: 'demo.test', path: '/spire/agent/k8s_psat/demo/node-uid-1' },
            selectors: [{ type: 'k8s', value: 'pod-uid:4f1c' }],
            x509_svid_ttl: 3600,
            dns_names: ['web.default.svc'],
            revision_number: '4',
            created_at: '1700000000',
          },
        ],
        next_page_token: '',
      }),
    );
    const socket = join(dir, 'api.sock');
    const cli = spawnCli(['memory-spire', '--socket', socket, '--trust-domain', 'demo.test', '--seed', seed]);
    try {
      await waitForOutput(cli, /listening on unix:\/\/.*\(1 entries\)/);
      const client = new SpireClient({ socket, rpcTimeoutMs: 5000 });
      try {
        const [e] = await client.listEntries();
        expect(e).toMatchObject({ id: 'scm-0f6a1c9e-seeded', dns_names: ['web.default.svc'], revision_number: '0' });
      } finally {
        client.close();
      }
    } finally {
      cli.kill('SIGTERM');
    }
    expect(await exitCode(cli)).toBe(0);
  });

  it('refuses a seed entry whose field has the wrong type, naming the file, the entry and the field, rather than reading it as zero', async () => {
    const seed = join(dir, 'ttl.json');
    writeFileSync(
      seed,
      JSON.stringify({
        entries: [
          { id: 'ok', spiffe_id: { trust_domain: 'example.org', path: '/w' }, parent_id: { trust_domain: 'example.org', path: '/a' }, selectors: [{ type: 'unix', value: 'uid:0' }] },
          { id: 'x', spiffe_id: { trust_domain: 'example.org', path: '/w' }, parent_id: { trust_domain: 'example.org', path: '/a' }, x509_svid_ttl: 'an hour' },
        ],
      }),
    );
    const cli = spawnCli(['memory-spire', '--socket', join(dir, 'api.sock'), '--seed', seed]);
    expect(await exitCode(cli)).toBe(2);
    expect(cli.output().trim()).toBe(`spire-reconciler: seed file ${seed}: entries[1]: x509_svid_ttl: must be an integer, got "an hour"`);
  });

  it('refuses a seed entry SPIRE would refuse, naming the entry and the reason', async () => {
    const seed = join(dir, 'bad.json');
    writeFileSync(seed, JSON.stringify({ entries: [{ id: 'x', spiffe_id: { trust_domain: 'example.org', path: '/w' }, selectors: [] }] }));
    const cli = spawnCli(['memory-spire', '--socket', join(dir, 'api.sock'), '--seed', seed]);
    // 2: the command could not run (see the exit codes in docs/commands.md).
    expect(await exitCode(cli)).toBe(2);
    expect(cli.output().trim()).toBe(
      'spire-reconciler: seed entry #0 (x): failed to convert entry: invalid parent ID: request must specify SPIFFE ID',
    );
  });
});
