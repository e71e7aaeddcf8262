import { parseAllDocuments, type DocumentOptions, type ParseOptions, type SchemaOptions, type ToJSOptions } from 'yaml';
import type { ManifestProblem } from './types.js';
import { errorMessage } from './files.js';

export interface ParsedDocument {
  /** 0-based index of the document in its file. */
  document: number;
  value: unknown;
}

export interface ParsedFile {
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
 */
const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags) =>
    tags.filter((t) => !(typeof t === 'object' && (t.tag === 'tag:yaml.org,2002:timestamp' || t.format === 'TIME'))),
};

/** The default alias limit guards against "billion laughs" documents. */
const TO_JS_OPTIONS: ToJSOptions = { maxAliasCount: 100 };

/** Splits a file into its documents; JSON files (by extension) hold one document. */
export function parseManifestText(file: string, text: string): ParsedFile {
  return file.toLowerCase().endsWith('.json') ? parseJson(file, text) : parseYaml(file, text);
}

function parseJson(file: string, text: string): ParsedFile {
  // JSON.parse rather than the YAML parser: it is much faster on large
  // `kubectl get -o json` snapshots and accepts tabs, which YAML does not.
  try {
    return { documents: [{ document: 0, value: JSON.parse(text) as unknown }], problems: [] };
  } catch (err) {
    return { documents: [], problems: [{ file, document: 0, severity: 'error', message: `JSON syntax error: ${errorMessage(err)}` }] };
  }
}

function parseYaml(file: string, text: string): ParsedFile {
  const documents: ParsedDocument[] = [];
  const problems: ManifestProblem[] = [];
  parseAllDocuments(text, YAML_OPTIONS).forEach((doc, document) => {
    // A repeated key is accepted by go-yaml v2 (the last value wins) and only
    // warned about by the API server; the object is kept, with a warning.
    const fatal = doc.errors.filter((e) => e.code !== 'DUPLICATE_KEY');
    for (const e of doc.errors) {
      if (e.code === 'DUPLICATE_KEY') {
        problems.push({ file, document, severity: 'warning', message: `${firstLine(e.message)} (the last value is used)` });
      }
    }
    if (fatal.length > 0) {
      // Later errors in a document usually follow from the first; one line is what the reader can act on.
      const first = fatal[0]!;
      const more = fatal.length > 1 ? ` (and ${fatal.length - 1} more in this document)` : '';
      problems.push({ file, document, severity: 'error', message: `YAML syntax error: ${firstLine(first.message)}${more}` });
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS(TO_JS_OPTIONS);
    } catch (err) {
      problems.push({ file, document, severity: 'error', message: `YAML error: ${errorMessage(err)}` });
      return;
    }
    // An empty document (a trailing `---`, or only comments) is no object at
    // all; kubectl skips it too.
    if (value !== null && value !== undefined) documents.push({ document, value });
  });
  return { documents, problems };
}

/** The yaml library appends a source excerpt after the first line; a problem is one line. */
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/:$/, '');
}
