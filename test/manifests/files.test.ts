import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/index.js';
import { csid, writeTree } from './tree.js';

describe('a directory is read recursively, in sorted order', () => {
  it('reads .yaml, .yml and .json files below it, sorted by full path', async () => {
    const root = await writeTree({
      'b.yaml': csid('b'),
      'a/z.yml': csid('az'),
      'a.yaml': csid('a-file'),
      'a/c/deep.yaml': csid('deep'),
      'c.json': JSON.stringify({
        apiVersion: 'spire.spiffe.io/v1alpha1',
        kind: 'ClusterSPIFFEID',
        metadata: { name: 'json' },
        spec: { spiffeIDTemplate: 'spiffe://example.org/json' },
      }),
      'notes.txt': 'not a manifest',
      'README.md': '# nothing',
    });
    const set = await loadManifests([root]);
    // 'a.yaml' sorts before 'a/…' because '.' < '/': the order is by whole path, not depth-first.
    expect(set.files.map((f) => path.relative(root, f))).toEqual(['a.yaml', 'a/c/deep.yaml', 'a/z.yml', 'b.yaml', 'c.json']);
    expect(set.clusterSPIFFEIDs.map((o) => o.metadata.name)).toEqual(['a-file', 'deep', 'az', 'b', 'json']);
    expect(set.problems).toEqual([]);
  });

  it('reads paths in the order given, and a named file whatever its extension', async () => {
    const root = await writeTree({ 'z.yaml': csid('z'), 'a.yaml': csid('a'), 'entry.txt': csid('txt') });
    const set = await loadManifests([path.join(root, 'z.yaml'), path.join(root, 'entry.txt'), path.join(root, 'a.yaml')]);
    expect(set.clusterSPIFFEIDs.map((o) => o.metadata.name)).toEqual(['z', 'txt', 'a']);
  });

  it('skips hidden files and directories', async () => {
    const root = await writeTree({ '.hidden.yaml': csid('hidden'), '.git/x.yaml': csid('git'), 'ok.yaml': csid('ok') });
    const set = await loadManifests([root]);
    expect(set.clusterSPIFFEIDs.map((o) => o.metadata.name)).toEqual(['ok']);
  });

  it('reads a ConfigMap volume once, through its visible symlinks and not through ..data', async () => {
    // The layout the kubelet writes: real files in a timestamped directory,
    // `..data` pointing at it, and one symlink per key pointing into `..data`.
    const root = await writeTree({ '..2024_01_01_00_00_00.123/e-one.yaml': csid('one') });
    await symlink('..2024_01_01_00_00_00.123', path.join(root, '..data'));
    await symlink(path.join('..data', 'e-one.yaml'), path.join(root, 'e-one.yaml'));
    const set = await loadManifests([root]);
    expect(set.files).toEqual([path.join(root, 'e-one.yaml')]);
    expect(set.clusterSPIFFEIDs).toHaveLength(1);
    expect(set.problems).toEqual([]);
  });

  it('reads a file named twice, or reachable twice, only once', async () => {
    const root = await writeTree({ 'sub/a.yaml': csid('a') });
    await symlink('sub', path.join(root, 'link'));
    const set = await loadManifests([root, path.join(root, 'sub', 'a.yaml')]);
    // Of the two ways to reach sub/a.yaml, the first by sorted path wins.
    expect(set.files).toEqual([path.join(root, 'link', 'a.yaml')]);
    expect(set.clusterSPIFFEIDs).toHaveLength(1);
  });

  it('survives a symlink loop', async () => {
    const root = await writeTree({ 'a/x.yaml': csid('x') });
    await symlink('..', path.join(root, 'a', 'up'));
    const set = await loadManifests([root]);
    expect(set.clusterSPIFFEIDs.map((o) => o.metadata.name)).toEqual(['x']);
  });

  it('reports a path that does not exist, and still loads the others', async () => {
    const root = await writeTree({ 'ok.yaml': csid('ok') });
    const missing = path.join(root, 'nope');
    const set = await loadManifests([missing, root]);
    expect(set.problems).toEqual([
      expect.objectContaining({ file: missing, document: -1, message: expect.stringMatching(/^cannot read: .*ENOENT/) }),
    ]);
    expect(set.clusterSPIFFEIDs).toHaveLength(1);
  });

  it('reports a dangling link named like a manifest, and ignores other debris', async () => {
    const root = await writeTree({ 'ok.yaml': csid('ok') });
    await symlink('gone.yaml', path.join(root, 'broken.yaml'));
    await symlink('gone.txt', path.join(root, 'broken.txt'));
    await mkdir(path.join(root, 'empty'));
    await writeFile(path.join(root, 'empty.yaml'), '');
    const set = await loadManifests([root]);
    expect(set.problems.map((p) => path.relative(root, p.file))).toEqual(['broken.yaml']);
    expect(set.clusterSPIFFEIDs).toHaveLength(1);
  });
});
