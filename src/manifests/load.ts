import type { Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { admitSpireObject } from './crd-schema.js';
import { errorMessage, expandEnv } from '../api/index.js';
import { listManifestFiles } from './files.js';
import { lookupKind } from './kinds.js';
import { expandDocument, isPlainObject, type RawObject } from './lists.js';
import { normaliseMetadata } from './metadata.js';
import { parseManifestText } from './parse.js';
import { joinField } from './problem.js';
import type { LoadOptions, ManifestProblem, ManifestSet, Severity } from './types.js';

/**
 * Reads manifest files and directories into the object shapes the engine
 * uses (static mode). Nothing is fatal: every bad file, document or object
 * becomes a problem and is skipped, and everything else still loads, so one
 * typo cannot hide the rest of a directory.
 */
export async function loadManifests(paths: string[], opts: LoadOptions = {}): Promise<ManifestSet> {
  const set: ManifestSet = {
    clusterSPIFFEIDs: [],
    clusterStaticEntries: [],
    clusterFederatedTrustDomains: [],
    namespaces: [],
    pods: [],
    nodes: [],
    endpointSlices: [],
    endpoints: [],
    problems: [],
    files: [],
    origins: new WeakMap(),
    changedWhileRead: [],
    newestChangeMs: 0,
  };
  const listed = await listManifestFiles(paths);
  set.problems.push(...listed.problems);
  const env = opts.env ?? process.env;
  // Where each object was first seen, to report a second one of the same identity.
  const seen = new Map<string, string>();

  for (const file of listed.files) {
    let text: string;
    let before: Stats;
    let after: Stats;
    try {
      before = await stat(file);
      text = await readFile(file, 'utf8');
      after = await stat(file);
    } catch (err) {
      set.problems.push({ file, document: -1, severity: 'error', message: `cannot read: ${errorMessage(err)}` });
      continue;
    }
    set.newestChangeMs = Math.max(set.newestChangeMs, after.mtimeMs, after.ctimeMs);
    if (movedWhileRead(before, after)) {
      set.changedWhileRead.push(file);
      set.problems.push({ file, document: -1, severity: 'error', message: 'changed while being read (a writer is at work): skipped; read it again once it is still' });
      continue;
    }
    if (opts.expandEnv) text = expandEnv(text, env);
    const parsed = parseManifestText(file, text);
    if (opts.skipNonKubernetes && isNotKubernetes(parsed)) {
      (set.notKubernetes ??= []).push(file);
      continue;
    }
    set.files.push(file);
    set.problems.push(...parsed.problems);
    for (const doc of parsed.documents) {
      for (const raw of expandDocument(doc)) addObject(set, seen, file, raw);
    }
  }
  return set;
}

/**
 * Whether a document could be meant as a Kubernetes object: a mapping with
 * apiVersion, kind or metadata at its top, or a list holding one (a
 * misindented manifest). Anything else (a dashboard, a values file) is data
 * of another kind.
 */
function looksLikeKubernetes(value: unknown): boolean {
  const marked = (v: unknown) => isPlainObject(v) && ('apiVersion' in v || 'kind' in v || 'metadata' in v);
  return Array.isArray(value) ? value.some(marked) : marked(value);
}

/** A file that parsed (an unparsable one is still an error) and holds no document that looks like a Kubernetes object. */
function isNotKubernetes(parsed: ReturnType<typeof parseManifestText>): boolean {
  return parsed.documents.length > 0 && parsed.problems.every((p) => p.severity !== 'error') && !parsed.documents.some((d) => looksLikeKubernetes(d.value));
}

/**
 * spire-controller-manager's static loader decodes a file into the object
 * without asking for metadata (its own loader tests have none), so our kinds
 * may come without a name: such an object is named after its file (and its
 * place in it, past the first), which is unique and says where it is.
 */
function nameAfterFile(obj: Record<string, unknown>, file: string, raw: RawObject): boolean {
  const meta = obj.metadata ?? {};
  if (!isPlainObject(meta) || (typeof meta.name === 'string' && meta.name !== '')) return false;
  const where = raw.document > 0 || raw.field ? `#${raw.document}${raw.field ? `.${raw.field}` : ''}` : '';
  obj.metadata = { ...meta, name: `${basename(file)}${where}` };
  return true;
}

/** A file written to (or replaced) while we read it: its identity, size or times moved. */
function movedWhileRead(before: Stats, after: Stats): boolean {
  return before.ino !== after.ino || before.size !== after.size || before.mtimeMs !== after.mtimeMs || before.ctimeMs !== after.ctimeMs;
}

function addObject(set: ManifestSet, seen: Map<string, string>, file: string, raw: RawObject): void {
  const at = { file, document: raw.document };
  const problem = (p: Omit<ManifestProblem, 'file' | 'document' | 'severity'>, severity: Severity = 'error'): void => {
    set.problems.push({ ...at, severity, ...p, field: joinField(raw.field, p.field) });
  };
  const obj = raw.value;
  if (!isPlainObject(obj)) {
    problem({ message: 'not an object' });
    return;
  }
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  if (!apiVersion || !kind) {
    // Without both, the object's type is unknown: nothing can be said of the rest.
    if (!apiVersion) problem({ field: 'apiVersion', message: 'is required' });
    if (!kind) problem({ field: 'kind', message: 'is required' });
    return;
  }
  const info = lookupKind(apiVersion, kind);
  // A kubectl snapshot holds many kinds; only the ones we read matter.
  if (!info) return;

  const namedAfterFile = info.crd !== undefined && nameAfterFile(obj, file, raw);
  const rawName = isPlainObject(obj.metadata) ? obj.metadata.name : undefined;
  const name = typeof rawName === 'string' && rawName !== '' ? rawName : undefined;
  let rejected = false;
  for (const issue of normaliseMetadata(obj, kind, info)) {
    problem({ kind, name, ...issue });
    rejected = true;
  }
  if (info.crd) {
    for (const issue of admitSpireObject(info.crd, obj)) {
      // metadata's presence and shape were checked above, more precisely.
      if (issue.field === 'metadata') continue;
      problem({ kind, name, field: issue.field, message: issue.message }, issue.unknownField ? 'warning' : 'error');
      if (!issue.unknownField) rejected = true;
    }
  }
  if (rejected) return;

  const meta = obj.metadata as { name: string; namespace?: string };
  const identity = `${kind} ${info.namespaced ? `${meta.namespace}/` : ''}${meta.name}`;
  const first = seen.get(identity);
  if (first !== undefined) {
    problem({ kind, name, message: `duplicate of the object in ${first}; skipped` });
    return;
  }
  seen.set(identity, `${file} doc ${raw.document}`);
  (set[info.bucket] as unknown[]).push(obj);
  set.origins.set(obj, namedAfterFile ? { ...at, namedAfterFile } : at);
}
