/**
 * `spire-reconciler bootstrap` against the real SPIRE server: the commands it
 * prints run as they are with the real `spire-server entry create`, and make
 * the entries `bootstrap --apply` makes (a second run, --apply, finds them
 * unchanged, field by field as the server stores them); a changed option is
 * an update in place.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpireClient } from '../../src/spire/index.js';
import { exitCode, spawnCli } from '../support/cli.js';
import { type RealSpire, spireServerBinary, startRealSpire } from '../support/real-spire.js';

const run = promisify(execFile);
const TD = 'example.org';

describe('bootstrap with the real SPIRE server', () => {
  let server: RealSpire;
  let admin: SpireClient;

  beforeAll(async () => {
    server = await startRealSpire({ trustDomain: TD });
    admin = new SpireClient({ socket: server.socketPath });
  }, 120_000);

  afterAll(async () => {
    admin?.close();
    await server?.stop();
  });

  const cli = async (...args: string[]) => {
    const p = spawnCli(['bootstrap', '--trust-domain', TD, '--cluster-name', 'demo', ...args]);
    return { code: await exitCode(p), out: p.output() };
  };

  it('the printed commands run as they are with spire-server entry create', async () => {
    const printed = await cli('--node-label', 'pool=system', '--x509-svid-ttl', '10m');
    expect(printed.code).toBe(0);
    const commands = printed.out.split('\n').filter((l) => l.startsWith('spire-server entry create '));
    expect(commands).toHaveLength(2);
    for (const command of commands) {
      const args = command.split(' ').slice(1);
      await run(spireServerBinary(), [...args, '-socketPath', server.socketPath]);
    }
    const controller = await admin.getEntry('spire-reconciler-bootstrap.demo.controller');
    expect(controller).toMatchObject({ admin: true, x509_svid_ttl: 600, spiffe_id: { path: '/spire-reconciler/demo' }, parent_id: { path: '/spire-reconciler/demo/agents' } });
    expect(controller.selectors.map((s) => `${s.type}:${s.value}`).sort()).toEqual(['k8s:ns:spire-server', 'k8s:sa:spire-reconciler']);
    const agents = await admin.getEntry('spire-reconciler-bootstrap.demo.agents');
    expect(agents.parent_id).toMatchObject({ path: '/spire/server' });
    expect(agents.selectors.map((s) => `${s.type}:${s.value}`).sort()).toEqual(['k8s_psat:agent_node_label:pool:system', 'k8s_psat:cluster:demo']);
  });

  it('--apply finds what the commands made unchanged, and updates an entry whose option changed', async () => {
    const same = await cli('--node-label', 'pool=system', '--x509-svid-ttl', '10m', '--apply', '--socket', server.socketPath);
    expect(same.out).toContain('unchanged: spire-reconciler-bootstrap.demo.agents');
    expect(same.out).toContain('unchanged: spire-reconciler-bootstrap.demo.controller');
    const changed = await cli('--x509-svid-ttl', '10m', '--apply', '--socket', server.socketPath);
    expect(changed.code).toBe(0);
    expect(changed.out).toContain('updated: spire-reconciler-bootstrap.demo.agents');
    expect(changed.out).toContain('unchanged: spire-reconciler-bootstrap.demo.controller');
    expect((await admin.getEntry('spire-reconciler-bootstrap.demo.agents')).selectors.map((s) => `${s.type}:${s.value}`)).toEqual(['k8s_psat:cluster:demo']);
  });
});
