/**
 * A manifest document too large to read within the heap is left out of
 * what `plan` reads; the plan then misses what it declares, so `plan`
 * exits as it does for other input it cannot use (2), naming each file and
 * document, after printing what it could plan.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DIR } from '../../src/cli/demo.js';
import { exitCode, spawnCli } from '../support/cli.js';

// The heap deploy/ gives the controller: a document's budget is half of what is left of it.
const HEAP = '--max-old-space-size=192';
const csid = (name: string) => `apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterSPIFFEID\nmetadata:\n  name: ${name}\nspec:\n  spiffeIDTemplate: "spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name }}"\n`;

describe('plan with a manifest document over the heap budget', () => {
  let dir: string;
  let yamlFile: string;
  let jsonFile: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'plan-incomplete-'));
    yamlFile = join(dir, 'many-keys.yaml');
    // A small document, then one of 100,000 lines: only the second is over the budget.
    writeFileSync(yamlFile, `${csid('small')}---\n${csid('many-keys')}  podSelector:\n    matchLabels:\n${Array.from({ length: 100_000 }, (_, i) => `      k${i}: v`).join('\n')}\n`);
    jsonFile = join(dir, 'empty-objects.json');
    writeFileSync(jsonFile, `{"apiVersion":"v1","kind":"List","items":[${'{},'.repeat(2_630_000)}{}]}`);
    writeFileSync(join(dir, 'entries.json'), '{"entries": []}');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const plan = (manifests: string[], output = 'table') =>
    spawnCli(['plan', '--config', join(DEMO_DIR, 'config.yaml'), '--manifests', ...manifests, '--entries', join(dir, 'entries.json'), '--output', output], { env: { NODE_OPTIONS: HEAP } });

  it('prints what it could plan, then exits 2 naming each file and document it could not read', { timeout: 120_000 }, async () => {
    const cli = plan([join(DEMO_DIR, 'manifests'), yamlFile, jsonFile]);
    expect(await exitCode(cli)).toBe(2);
    const out = cli.output();
    // The plan of what was read: the demo's entries, and the small document's ClusterSPIFFEID.
    expect(out).toMatch(/^Plan: \d+ to create/m);
    expect(out).toContain('[ClusterSPIFFEID/small]');
    const [line] = out.split('\n').filter((l) => l.includes('this plan is incomplete'));
    expect(line).toContain('this plan is incomplete: 2 manifest documents were too large to read, so what they declare is not in it: ');
    expect(line).toContain(`${yamlFile}: the YAML document at line 7 (100010 lines`);
    expect(line).toContain(`${jsonFile} doc 0: `);
  });

  it('without such a document, the same plan exits 0', { timeout: 120_000 }, async () => {
    const cli = plan([join(DEMO_DIR, 'manifests')]);
    expect(await exitCode(cli)).toBe(0);
    expect(cli.output()).not.toContain('this plan is incomplete');
  });
});
