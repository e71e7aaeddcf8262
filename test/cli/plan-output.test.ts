/**
 * What plan and reconcile --once print: the JSON carries everything the
 * table shows (and what was applied, with each failure's text), the table
 * ends with one summary line, and a plan says why it holds less than one
 * might expect (objects of another class, entries outside entryScope,
 * nothing declared at all).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DEMO_DIR } from '../../src/cli/demo.js';
import { readSeedFile } from '../../src/cli/memory-spire.js';
import { type OnceFlags, runOnce } from '../../src/cli/one-pass.js';
import { terminalProgress } from '../../src/cli/terminal-progress.js';
import { type PlanReport, wrapLines } from '../../src/cli/report.js';
import { MemorySpireServer } from '../../src/memspire/index.js';

const quiet = pino({ level: 'silent' });
const config = join(DEMO_DIR, 'config.yaml');
const manifests = join(DEMO_DIR, 'manifests');

describe('plan and reconcile --once output', () => {
  let dir: string;
  let spire: MemorySpireServer;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'plan-output-'));
    spire = await MemorySpireServer.start({ socketPath: join(dir, 'api.sock'), trustDomain: 'demo.example', seed: readSeedFile(join(DEMO_DIR, 'spire-entries.json')) });
  });
  afterEach(async () => {
    await spire.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function once(flags: Partial<OnceFlags>, apply: boolean): Promise<{ code: number; out: string }> {
    let out = '';
    const { code } = await runOnce({ config, manifests: [manifests], socket: spire.socketPath, ...flags }, { apply, log: quiet, print: (s) => (out += s) });
    return { code, out };
  }

  it('reconcile --once --output json carries what was applied, with each failure and the object that declared it', async () => {
    // Every create fails (the first failure goes to the unsupported-field probe's own create): the apply result must say so, item by item.
    spire.faults.failNext(2, 14, { method: 'BatchCreateEntry' });
    const { code, out } = await once({ output: 'json' }, true);
    expect(code).toBe(1);
    const report = JSON.parse(out) as PlanReport;
    expect(report.summary).toEqual({ create: 4, update: 1, delete: 1, kept: 0, conflicts: 0, renderFailures: 0 });
    expect(report.applied).toMatchObject({ created: 0, updated: 1, deleted: 1 });
    expect(report.applied!.failed).toHaveLength(4);
    expect(report.applied!.failed[1]).toEqual({
      op: 'create',
      id: report.create[1]!.id,
      object: 'ClusterSPIFFEID/payments',
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/^outcome unknown: SPIRE Entry.BatchCreateEntry failed: UNAVAILABLE/),
    });
    expect(report.applied!.heldBack).toEqual([]);
    expect(report.update[0]).toMatchObject({ object: 'ClusterSPIFFEID/payments', pod: 'payments/api-5c8b7f-xk2lm', changed: ['dnsNames'], old: { dnsNames: ['payments-api.payments.svc'] } });
    expect(report.delete[0]).toMatchObject({ reason: 'undeclared', podUID: '3e2d1c0b-0000-4000-8000-0000000000b0' });
  });

  it('the table ends with one summary line; -o yaml says what -o json says', async () => {
    const plan = await once({}, false);
    expect(plan.out.trimEnd().split('\n').at(-1)).toBe('Plan: 4 to create, 1 to update, 1 to delete, 0 kept, 0 conflicts');
    const applied = await once({}, true);
    expect(applied.out.trimEnd().split('\n').at(-1)).toBe('Applied: 4 created, 1 updated, 1 deleted, 0 failed; 0 kept, 0 conflicts');
    const json = JSON.parse((await once({ output: 'json' }, false)).out) as PlanReport;
    const yaml = parseYaml((await once({ output: 'yaml' }, false)).out) as PlanReport;
    expect(yaml).toEqual(json);
    await expect(once({ output: 'xml' }, false)).rejects.toThrow('--output must be table, json or yaml, got "xml"');
  });

  it('kept entries name their pod by namespace/name', async () => {
    // A template that fails for the payments pods: their current entries are kept, and the plan says whose they are.
    mkdirSync(join(dir, 'm'));
    writeFileSync(
      join(dir, 'm', 'csid.yaml'),
      'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterSPIFFEID\nmetadata: {name: payments}\nspec:\n  spiffeIDTemplate: "spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.tier }}"\n  namespaceSelector: {matchLabels: {team: payments}}\n',
    );
    const { out } = await once({ manifests: [join(manifests, 'cluster'), join(dir, 'm')], output: 'json' }, false);
    const report = JSON.parse(out) as PlanReport;
    expect(report.kept).toContainEqual({
      id: 'scm-demo.2b7e1f5a-9c3d-4e8f-a1b2-c3d4e5f60001',
      reason: 'render-unknown',
      detail: 'the declared entries of pod 3e2d1c0b-0000-4000-8000-0000000000b1 could not be computed this pass',
      podUID: '3e2d1c0b-0000-4000-8000-0000000000b1',
      pod: 'payments/api-5c8b7f-xk2lm',
    });
    const table = (await once({ manifests: [join(manifests, 'cluster'), join(dir, 'm')] }, false)).out;
    expect(table).toContain('= scm-demo.2b7e1f5a-9c3d-4e8f-a1b2-c3d4e5f60001 [pod payments/api-5c8b7f-xk2lm]: the declared entries of pod');
  });

  it('notes objects skipped by className and entries outside entryScope', async () => {
    mkdirSync(join(dir, 'm'));
    writeFileSync(
      join(dir, 'm', 'blue.yaml'),
      'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterSPIFFEID\nmetadata: {name: blue}\nspec: {className: blue, spiffeIDTemplate: "spiffe://{{ .TrustDomain }}/blue"}\n',
    );
    const report = JSON.parse((await once({ manifests: [manifests, join(dir, 'm')], output: 'json' }, false)).out) as PlanReport;
    expect(report.notes).toEqual([
      '1 object skipped by className (this controller reads classless objects only): ClusterSPIFFEID/blue',
      '1 entry on the server outside entryScope prefixed (IDs without the scm-demo. prefix): never changed or deleted',
    ]);
    const table = (await once({ manifests: [manifests, join(dir, 'm')] }, false)).out;
    expect(table).toContain('Notes\n  * 1 object skipped by className (this controller reads classless objects only): ClusterSPIFFEID/blue');
  });

  it('nothing declared: a plan that would delete every owned entry warns and exits 2; reconcile --once applies nothing without --allow-empty', async () => {
    mkdirSync(join(dir, 'empty'));
    const before = spire.entries.all();
    const plan = await once({ manifests: [join(dir, 'empty')], output: 'json' }, false);
    expect(plan.code).toBe(2);
    const report = JSON.parse(plan.out) as PlanReport;
    expect(report.summary.delete).toBe(3);
    expect(report.notes.at(-1)).toBe(
      `WARNING: nothing in the manifests (${join(dir, 'empty')}, 0 files) declares an entry (no ClusterSPIFFEID or ClusterStaticEntry of this controller's class), so a sync deletes every entry this controller owns (3 here). If that is meant, pass --allow-empty.`,
    );

    const refused = await once({ manifests: [join(dir, 'empty')] }, true);
    expect(refused.code).toBe(2);
    expect(spire.calls.some((c) => c.method === 'BatchDeleteEntry')).toBe(false);
    expect(spire.entries.all()).toEqual(before);

    const allowed = await once({ manifests: [join(dir, 'empty')], allowEmpty: true }, true);
    expect(allowed.code).toBe(0);
    expect(allowed.out).toContain('Applied: 0 created, 0 updated, 3 deleted, 0 failed');
    expect(spire.entries.size).toBe(1);
  });
});

describe('tables are folded to the terminal width', () => {
  it('breaks long lines at spaces and indents what follows', () => {
    const line = '  + scm-1  spiffe://demo.example/ns/payments/sa/payments-api  parent=spiffe://demo.example/spire/agent/x  [ClusterSPIFFEID/payments]';
    expect(wrapLines(`short\n${line}`, 60)).toBe(
      ['short', '  + scm-1  spiffe://demo.example/ns/payments/sa/payments-api', '      parent=spiffe://demo.example/spire/agent/x', '      [ClusterSPIFFEID/payments]'].join('\n'),
    );
    // A word longer than the line is cut rather than overflowing.
    expect(wrapLines('x'.repeat(50), 20).split('\n').every((l) => l.length <= 20)).toBe(true);
  });
});

describe('the progress line on a terminal', () => {
  it('rewrites one line on stderr at most every 100 ms, erases it when done, and is silent off a terminal', () => {
    let written = '';
    let now = 0;
    const realNow = Date.now;
    Date.now = () => now;
    try {
      const stream = { isTTY: true, columns: 30, write: (s: string) => (written += s) } as unknown as NodeJS.WriteStream;
      const progress = terminalProgress(stream);
      progress.update('listing pods: 500');
      now += 50;
      progress.update('listing pods: 1,000');
      now += 100;
      progress.update(`writing entries: 3,000 of 100,000 ${'x'.repeat(40)}`);
      progress.done();
      expect(written.split('\r')).toEqual(['', '\u001b[2Klisting pods: 500', '\u001b[2Kwriting entries: 3,000 of 10…', '\u001b[2K']);
      let silent = '';
      const pipe = { isTTY: false, write: (s: string) => (silent += s) } as unknown as NodeJS.WriteStream;
      terminalProgress(pipe).update('listing pods: 500');
      expect(silent).toBe('');
    } finally {
      Date.now = realNow;
    }
  });
});
