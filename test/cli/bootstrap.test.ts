/**
 * `spire-reconciler bootstrap`: the controller's own admin entries for the
 * standalone layout, printed as spire-server commands or written through the
 * admin socket (here the in-memory SPIRE server's; test/real-spire/ runs the
 * printed commands against the real one). Running it again changes nothing;
 * a changed option updates the entry in place; the reconcile never touches
 * them, whatever its entryScope.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapEntries, bootstrapProblem, classifyEntry, entryCreateCommand } from '../../src/entries/index.js';
import { MemorySpireServer } from '../../src/memspire/index.js';
import { exitCode, spawnCli } from '../support/cli.js';

const TD = 'example.org';
const base = { trustDomain: TD, clusterName: 'demo', namespace: 'spire-server', serviceAccount: 'spire-reconciler' };

describe('the bootstrap entries', () => {
  it('are a node alias for the cluster\'s agents and an admin entry for the controller\'s pods under it, with fixed IDs', () => {
    const { agents, controller } = bootstrapEntries({ ...base, nodeLabels: { 'node-role.kubernetes.io/control-plane': '' }, x509SvidTtlSeconds: 600 });
    expect(agents).toEqual({
      id: 'spire-reconciler-bootstrap.demo.agents',
      spiffe_id: { trust_domain: TD, path: '/spire-reconciler/demo/agents' },
      parent_id: { trust_domain: TD, path: '/spire/server' },
      selectors: [
        { type: 'k8s_psat', value: 'cluster:demo' },
        { type: 'k8s_psat', value: 'agent_node_label:node-role.kubernetes.io/control-plane:' },
      ],
    });
    expect(controller).toMatchObject({
      id: 'spire-reconciler-bootstrap.demo.controller',
      spiffe_id: { trust_domain: TD, path: '/spire-reconciler/demo' },
      parent_id: { trust_domain: TD, path: '/spire-reconciler/demo/agents' },
      selectors: [
        { type: 'k8s', value: 'ns:spire-server' },
        { type: 'k8s', value: 'sa:spire-reconciler' },
      ],
      admin: true,
      x509_svid_ttl: 600,
    });
    expect(entryCreateCommand(controller)).toBe(
      'spire-server entry create -entryID spire-reconciler-bootstrap.demo.controller -parentID spiffe://example.org/spire-reconciler/demo/agents -spiffeID spiffe://example.org/spire-reconciler/demo -selector k8s:ns:spire-server -selector k8s:sa:spire-reconciler -admin -x509SVIDTTL 600',
    );
    expect(entryCreateCommand(agents)).toMatch(/ -node -spiffeID spiffe:\/\/example.org\/spire-reconciler\/demo\/agents -selector k8s_psat:cluster:demo /);
  });

  it('refuse names that make no valid entry, saying which', () => {
    expect(bootstrapProblem({ ...base, clusterName: 'a/b' })).toMatch(/^clusterName "a\/b" cannot be a SPIFFE ID path segment: /);
    expect(bootstrapProblem({ ...base, namespace: 'Spire' })).toBe('namespace "Spire" is not a Kubernetes name');
    expect(bootstrapProblem({ ...base, nodeLabels: { 'a:b': 'c' } })).toMatch(/^node label a:b=c: /);
    expect(bootstrapProblem(base)).toBeUndefined();
  });

  it('are never the reconcile\'s to change or delete, in any entryScope', () => {
    const { controller } = bootstrapEntries(base);
    const current = { id: controller.id, spec: { spiffeId: 'spiffe://example.org/spire-reconciler/demo', parentId: 'spiffe://example.org/spire-reconciler/demo/agents', selectors: [] }, podUid: undefined };
    for (const entryScope of ['prefixed', 'all'] as const) {
      expect(classifyEntry(current as never, { entryIDPrefix: entryScope === 'all' ? '' : 'scm-demo.', entryScope })).toBe('foreign');
    }
  });
});

describe('bootstrap --apply', () => {
  let dir: string;
  let spire: MemorySpireServer;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bootstrap-'));
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: TD });
  });
  afterEach(async () => {
    await spire.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (...extra: string[]) => {
    const cli = spawnCli(['bootstrap', '--trust-domain', TD, '--cluster-name', 'demo', '--apply', '--socket', join(dir, 'api.sock'), ...extra]);
    return { code: await exitCode(cli), out: cli.output() };
  };

  it('creates both entries, changes nothing when run again, and updates one whose options changed', async () => {
    let r = await run();
    expect(r.code).toBe(0);
    expect(r.out).toContain('created: spire-reconciler-bootstrap.demo.agents');
    expect(r.out).toContain('created: spire-reconciler-bootstrap.demo.controller');
    const controller = spire.entries.all().find((e) => e.id === 'spire-reconciler-bootstrap.demo.controller')!;
    expect(controller).toMatchObject({ admin: true, parentId: { path: '/spire-reconciler/demo/agents' } });

    r = await run();
    expect(r.out).toContain('unchanged: spire-reconciler-bootstrap.demo.agents');
    expect(r.out).toContain('unchanged: spire-reconciler-bootstrap.demo.controller');
    expect(spire.entries.size).toBe(2);

    r = await run('--x509-svid-ttl', '2m');
    expect(r.out).toContain('unchanged: spire-reconciler-bootstrap.demo.agents');
    expect(r.out).toContain('updated: spire-reconciler-bootstrap.demo.controller');
    expect(spire.entries.all().find((e) => e.id === 'spire-reconciler-bootstrap.demo.controller')).toMatchObject({ x509SvidTtl: 120 });
  });

  it('names the socket when no SPIRE server answers there', async () => {
    const cli = spawnCli(['bootstrap', '--trust-domain', TD, '--cluster-name', 'demo', '--apply', '--socket', join(dir, 'none.sock'), '--spire-timeout', '1s']);
    expect(await exitCode(cli)).toBe(2);
    expect(cli.output()).toContain(`${join(dir, 'none.sock')}`);
  });
});
