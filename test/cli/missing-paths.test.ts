/**
 * A path given to the CLI that does not exist ends the command with exit 2
 * and one line naming the flag (or config field) and the path, before
 * anything is read: a manifest path read as empty would plan to delete
 * every entry, and a warning is easily missed above a plan.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DIR } from '../../src/cli/demo.js';
import { exitCode, spawnCli } from '../support/cli.js';

const config = join(DEMO_DIR, 'config.yaml');
const manifests = join(DEMO_DIR, 'manifests');
const entries = join(DEMO_DIR, 'spire-entries.json');
const csids = join(manifests, 'spire', 'clusterspiffeids.yaml');
const pods = join(manifests, 'cluster', 'pods.yaml');
const gone = '/nonexistent/spire-reconciler-test';

describe('a path that does not exist is exit 2, naming it', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'missing-paths-'));
    // staticManifestPath is the config's --manifests: checked the same way.
    writeFileSync(join(dir, 'config.yaml'), `trustDomain: demo.example\nclusterName: demo\nstaticManifestPath: ${gone}\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['plan --manifests', () => ['plan', '--config', config, '--manifests', manifests, gone, '--entries', entries], `--manifests ${gone}`],
    ['plan --config', () => ['plan', '--config', gone, '--manifests', manifests, '--entries', entries], `--config ${gone}`],
    ['plan --entries', () => ['plan', '--config', config, '--manifests', manifests, '--entries', gone], `--entries ${gone}`],
    ['explain clusterspiffeid --manifests', () => ['explain', 'clusterspiffeid', 'default', '--config', config, '--manifests', gone, '--entries', entries], `--manifests ${gone}`],
    ['run with staticManifestPath', () => ['run', '--config', join(dir, 'config.yaml'), '--socket', join(dir, 'api.sock')], `staticManifestPath ${gone}`],
    ['validate PATH', () => ['validate', manifests, gone], `validate ${gone}`],
    ['render --pod', () => ['render', '--config', config, '--clusterspiffeid', csids, '--name', 'default', '--pod', gone], `--pod ${gone}`],
    ['render --node', () => ['render', '--config', config, '--clusterspiffeid', csids, '--name', 'default', '--pod', pods, '--node', gone], `--node ${gone}`],
  ])('%s', async (_name, args, named) => {
    const cli = spawnCli(args());
    expect(await exitCode(cli)).toBe(2);
    expect(cli.output().trim()).toBe(`spire-reconciler: ${named}: no such file or directory`);
  });
});
