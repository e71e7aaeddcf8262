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
 * refuse a template that renders. The places a template reads the root
 * data are found by root-reads.ts, which reads.ts uses too.
 */
import { type FieldPath, type GoField, type GoType, TEMPLATE_DATA } from './gotypes.js';
import { parse } from './parser.js';
import { visitRootReads } from './root-reads.js';

interface UnknownField {
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
  if (main) visitRootReads(main.root, true, { chain: (from, idents) => check(from, idents, found), dot: () => undefined });
  return [...found.values()];
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
