import {
  Composer,
  type DocumentOptions,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  Parser,
  type ParseOptions,
  type SchemaOptions,
  type ToJSOptions,
  type YAMLError,
} from 'yaml';
import type { ManifestProblem } from './types.js';
import { errorMessage } from '../api/index.js';
import { MAX_NESTING, nestingProblem } from './nesting.js';
import { documentBudget, jsonCost, MiB, yamlCost } from './budget.js';

/** What to do about a document too large for the heap. */
const TOO_LARGE_ADVICE = 'split it, or give Node a larger heap (--max-old-space-size)';

export interface ParsedDocument {
  /** 0-based index of the document in its file. */
  document: number;
  value: unknown;
}

interface ParsedFile {
  documents: ParsedDocument[];
  problems: ManifestProblem[];
}

/**
 * YAML as Kubernetes reads it. kubectl and spire-controller-manager decode
 * YAML with go-yaml v2, which follows YAML 1.1: `yes`/`no`/`on`/`off`/`y`/`n`
 * are booleans, `0777` is octal, `<<` merges. We do the same, so that a field
 * means here what it means there, except that timestamps and base-60 numbers
 * stay strings: go-yaml v2 leaves timestamps as strings when decoding into
 * untyped maps, and has no base-60 numbers at all.
 *
 * uniqueKeys is off because the library checks each key against every key
 * before it (a map of 20,000 keys took 9.3 s, of 100,000 over a minute):
 * repeated keys are found here instead, with a set (repeatedKeys).
 */
const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  uniqueKeys: false,
  customTags: (tags) =>
    tags.filter((t) => !(typeof t === 'object' && (t.tag === 'tag:yaml.org,2002:timestamp' || t.format === 'TIME'))),
};

/** The default alias limit guards against "billion laughs" documents. */
const TO_JS_OPTIONS: ToJSOptions = { maxAliasCount: 100 };

/** Splits a file into its documents; JSON files (by extension) hold one document. */
export function parseManifestText(file: string, text: string): ParsedFile {
  return file.toLowerCase().endsWith('.json') ? parseJson(file, text) : parseYaml(file, text);
}

/** The kind and name of a document that is refused whole, read shallowly, so the problem can name the object too. */
function identityOf(kind: unknown, name: unknown): { kind?: string; name?: string } {
  return { kind: typeof kind === 'string' ? kind : undefined, name: typeof name === 'string' ? name : undefined };
}

function identityOfValue(v: unknown): { kind?: string; name?: string } {
  if (typeof v !== 'object' || v === null) return {};
  const o = v as { kind?: unknown; metadata?: { name?: unknown } };
  return identityOf(o.kind, typeof o.metadata === 'object' && o.metadata !== null ? o.metadata.name : undefined);
}

function parseJson(file: string, text: string): ParsedFile {
  const fail = (message: string, field?: string, identity: { kind?: string; name?: string } = {}): ParsedFile => ({
    documents: [],
    problems: [{ file, document: 0, severity: 'error', ...identity, field: field || undefined, message }],
  });
  const budget = documentBudget();
  const cost = jsonCost(text);
  if (cost > budget) {
    const message = `${MiB(Buffer.byteLength(text, 'utf8'))} of JSON would take about ${MiB(cost)} of heap to read, over the ${MiB(budget)} a document may take now (half of the heap left); ${TOO_LARGE_ADVICE}`;
    return { documents: [], problems: [{ file, document: 0, severity: 'error', message, overHeapBudget: true }] };
  }
  // JSON.parse rather than the YAML parser: it is much faster on large
  // `kubectl get -o json` snapshots and accepts tabs, which YAML does not.
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    return fail(`JSON syntax error: ${errorMessage(err)}`);
  }
  const deep = nestingProblem(value);
  if (deep) return fail(deep.message, deep.field, identityOfValue(value));
  return { documents: [{ document: 0, value }], problems: [] };
}

/** A line that starts or ends a YAML document: `---` or `...` at column 0, then a space or the line's end. */
const MARKERS = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;
const STARTS_WITH_MARKER = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/;

/**
 * Finds the documents too large to read and blanks them out before the
 * parser sees them: only the marker and the line breaks stay, so the other
 * documents keep their index and every line its number. A document's extent
 * is read off the markers alone, which YAML forbids inside a document's
 * content, so nothing is parsed to measure it.
 */
function withoutOversizedDocuments(file: string, text: string, problems: ManifestProblem[]): string {
  const budget = documentBudget();
  if (yamlCost(text) <= budget) return text;
  const cuts = [0];
  for (const m of text.matchAll(MARKERS)) if (m.index > 0) cuts.push(m.index);
  cuts.push(text.length);
  const kept: string[] = [];
  let line = 1;
  for (let i = 0; i + 1 < cuts.length; i++) {
    const piece = text.slice(cuts[i], cuts[i + 1]);
    const breaks = piece.split('\n').length - 1;
    const cost = yamlCost(piece);
    if (cost > budget) {
      problems.push({
        file,
        document: -1,
        severity: 'error',
        message: `the YAML document at line ${line} (${breaks + 1} lines, ${MiB(Buffer.byteLength(piece, 'utf8'))}) would take about ${MiB(cost)} of heap to read, over the ${MiB(budget)} a document may take now (half of the heap left); ${TOO_LARGE_ADVICE}, or write it as JSON, which takes far less`,
        overHeapBudget: true,
      });
      kept.push((STARTS_WITH_MARKER.test(piece) ? piece.slice(0, 3) : '') + '\n'.repeat(breaks));
    } else {
      kept.push(piece);
    }
    line += breaks;
  }
  return kept.join('');
}

function parseYaml(file: string, text: string): ParsedFile {
  const documents: ParsedDocument[] = [];
  const problems: ManifestProblem[] = [];
  const source = withoutOversizedDocuments(file, text, problems);
  const lines = new LineCounter();
  const at = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return `at line ${line}, column ${col}`;
  };
  // The library reads nesting by recursion, and reports its own stack overflow as an error of the document.
  const describe = (e: YAMLError) => `${/Maximum call stack/.test(e.message) ? 'nests too deeply to read' : firstLine(e.message)} ${at(e.pos[0])}`;
  const composer = new Composer(YAML_OPTIONS);
  let document = 0;
  // One document at a time: only the one being read is held as a syntax tree.
  for (const doc of composer.compose(new Parser(lines.addNewLine).parse(source))) {
    const index = document++;
    const problem = (severity: ManifestProblem['severity'], message: string, field?: string, identity: { kind?: string; name?: string } = {}) =>
      problems.push({ file, document: index, severity, ...identity, field: field || undefined, message });
    if (doc.errors.length > 0) {
      // Later errors in a document usually follow from the first; one line is what the reader can act on.
      const more = doc.errors.length > 1 ? ` (and ${doc.errors.length - 1} more in this document)` : '';
      problem('error', `YAML syntax error: ${describe(doc.errors[0]!)}${more}`);
      continue;
    }
    const shape = walkYaml(doc.contents);
    // A repeated key is accepted by go-yaml v2 (the last value wins) and only
    // warned about by the API server; the object is kept, with a warning.
    for (const offset of shape.repeatedKeys) problem('warning', `Map keys must be unique ${at(offset)} (the last value is used)`);
    if (shape.tooDeepAt !== undefined) {
      problem('error', `YAML nests deeper than ${MAX_NESTING} levels ${at(shape.tooDeepAt)}; no Kubernetes object does`, undefined, identityOf(doc.get('kind'), doc.getIn(['metadata', 'name'])));
      continue;
    }
    let value: unknown;
    try {
      value = doc.toJS(TO_JS_OPTIONS);
    } catch (err) {
      problem('error', `YAML error: ${errorMessage(err)}`);
      continue;
    }
    // Aliases can nest what the syntax tree did not.
    const deep = nestingProblem(value);
    if (deep) {
      problem('error', deep.message, deep.field, identityOfValue(value));
      continue;
    }
    // An empty document (a trailing `---`, or only comments) is no object at
    // all; kubectl skips it too.
    if (value !== null && value !== undefined) documents.push({ document: index, value });
  }
  return { documents, problems };
}

/**
 * One iterative pass over a document's syntax tree: where its maps repeat a
 * key (a set per map: linear), and where it first nests deeper than
 * MAX_NESTING (before toJS, which recurses).
 */
function walkYaml(root: unknown): { repeatedKeys: number[]; tooDeepAt?: number } {
  const repeatedKeys: number[] = [];
  const stack: { node: unknown; depth: number }[] = [{ node: root, depth: 0 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { node, depth } = top;
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth >= MAX_NESTING) return { repeatedKeys, tooDeepAt: node.range?.[0] ?? 0 };
    if (isSeq(node)) {
      for (const item of node.items) stack.push({ node: item, depth: depth + 1 });
      continue;
    }
    const seen = new Set<unknown>();
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = pair.key;
      // Merge keys (`<<`) may repeat, as the library itself allows.
      if (isScalar(key) && key.value !== '<<') {
        if (seen.has(key.value)) repeatedKeys.push(key.range?.[0] ?? 0);
        seen.add(key.value);
      }
      stack.push({ node: key, depth: depth + 1 }, { node: pair.value, depth: depth + 1 });
    }
  }
  return { repeatedKeys: repeatedKeys.sort((a, b) => a - b) };
}

/** The yaml library appends a source excerpt after the first line; a problem is one line. */
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/:$/, '');
}
