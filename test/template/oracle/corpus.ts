/**
 * The two corpora of the differential test, as render cases: every template
 * with every data set of CORPUS_DATA (a pod, a parent ID's nil pod, a sparse
 * pod).
 *
 * corpus/real-world.json: templates from public manifests, each with the URL
 * (at a commit) it was taken from. corpus/quirks.json: hand-written cases for
 * Go's corners. A fuzz case that once disagreed belongs in quirks.json.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORPUS_DATA } from './data.js';
import type { RenderCase } from './protocol.js';

interface CorpusEntry {
  readonly template: string;
  /** The name upstream parses it under; spiffeIDTemplate when absent. */
  readonly name?: string;
  readonly source?: string;
  readonly note: string;
}

export interface LabelledCase extends RenderCase {
  readonly label: string;
}

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'corpus');

export function corpus(file: 'real-world.json' | 'quirks.json'): readonly CorpusEntry[] {
  return JSON.parse(readFileSync(join(DIR, file), 'utf8')) as CorpusEntry[];
}

export function corpusCases(file: 'real-world.json' | 'quirks.json'): LabelledCase[] {
  return corpus(file).flatMap((entry) =>
    CORPUS_DATA.map(([label, data]) => ({
      name: entry.name ?? 'spiffeIDTemplate',
      template: entry.template,
      data,
      label: `${file} ${JSON.stringify(entry.template)} (${entry.note}) with ${label}`,
    })),
  );
}
