/**
 * Runs the differential test by hand, outside vitest:
 *   npx tsx test/template/oracle/run.ts [--seed N] [--cases N] [--show N] [--case SEED:INDEX] [--corpus]
 * prints every difference (the first --show in full) and a summary; --corpus
 * runs the two corpora instead of fuzzed cases.
 *   npx tsx test/template/oracle/run.ts --template '{{ ... }}' [--data pod|parent|sparse] [--name NAME]
 * shows what Go and our engine make of one template.
 */
import { corpusCases } from './corpus.js';
import { CORPUS_DATA } from './data.js';
import { fuzzCase } from './fuzz.js';
import { GoOracle, buildOracle, goVersion } from './go.js';
import { difference, documentedLimit } from './compare.js';
import { renderOurs } from './ours.js';
import type { RenderCase } from './protocol.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

const version = await goVersion();
if (version === undefined) throw new Error('no go on the PATH');
const oracle = new GoOracle(await buildOracle(version));

const oneTemplate = option('template');
if (oneTemplate !== undefined) {
  const which = option('data') ?? 'pod';
  const data = CORPUS_DATA.find(([label]) => label.startsWith(which))?.[1];
  if (data === undefined) throw new Error(`--data is one of ${CORPUS_DATA.map(([label]) => label.split(' ')[0]).join(', ')}`);
  const c: RenderCase = { name: option('name') ?? 'spiffeIDTemplate', template: oneTemplate, data };
  const [go] = await oracle.render([c]);
  const ours = renderOurs(c);
  const limit = documentedLimit(go!, ours);
  console.log(`Go:   ${JSON.stringify(go)}\nours: ${JSON.stringify(ours)}\n${limit !== undefined ? `a documented limit (${limit})` : (difference(go!, ours) ?? 'they agree')}`);
  await oracle.close();
  process.exit(0);
}
const seed = Number(option('seed') ?? 1);
const count = Number(option('cases') ?? 10_000);
const show = Number(option('show') ?? 20);
const single = option('case');
const indexes = single === undefined ? Array.from({ length: count }, (_, i) => i) : [Number(single.split(':')[1])];
const runSeed = single === undefined ? seed : Number(single.split(':')[0]);

const useCorpus = process.argv.includes('--corpus');
const corpusList = useCorpus ? [...corpusCases('real-world.json'), ...corpusCases('quirks.json')] : [];
if (useCorpus) indexes.splice(0, indexes.length, ...corpusList.map((_, i) => i));

let shown = 0;
let differences = 0;
let limited = 0;
const phases = new Map<string, number>();
for (let start = 0; start < indexes.length; start += 500) {
  const batch = indexes.slice(start, start + 500);
  const cases: RenderCase[] = batch.map((i) => corpusList[i] ?? fuzzCase(runSeed, i));
  const goOutcomes = await oracle.render(cases);
  cases.forEach((c, k) => {
    const go = goOutcomes[k]!;
    if (go.phase === 'timeout') console.log(`--- Go ran away on case ${runSeed}:${batch[k]}\n${c.template}\n`);
    phases.set(go.phase, (phases.get(go.phase) ?? 0) + 1);
    const ours = renderOurs(c);
    if (documentedLimit(go, ours) !== undefined) {
      limited++;
      return;
    }
    const diff = difference(go, ours);
    if (diff === undefined) return;
    differences++;
    if (shown++ < show || single !== undefined) {
      const label = useCorpus ? (corpusList[batch[k]!]?.label ?? '') : `case ${runSeed}:${batch[k]} (${c.name})`;
      console.log(`--- ${label}\n${c.template}\n${diff}\n`);
    }
  });
}
await oracle.close();
console.log(`${indexes.length} cases, ${differences} differences, ${limited} under documented limits; Go phases: ${JSON.stringify(Object.fromEntries(phases))}`);
