/**
 * The differential test: our engine against Go's text/template, as
 * spire-controller-manager runs it (test/template/go-oracle/), over the
 * real-world corpus, the quirk corpus and seeded fuzzed templates. Outputs
 * must be equal, and for failures the phase (parse or execute); error wording
 * is not compared. Cases under a documented limit (docs/templates.md) are counted apart.
 *
 * Runs when `go` (1.26 or later) is on the PATH; otherwise it says so and is
 * skipped. The fuzzer runs 10,000 cases under CI=true and 1,500 otherwise;
 * TEMPLATE_FUZZ_CASES and TEMPLATE_FUZZ_SEED override both.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { difference, documentedLimit } from './oracle/compare.js';
import { corpusCases } from './oracle/corpus.js';
import { fuzzCase } from './oracle/fuzz.js';
import { TEMPLATE_SRC, goTypes, kubeTypesSource, unicodeSource } from './oracle/generate.js';
import { GoOracle, buildOracle, goTables, goVersion } from './oracle/go.js';
import { renderOurs } from './oracle/ours.js';
import type { Outcome, RenderCase } from './oracle/protocol.js';

const version = await goVersion();
const minor = /go1\.(\d+)/.exec(version ?? '')?.[1];
const usable = minor !== undefined && Number(minor) >= 26;
if (!usable) {
  console.warn(
    version === undefined
      ? 'test/template/oracle.test.ts: skipped, no `go` on the PATH (the differential test against Go text/template needs Go 1.26 or later)'
      : `test/template/oracle.test.ts: skipped, ${version} is older than Go 1.26, which the differential test checks against`,
  );
}

const FUZZ_CASES = Number(process.env['TEMPLATE_FUZZ_CASES'] ?? (process.env['CI'] === 'true' ? 10_000 : 1_500));
const FUZZ_SEED = Number(process.env['TEMPLATE_FUZZ_SEED'] ?? 20260828);
const BATCH = 500;

interface Tally {
  readonly differences: string[];
  readonly limits: Map<string, number>;
  readonly phases: Map<string, number>;
}

let oracle: GoOracle;
let binary: string;

/** Renders the cases with Go and with ours and collects what differs. */
async function compare(cases: readonly RenderCase[], describeCase: (i: number) => string): Promise<Tally> {
  const tally: Tally = { differences: [], limits: new Map(), phases: new Map() };
  for (let start = 0; start < cases.length; start += BATCH) {
    const batch = cases.slice(start, start + BATCH);
    const goOutcomes: Outcome[] = await oracle.render(batch);
    batch.forEach((c, k) => {
      const go = goOutcomes[k]!;
      tally.phases.set(go.phase, (tally.phases.get(go.phase) ?? 0) + 1);
      const ours = renderOurs(c);
      const limit = documentedLimit(go, ours);
      if (limit !== undefined) {
        tally.limits.set(limit, (tally.limits.get(limit) ?? 0) + 1);
        return;
      }
      const diff = difference(go, ours);
      if (diff !== undefined) tally.differences.push(`${describeCase(start + k)}\n  template: ${JSON.stringify(c.template)}\n  ${diff}`);
    });
  }
  return tally;
}

function summary(what: string, n: number, tally: Tally): string {
  const limits = [...tally.limits].map(([k, v]) => `${v} ${k}`).join(', ') || 'none';
  return `${what}: ${n} cases, Go phases ${JSON.stringify(Object.fromEntries(tally.phases))}, under documented limits: ${limits}`;
}

describe.runIf(usable)('templates render as Go text/template renders them (differential test against real Go)', () => {
  beforeAll(async () => {
    binary = await buildOracle(version!);
    oracle = new GoOracle(binary);
  }, 600_000);

  afterAll(async () => {
    await oracle?.close();
  });

  it('the committed Kubernetes type model and Unicode tables are what Go reports', async () => {
    const [types, tables] = await Promise.all([goTypes(binary), goTables(binary)]);
    const regenerate = 'stale: run `npx tsx test/template/oracle/generate.ts`';
    expect(await readFile(join(TEMPLATE_SRC, 'kubetypes.ts'), 'utf8'), `kubetypes.ts is ${regenerate}`).toBe(kubeTypesSource(types));
    expect(await readFile(join(TEMPLATE_SRC, 'unicode.ts'), 'utf8'), `unicode.ts is ${regenerate}`).toBe(unicodeSource(tables));
  });

  it('renders every template of the real-world corpus as Go does, with no documented limit involved', async () => {
    const cases = corpusCases('real-world.json');
    const tally = await compare(cases, (i) => cases[i]!.label);
    console.log(summary('real-world corpus', cases.length, tally));
    expect(tally.differences).toEqual([]);
    expect(tally.limits.size).toBe(0);
  }, 120_000);

  it('agrees with Go on every case of the quirk corpus', async () => {
    const cases = corpusCases('quirks.json');
    const tally = await compare(cases, (i) => cases[i]!.label);
    console.log(summary('quirk corpus', cases.length, tally));
    expect(tally.differences).toEqual([]);
  }, 120_000);

  it(`agrees with Go on ${FUZZ_CASES} fuzzed templates (seed ${FUZZ_SEED})`, async () => {
    const cases = Array.from({ length: FUZZ_CASES }, (_, i) => fuzzCase(FUZZ_SEED, i));
    const tally = await compare(
      cases,
      (i) => `fuzz case ${FUZZ_SEED}:${i} (npx tsx test/template/oracle/run.ts --case ${FUZZ_SEED}:${i}; add it to corpus/quirks.json once fixed)`,
    );
    console.log(summary(`fuzz seed ${FUZZ_SEED}`, cases.length, tally));
    expect(tally.differences.slice(0, 20)).toEqual([]);
    // The generator must keep reaching every phase, or the comparison proves little.
    for (const phase of ['ok', 'exec', 'parse']) expect(tally.phases.get(phase) ?? 0).toBeGreaterThan(FUZZ_CASES * 0.1);
    expect(tally.phases.get('data') ?? 0).toBe(0);
  }, 900_000);
});
