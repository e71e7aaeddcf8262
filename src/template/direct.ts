/**
 * A direct renderer for the templates nearly every ClusterSPIFFEID uses:
 * text and plain field chains that end in a Go string, optionally looked up
 * in a string map with `index` and a constant key
 * (`spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}`,
 * `{{ index .PodMeta.Labels "app" }}`). It concatenates strings instead of
 * running Handlebars with Go's semantics, which costs a setup per call.
 *
 * It only handles data that leaves no room for Go's finer points: every
 * step reads an own property of a JSON object, and every printed value is a
 * JSON string. Anything else (a nil pointer, an absent field, a missing map
 * key, a value of the wrong JSON type) makes it give up, and the general
 * renderer produces the output or the error, exactly as before.
 */
import type { Node, Operand } from './ast.js';
import type { GoField, GoType } from './gotypes.js';
import { TEMPLATE_DATA } from './gotypes.js';

type Part = string | ((data: unknown) => string | undefined);

/** JSON keys from the root to the value, or undefined when the chain is not a plain one to a value of type `want`. */
function jsonPath(idents: readonly string[], want: (t: GoType) => boolean): string[] | undefined {
  let t: GoType = TEMPLATE_DATA;
  const path: string[] = [];
  for (const name of idents) {
    if (t.kind === 'ptr') t = t.elem;
    // Methods come before fields in Go; a plain step is a declared field of a JSON object.
    if (t.kind !== 'struct' || t.codec !== 'object' || t.methods.has(name)) return undefined;
    const field: GoField | undefined = t.fields.find((f) => f.name === name);
    if (field === undefined || field.embedded || !field.exported || field.json === '-') return undefined;
    path.push(field.json);
    t = field.type;
  }
  return want(t) ? path : undefined;
}

function read(data: unknown, path: readonly string[]): unknown {
  let v = data;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

// Named string types print through fmt like strings, unless they have a String() method.
const isString = (t: GoType) => t.kind === 'string' && t.methods.size === 0;
const isStringMap = (t: GoType) => t.kind === 'map' && t.key.name === 'string' && isString(t.elem);

function part(node: Node): Part | undefined {
  if (node.kind === 'text') return node.text;
  if (node.kind !== 'action' || node.pipe.decl.length > 0 || node.pipe.cmds.length !== 1) return undefined;
  const args: readonly Operand[] = node.pipe.cmds[0]!.args;
  const [first, second, third] = args;
  if (args.length === 1 && first?.kind === 'field') {
    const path = jsonPath(first.idents, isString);
    return path && ((data) => asString(read(data, path)));
  }
  if (args.length === 3 && first?.kind === 'identifier' && first.name === 'index' && second?.kind === 'field' && third?.kind === 'string') {
    const path = jsonPath(second.idents, isStringMap);
    const full = path && [...path, third.text];
    return full && ((data) => asString(read(data, full)));
  }
  return undefined;
}

/**
 * The direct renderer of a parsed template, or undefined when the template
 * is not of the simple kind. The renderer returns undefined for data it does
 * not handle.
 */
export function directRenderer(root: readonly Node[]): ((data: unknown) => string | undefined) | undefined {
  const parts: Part[] = [];
  for (const node of root) {
    const p = part(node);
    if (p === undefined) return undefined;
    parts.push(p);
  }
  return (data) => {
    let out = '';
    for (const p of parts) {
      if (typeof p === 'string') out += p;
      else {
        const s = p(data);
        if (s === undefined) return undefined;
        out += s;
      }
    }
    return out;
  };
}
