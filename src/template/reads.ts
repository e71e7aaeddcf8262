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
import type { Node, Operand, PipeNode } from './ast.js';
import { TEMPLATE_DATA } from './gotypes.js';
import type { GoType } from './gotypes.js';

/** The template data members that are cluster objects (the rest are strings from the config). */
export const OBJECT_ROOTS = ['PodMeta', 'PodSpec', 'NodeMeta', 'NodeSpec'] as const;
export type ObjectRoot = (typeof OBJECT_ROOTS)[number];

/** First-level JSON keys read, or every key. */
export type KeysRead = ReadonlySet<string> | 'all';
export type FieldsRead = Readonly<Record<ObjectRoot, KeysRead>>;

export const NOTHING_READ: FieldsRead = Object.freeze({ PodMeta: new Set<string>(), PodSpec: new Set<string>(), NodeMeta: new Set<string>(), NodeSpec: new Set<string>() });

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
  const field = t.kind === 'struct' ? t.fields?.get(root) : undefined;
  return field!.type;
}

/** The JSON key a Go field or getter of the struct reads; undefined for anything else (a method: could read anything). */
function firstLevelKey(t: GoType, name: string): string | undefined {
  const s = t.kind === 'ptr' ? t.elem : t;
  if (s.kind !== 'struct' || s.fields === undefined) return undefined;
  const field = s.fields.get(s.getters.get(name) ?? name);
  // An embedded struct reads from the enclosing object: no single key.
  if (field === undefined || field.inline) return undefined;
  return field.json;
}

function walk(nodes: readonly Node[], dotIsRoot: boolean, c: Collector): void {
  for (const node of nodes) {
    switch (node.kind) {
      case 'text':
        break;
      case 'action':
        pipe(node.pipe, dotIsRoot, c);
        break;
      case 'if':
        pipe(node.pipe, dotIsRoot, c);
        walk(node.list, dotIsRoot, c);
        walk(node.elseList ?? [], dotIsRoot, c);
        break;
      case 'with':
      case 'range':
        // The body's dot is the pipeline's value; `else` runs with dot unchanged.
        pipe(node.pipe, dotIsRoot, c);
        walk(node.list, false, c);
        walk(node.elseList ?? [], dotIsRoot, c);
        break;
    }
  }
}

function pipe(p: PipeNode, dotIsRoot: boolean, c: Collector): void {
  for (const cmd of p.cmds) for (const arg of cmd.args) operand(arg, dotIsRoot, c);
}

function operand(o: Operand, dotIsRoot: boolean, c: Collector): void {
  switch (o.kind) {
    case 'field':
      if (dotIsRoot) c.chain(o.idents);
      break;
    case 'dot':
      if (dotIsRoot) c.everything();
      break;
    case 'variable':
      // `$` is the root data wherever it appears; other variables hold a pipeline's value.
      if (o.slot === -1) c.chain(o.fields);
      break;
    case 'chain':
      operand(o.node, dotIsRoot, c);
      break;
    case 'pipe':
      pipe(o, dotIsRoot, c);
      break;
    default:
      break;
  }
}

/** What a parsed template can read of each cluster object. */
export function fieldsRead(root: readonly Node[]): FieldsRead {
  const c = new Collector();
  walk(root, true, c);
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
