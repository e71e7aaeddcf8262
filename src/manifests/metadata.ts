import type { FieldProblem } from '../api/index.js';
import type { KindInfo } from './kinds.js';
import { isPlainObject } from './lists.js';
import { appendField } from './problem.js';

/**
 * Checks and normalises `metadata` in place, for every kind we keep. The
 * engine relies on name, namespace, uid, labels and annotations having these
 * shapes, so an object that breaks them is rejected here rather than failing
 * somewhere deeper. Returns the issues; the object is usable only if there
 * are none.
 */
export function normaliseMetadata(obj: Record<string, unknown>, kind: string, info: KindInfo): FieldProblem[] {
  const meta = obj.metadata;
  if (meta === undefined || meta === null) return [{ field: 'metadata', message: 'is required' }];
  if (!isPlainObject(meta)) return [{ field: 'metadata', message: 'must be object' }];

  // `creationTimestamp: null` is what `kubectl create --dry-run -o yaml`
  // writes; the API server treats null as absent, and so do we.
  for (const [k, v] of Object.entries(meta)) if (v === null) delete meta[k];
  // managedFields is often the larger half of a kubectl snapshot, and nothing reads it.
  delete meta.managedFields;

  const issues: FieldProblem[] = [];
  requireString(meta, 'name', true, issues);
  if (info.namespaced) meta.namespace ??= 'default';
  requireString(meta, 'namespace', false, issues);
  requireString(meta, 'uid', false, issues);
  requireString(meta, 'creationTimestamp', false, issues);
  requireString(meta, 'deletionTimestamp', false, issues);
  requireStringMap(meta, 'labels', issues);
  requireStringMap(meta, 'annotations', issues);
  if (issues.length > 0) return issues;

  // Objects from files have no UID, but the engine keys pods and breaks ties
  // between objects by UID; a stable synthetic one keeps both deterministic
  // across re-reads of the same files.
  if (meta.uid === undefined) {
    const ns = info.namespaced ? `${meta.namespace as string}/` : '';
    meta.uid = `manifest:${kind}/${ns}${meta.name as string}`;
  }
  return issues;
}

function requireString(meta: Record<string, unknown>, key: string, required: boolean, issues: FieldProblem[]): void {
  const v = meta[key];
  const field = appendField('metadata', key);
  if (v === undefined) {
    if (required) issues.push({ field, message: 'is required' });
  } else if (typeof v !== 'string') {
    issues.push({ field, message: 'must be string' });
  } else if (required && v === '') {
    issues.push({ field, message: 'must not be empty' });
  }
}

function requireStringMap(meta: Record<string, unknown>, key: string, issues: FieldProblem[]): void {
  const v = meta[key];
  if (v === undefined) return;
  const field = appendField('metadata', key);
  if (!isPlainObject(v)) {
    issues.push({ field, message: 'must be object' });
    return;
  }
  for (const [k, value] of Object.entries(v)) {
    // An unquoted `true` or `8080` label value parses as a bool or number;
    // Kubernetes rejects it too, so the manifest would not apply either.
    if (typeof value !== 'string') issues.push({ field: appendField(field, k), message: 'must be string' });
  }
}
