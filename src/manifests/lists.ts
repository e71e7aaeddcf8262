import type { ParsedDocument } from './parse.js';

/** One candidate object: a whole document, or one item of a List document. */
export interface RawObject {
  document: number;
  /** `items[i]` for a List item; problems inside it are prefixed with this. */
  field?: string;
  value: unknown;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Expands `kind: List` (what `kubectl get a,b,c -o yaml` prints) and typed
 * lists such as PodList into their items. Items of a typed list read straight
 * from the API carry no apiVersion/kind; they get the list's.
 */
export function expandDocument(doc: ParsedDocument): RawObject[] {
  const v = doc.value;
  if (!isPlainObject(v) || typeof v.kind !== 'string' || !v.kind.endsWith('List') || !Array.isArray(v.items)) {
    return [{ document: doc.document, value: v }];
  }
  const itemKind = v.kind === 'List' ? undefined : v.kind.slice(0, -'List'.length);
  return v.items.map((item: unknown, i) => {
    if (itemKind !== undefined && isPlainObject(item)) {
      item.kind ??= itemKind;
      if (typeof v.apiVersion === 'string') item.apiVersion ??= v.apiVersion;
    }
    return { document: doc.document, field: `items[${i}]`, value: item };
  });
}
