/**
 * Field names a template reads that the template data cannot have, found
 * without data: `{{ .PodMeta.Nmespace }}` fails on every pod it is rendered
 * for, yet Go parses it, so neither the webhook nor the reconcile can refuse
 * it before a pod is seen. `validate` reports these.
 *
 * Conservative: only chains whose type is known from the source are
 * followed: fields from the root data (dot in the main tree outside `with`
 * and `range`, or `$`), through structs. A chain stops being checked at a
 * method (whatever it returns), a map (`.PodMeta.Labels.app` is a key), a
 * slice, an interface or an unexported field; a `{{define}}`d tree, whose
 * dot is whatever its caller passes, is not checked. Nothing here can
 * refuse a template that renders.
 */
import type { Node, Operand, PipeNode } from './ast.js';
import { type FieldPath, type GoField, type GoType, TEMPLATE_DATA } from './gotypes.js';
import { parse } from './parser.js';

export interface UnknownField {
  /** The chain as written up to the unknown name (`.PodMeta.Nmespace`, `$.PodSpec.Nodename`). */
  readonly chain: string;
  /** The name before it (`PodMeta`), or `the template data` for a name at the root. */
  readonly holder: string;
  /** The unknown name (`Nmespace`). */
  readonly name: string;
  /** What could have been named there: the exported fields (promoted ones too), then the exported methods, for a "did you mean". */
  readonly fields: readonly string[];
  readonly methods: readonly string[];
}

/**
 * The unknown field names of a template that parses (it is parsed again
 * here, under `name`, as compileTemplate parses it). Each distinct chain is
 * reported once, in the order it first appears.
 */
export function unknownFields(source: string, name: string): UnknownField[] {
  const main = parse(source, name).trees.get(name);
  const found = new Map<string, UnknownField>();
  if (main) walk(main.root, true, found);
  return [...found.values()];
}

function walk(nodes: readonly Node[], dotIsRoot: boolean, found: Map<string, UnknownField>): void {
  for (const node of nodes) {
    switch (node.kind) {
      case 'action':
        pipe(node.pipe, dotIsRoot, found);
        break;
      case 'if':
        pipe(node.pipe, dotIsRoot, found);
        walk(node.list, dotIsRoot, found);
        walk(node.elseList ?? [], dotIsRoot, found);
        break;
      case 'with':
      case 'range':
        // The body's dot is the pipeline's value; `else` runs with dot unchanged.
        pipe(node.pipe, dotIsRoot, found);
        walk(node.list, false, found);
        walk(node.elseList ?? [], dotIsRoot, found);
        break;
      case 'template':
        if (node.pipe) pipe(node.pipe, dotIsRoot, found);
        break;
      default:
        break;
    }
  }
}

function pipe(p: PipeNode, dotIsRoot: boolean, found: Map<string, UnknownField>): void {
  for (const cmd of p.cmds) for (const arg of cmd.args) operand(arg, dotIsRoot, found);
}

function operand(o: Operand, dotIsRoot: boolean, found: Map<string, UnknownField>): void {
  switch (o.kind) {
    case 'field':
      if (dotIsRoot) check('', o.idents, found);
      break;
    case 'variable':
      // `$` (slot -1) is the root data in the main tree; other variables hold a pipeline's value.
      if (o.slot === -1) check('$', o.fields, found);
      break;
    case 'chain':
      operand(o.node, dotIsRoot, found);
      break;
    case 'pipe':
      pipe(o, dotIsRoot, found);
      break;
    default:
      break;
  }
}

/** Walks `idents` from the root data's type, as Go's evalField would, and records the first name no value of that type can have. */
function check(start: string, idents: readonly string[], found: Map<string, UnknownField>): void {
  let t: GoType = TEMPLATE_DATA;
  let holder = 'the template data';
  for (let i = 0; i < idents.length; i++) {
    const name = idents[i]!;
    while (t.kind === 'ptr') t = t.elem;
    // Methods come first in Go's lookup: a method name is valid, and what it returns is not followed.
    // A struct with no fields is one kubetypes.ts does not describe: its shape is unknown.
    if (t.methods.has(name) || t.kind !== 'struct' || t.fields.length === 0) return;
    const path: FieldPath | undefined = t.lookup.get(name);
    if (path === undefined) {
      const chain = `${start}.${idents.slice(0, i + 1).join('.')}`;
      if (!found.has(chain)) found.set(chain, { chain, holder, name, fields: exported(t.lookup.keys()), methods: exported(t.methods.keys()) });
      return;
    }
    const field: GoField = path[path.length - 1]!;
    if (!field.exported) return;
    t = field.type;
    holder = name;
  }
}

/** The names a template may use: Go's exported ones. */
function exported(names: Iterable<string>): string[] {
  return [...names].filter((n) => /^\p{Lu}/u.test(n));
}
