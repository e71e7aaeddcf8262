/**
 * Which fields of the cluster objects a template can read: for each of
 * `.PodMeta`, `.PodSpec`, `.NodeMeta` and `.NodeSpec`, the JSON keys of its
 * first level, or `all`. The controller's caches keep only these (see
 * src/kube/projection.ts), so the answer must never be too small: anything
 * this does not follow exactly counts as reading the whole object.
 *
 * Exact: a field chain from the template's root (`.PodSpec.ServiceAccountName`,
 * `$.PodMeta.Labels`, a getter such as `.PodMeta.GetName`) reads that first-level
 * key, whatever follows it. Inside `with` and `range`, dot is the value of the
 * pipeline, which is already kept whole, so chains from dot read nothing more;
 * a variable holds a pipeline's value, likewise. Whole: dot or `$` at the root
 * (`{{ . }}`, `{{ with $ }}`), a root object itself (`.PodSpec`), and any method
 * other than a getter.
 */
import type { Tree } from './ast.js';
import { visitRootReads } from './root-reads.js';
import { TEMPLATE_DATA } from './gotypes.js';
import type { GoType } from './gotypes.js';

/** The template data members that are cluster objects (the rest are strings from the config). */
export const OBJECT_ROOTS = ['PodMeta', 'PodSpec', 'NodeMeta', 'NodeSpec'] as const;
type ObjectRoot = (typeof OBJECT_ROOTS)[number];

/** First-level JSON keys read, or every key. */
export type KeysRead = ReadonlySet<string> | 'all';
export type FieldsRead = Readonly<Record<ObjectRoot, KeysRead>>;

class Collector {
  readonly keys: Record<ObjectRoot, Set<string> | 'all'> = { PodMeta: new Set(), PodSpec: new Set(), NodeMeta: new Set(), NodeSpec: new Set() };

  everything(): void {
    for (const r of OBJECT_ROOTS) this.keys[r] = 'all';
  }

  /** A chain of Go field names from the root data. */
  chain(idents: readonly string[]): void {
    if (idents.length === 0) return this.everything();
    const root = idents[0] as ObjectRoot;
    if (!OBJECT_ROOTS.includes(root)) return;
    const second = idents[1];
    const at = this.keys[root];
    if (at === 'all') return;
    const key = second === undefined ? undefined : firstLevelKey(rootType(root), second);
    if (key === undefined) this.keys[root] = 'all';
    else at.add(key);
  }
}

function rootType(root: ObjectRoot): GoType {
  const t = TEMPLATE_DATA.elem;
  const field = t.kind === 'struct' ? t.lookup.get(root)?.[0] : undefined;
  return field!.type;
}

/** The JSON key a Go field or getter of the struct reads; undefined for anything else (a method: could read anything). */
function firstLevelKey(t: GoType, name: string): string | undefined {
  const s = t.kind === 'ptr' ? t.elem : t;
  if (s.kind !== 'struct') return undefined;
  // ObjectMeta's getters (GetName) read the field they are named after (see methods.ts).
  const getterOf = s.name === 'v1.ObjectMeta' && name.startsWith('Get') ? name.slice(3) : undefined;
  const path = s.lookup.get(name) ?? (getterOf === undefined ? undefined : s.lookup.get(getterOf));
  // A field promoted from an embedded struct reads from the enclosing object: no single key.
  if (path === undefined || path.length !== 1 || path[0]!.embedded) return undefined;
  return path[0]!.json;
}

/**
 * What a parsed template can read of each cluster object. Only the main tree
 * starts with the root data as dot; a `{{define}}`d or `{{block}}` tree gets
 * the value its `{{template}}` call passes, counted at the call. `$` in such a
 * tree is that value too, but reading it as the root data can only keep more.
 */
export function fieldsRead(trees: ReadonlyMap<string, Tree>, main: string): FieldsRead {
  const c = new Collector();
  const visitor = { chain: (_from: string, idents: readonly string[]) => c.chain(idents), dot: () => c.everything() };
  for (const [name, tree] of trees) visitRootReads(tree.root, name === main, visitor);
  return c.keys;
}

/** The union of what several templates read. */
export function unionRead(reads: Iterable<FieldsRead>): FieldsRead {
  const out: Record<ObjectRoot, Set<string> | 'all'> = { PodMeta: new Set(), PodSpec: new Set(), NodeMeta: new Set(), NodeSpec: new Set() };
  for (const r of reads) {
    for (const root of OBJECT_ROOTS) {
      const into = out[root];
      const from = r[root];
      if (into === 'all') continue;
      if (from === 'all') out[root] = 'all';
      else for (const k of from) into.add(k);
    }
  }
  return out;
}
