/**
 * Manifests that used to crash or hang the reader: each now costs bounded
 * time and heap and ends as a problem naming the file, the document and the
 * place, while the other documents and files still load.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/index.js';
import { exitCode, spawnCli } from '../support/cli.js';
import { csid, writeTree } from './tree.js';

const deepJson = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

describe('deep nesting is a problem of its document, not a stack overflow', () => {
  it('10,000 nested JSON objects in a spec name the file, the object and the field', async () => {
    const root = await writeTree({
      'deep.json': `{"apiVersion":"spire.spiffe.io/v1alpha1","kind":"ClusterSPIFFEID","metadata":{"name":"deep"},"spec":{"spiffeIDTemplate":"spiffe://example.org/x","podSelector":${deepJson(10_000)}}}`,
      'fine.yaml': csid('fine'),
    });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([
      { file: path.join(root, 'deep.json'), document: 0, severity: 'error', kind: 'ClusterSPIFFEID', name: 'deep', field: 'spec.podSelector.a.a.a.a.a.a...', message: 'nests deeper than 100 levels; no Kubernetes object does' },
    ]);
    expect(set.clusterSPIFFEIDs.map((o) => o.metadata.name)).toEqual(['fine']);
  });

  it('10,000 nested JSON arrays too', async () => {
    const root = await writeTree({ 'deep.json': `{"apiVersion":"v1","kind":"List","items":${'['.repeat(10_000)}${']'.repeat(10_000)}}` });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([expect.objectContaining({ field: 'items[0][0][0][0][0][0][0]...', message: expect.stringMatching(/^nests deeper than 100 levels/) })]);
  });

  it('10,000 nested YAML flow sequences, whose reader recurses, in the second document', async () => {
    const root = await writeTree({ 'deep.yaml': `${csid('first')}---\n${csid('second')}  podSelector: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n` });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([
      { file: path.join(root, 'deep.yaml'), document: 1, severity: 'error', message: expect.stringMatching(/^YAML syntax error: nests too deeply to read at line 14, column \d+$/) },
    ]);
    expect(set.clusterSPIFFEIDs.map((o) => o.metadata.name)).toEqual(['first']);
  });

  it('150 levels of YAML blocks are refused before they are turned into objects', async () => {
    const nested = Array.from({ length: 150 }, (_, i) => `${' '.repeat(2 * i + 2)}a${i}:`).join('\n');
    const root = await writeTree({ 'deep.yaml': `${csid('x')}  podSelector:\n${nested} 1\n` });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([expect.objectContaining({ document: 0, severity: 'error', message: expect.stringMatching(/^YAML nests deeper than 100 levels at line \d+, column \d+; no Kubernetes object does$/) })]);
  });

  it('aliases that nest what the text does not are caught after expansion', async () => {
    const levels = Array.from({ length: 60 }, (_, i) => `l${i + 1}: &l${i + 1} [*l${i}, *l${i}]`).join('\n  ');
    const root = await writeTree({ 'alias.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  l0: &l0 [x]\n  ${levels}\n` });
    const set = await loadManifests([root]);
    expect(set.problems).toHaveLength(1);
    expect(set.problems[0]?.message).toMatch(/^(YAML error: Excessive alias count|nests deeper than 100 levels)/);
  });
});

describe('alias bombs and malformed YAML stop at their document', () => {
  it('a billion laughs', async () => {
    const letters = 'abcdefghij';
    const lines = [`a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]`];
    for (let i = 1; i < letters.length; i++) lines.push(`${letters[i]}: &${letters[i]} [${Array(10).fill(`*${letters[i - 1]}`).join(', ')}]`);
    const root = await writeTree({ 'bomb.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata:\n  ${lines.join('\n  ')}\n---\n${csid('after')}` });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([{ file: path.join(root, 'bomb.yaml'), document: 0, severity: 'error', message: 'YAML error: Excessive alias count indicates a resource exhaustion attack' }]);
    expect(set.clusterSPIFFEIDs.map((o) => o.metadata.name)).toEqual(['after']);
  });

  it('an unterminated quote, a tab indent and a stray bracket each name their line', async () => {
    const root = await writeTree({
      'quote.yaml': `${csid('q')}  hint: "open\n`,
      'tab.yaml': `${csid('t')}\tttl: 1h\n`,
      'bracket.yaml': `${csid('b')}  dnsNameTemplates: [a, b\n`,
    });
    const set = await loadManifests([root]);
    expect(set.problems.map((p) => [path.basename(p.file), p.message])).toEqual([
      ['bracket.yaml', expect.stringMatching(/^YAML syntax error: .* at line \d+, column \d+/)],
      ['quote.yaml', expect.stringMatching(/^YAML syntax error: .* at line \d+, column \d+/)],
      ['tab.yaml', expect.stringMatching(/^YAML syntax error: .* at line \d+, column \d+/)],
    ]);
  });
});

describe('a map of 100,000 keys is read in linear time', () => {
  // The yaml library compared each key with every key before it: 20,000 keys took 9.3 s, 100,000 over a minute.
  it('and its one repeated key is still found', { timeout: 120_000 }, async () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `    k${i}: v`);
    keys.push('    k7: again');
    const root = await writeTree({ 'keys.yaml': `${csid('many')}  podSelector:\n    matchLabels:\n${keys.join('\n').replace(/^ {4}/gm, '      ')}\n` });
    const set = await loadManifests([root]);
    expect(set.problems).toEqual([
      expect.objectContaining({ severity: 'warning', message: `Map keys must be unique at line ${100_000 + 9}, column 7 (the last value is used)` }),
    ]);
    expect(set.clusterSPIFFEIDs[0]?.spec.podSelector?.matchLabels?.k7).toBe('again');
  });
});

describe('a document too large for the heap is refused by its size, before it is read', () => {
  // The CLI's own modules hold about 57 MiB of heap; 128 MiB leaves it too little for this document.
  it('under a 128 MiB heap, a 60,000-line document is named with its line; the documents around it keep their index and lines', { timeout: 120_000 }, async () => {
    const big = Array.from({ length: 60_000 }, (_, i) => `  k${i}: v`).join('\n');
    const root = await writeTree({
      'big.yaml': `${csid('before')}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n${big}\n---\n${csid('after')}  ttl: soon\n`,
    });
    const cli = spawnCli(['validate', root], { env: { NODE_OPTIONS: '--max-old-space-size=128' } });
    expect(await exitCode(cli)).toBe(1);
    const file = path.join(root, 'big.yaml');
    const lines = cli.output().trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^${file}: the YAML document at line 7 \\(60006 lines, 0\\.\\d MiB\\) would take about \\d+\\.\\d MiB of heap to read, over the \\d+\\.\\d MiB a document may take now \\(half of the heap left\\)`)),
      `${file}: ClusterSPIFFEID/after: spec.ttl: time: invalid duration "soon"`,
    ]);
  });
});
