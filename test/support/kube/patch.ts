/**
 * The four PATCH content types the API server accepts, as pure functions over
 * JSON values: JSON merge patch (RFC 7386), JSON patch (RFC 6902), an
 * approximation of strategic merge patch, and the field merge server-side
 * apply performs (without field ownership or conflicts).
 */
import { KubeApiError, badRequest } from './errors.js';
import { isPlainObject, jsonCopy, jsonEqual, type JsonObject } from './types.js';

export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** RFC 7386: objects merge recursively, null deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return jsonCopy(patch);
  const out: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** A JSON patch that cannot be applied is 422 on the API server (a malformed one is 400). */
function patchFailed(message: string): KubeApiError {
  return new KubeApiError(422, 'Invalid', message);
}

function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw badRequest(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = JsonObject | unknown[];

function walk(doc: unknown, path: string[], pointer: string): { parent: Container; key: string } {
  let cur = doc;
  for (const seg of path.slice(0, -1)) {
    if (Array.isArray(cur)) {
      const i = Number(seg);
      if (!/^\d+$/.test(seg) || i >= cur.length) throw patchFailed(`doc is missing path: "${pointer}"`);
      cur = cur[i];
    } else if (isPlainObject(cur)) {
      if (!Object.hasOwn(cur, seg)) throw patchFailed(`doc is missing path: "${pointer}"`);
      cur = cur[seg];
    } else {
      throw patchFailed(`doc is missing path: "${pointer}"`);
    }
  }
  if (!Array.isArray(cur) && !isPlainObject(cur)) throw patchFailed(`doc is missing path: "${pointer}"`);
  return { parent: cur, key: path[path.length - 1]! };
}

function getAt(doc: unknown, pointer: string): unknown {
  const path = decodePointer(pointer);
  if (path.length === 0) return doc;
  const { parent, key } = walk(doc, path, pointer);
  if (Array.isArray(parent)) {
    const i = Number(key);
    if (!/^\d+$/.test(key) || i >= parent.length) throw patchFailed(`doc is missing path: "${pointer}"`);
    return parent[i];
  }
  if (!Object.hasOwn(parent, key)) throw patchFailed(`doc is missing path: "${pointer}"`);
  return parent[key];
}

function removeAt(doc: unknown, pointer: string): unknown {
  const path = decodePointer(pointer);
  if (path.length === 0) throw patchFailed('cannot remove the whole document');
  const { parent, key } = walk(doc, path, pointer);
  if (Array.isArray(parent)) {
    const i = Number(key);
    if (!/^\d+$/.test(key) || i >= parent.length) throw patchFailed(`Unable to remove nonexistent key: ${key}: missing value`);
    return parent.splice(i, 1)[0];
  }
  if (!Object.hasOwn(parent, key)) throw patchFailed(`Unable to remove nonexistent key: ${key}: missing value`);
  const old = parent[key];
  delete parent[key];
  return old;
}

/** Returns the new document (the root may be replaced). */
function addAt(doc: unknown, pointer: string, value: unknown, replace: boolean): unknown {
  const path = decodePointer(pointer);
  if (path.length === 0) return value;
  const { parent, key } = walk(doc, path, pointer);
  if (Array.isArray(parent)) {
    if (replace) {
      const i = Number(key);
      if (!/^\d+$/.test(key) || i >= parent.length) throw patchFailed(`replace operation does not apply: doc is missing key: ${pointer}`);
      parent[i] = value;
    } else if (key === '-') {
      parent.push(value);
    } else {
      const i = Number(key);
      if (!/^\d+$/.test(key) || i > parent.length) throw patchFailed(`add operation does not apply: index out of bounds: ${pointer}`);
      parent.splice(i, 0, value);
    }
  } else {
    if (replace && !Object.hasOwn(parent, key)) throw patchFailed(`replace operation does not apply: doc is missing key: ${pointer}`);
    parent[key] = value;
  }
  return doc;
}

/** RFC 6902 over a copy of the document. */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let doc = jsonCopy(target);
  for (const raw of ops) {
    if (!isPlainObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw badRequest('json patch operation is missing op or path');
    }
    const { op, path } = raw;
    switch (op) {
      case 'add':
      case 'replace':
        if (!Object.hasOwn(raw, 'value')) throw patchFailed(`${op} operation has no value`);
        doc = addAt(doc, path, jsonCopy(raw.value), op === 'replace');
        break;
      case 'remove':
        removeAt(doc, path);
        break;
      case 'move':
      case 'copy': {
        if (typeof raw.from !== 'string') throw patchFailed(`${op} operation has no from`);
        const value = op === 'move' ? removeAt(doc, raw.from) : jsonCopy(getAt(doc, raw.from));
        doc = addAt(doc, path, value, false);
        break;
      }
      case 'test':
        if (!jsonEqual(getAt(doc, path), raw.value)) throw patchFailed(`testing value ${path} failed: test failed`);
        break;
      default:
        throw badRequest(`Unexpected kind: ${op}`);
    }
  }
  return doc;
}

/**
 * The list merge keys of the built-in types' most used lists (`patchMergeKey`
 * in their Go definitions). A list of objects without a known key is replaced,
 * as merge patch would; `$patch: delete` and `$retainKeys` are not supported.
 */
function mergeKeyFor(field: string, items: unknown[]): string | undefined {
  const first = items.find(isPlainObject);
  if (!first) return undefined;
  const table: Record<string, string[]> = {
    containers: ['name'],
    initContainers: ['name'],
    ephemeralContainers: ['name'],
    env: ['name'],
    volumes: ['name'],
    volumeMounts: ['mountPath'],
    conditions: ['type'],
    ownerReferences: ['uid'],
    imagePullSecrets: ['name'],
    ports: ['containerPort', 'port'],
  };
  return table[field]?.find((k) => Object.hasOwn(first, k));
}

/** Primitive lists with patchStrategy=merge: the union is kept. */
const SET_LISTS = new Set(['finalizers']);

export function strategicMergePatch(target: unknown, patch: unknown, field = ''): unknown {
  if (Array.isArray(patch) && Array.isArray(target)) {
    if (SET_LISTS.has(field)) return [...target, ...patch.filter((v) => !target.some((t) => jsonEqual(t, v)))];
    const key = mergeKeyFor(field, patch) ?? mergeKeyFor(field, target);
    if (!key) return jsonCopy(patch);
    const out = target.map((t) => jsonCopy(t));
    for (const item of patch) {
      if (!isPlainObject(item)) continue;
      const i = out.findIndex((t) => isPlainObject(t) && jsonEqual(t[key], item[key]));
      if (item.$patch === 'delete') {
        if (i >= 0) out.splice(i, 1);
      } else if (i >= 0) {
        out[i] = strategicMergePatch(out[i], item);
      } else {
        out.push(mergePatch({}, item));
      }
    }
    return out;
  }
  if (!isPlainObject(patch)) return jsonCopy(patch);
  const out: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k.startsWith('$setElementOrder/')) continue;
    if (v === null) delete out[k];
    else out[k] = strategicMergePatch(out[k], v, k);
  }
  return out;
}

/**
 * Server-side apply, simplified: the applied configuration's fields are merged
 * into the live object (objects recursively, lists and scalars replaced).
 * Field ownership is not tracked, so fields a manager stops applying are kept
 * and conflicts between managers are never reported.
 */
export function applyMerge(target: unknown, applied: unknown): unknown {
  if (!isPlainObject(applied)) return jsonCopy(applied);
  const out: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(applied)) {
    if (v === null) delete out[k];
    else out[k] = applyMerge(out[k], v);
  }
  return out;
}
