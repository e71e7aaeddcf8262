/**
 * Go text/template, as spire-controller-manager uses it for ClusterSPIFFEID
 * templates.
 *
 * A template is parsed with Go's grammar and parse-time checks (parser.ts),
 * and its tree is run by an executor shaped like Go's exec.go (exec.ts), with
 * Go's semantics: field names mapped to Kubernetes JSON keys, zero values,
 * `<no value>`, Go truth, fmt printing. Compiled templates are cached by
 * source string.
 */

import { ExecFault, TemplateExecError, TemplateParseError, positionOf } from './errors.js';
import { type Executable, compileTrees } from './exec.js';
import { TEMPLATE_DATA } from './gotypes.js';
import { parse } from './parser.js';
import { GoValue } from './values.js';
import type { Node } from './ast.js';
import { startRender, TemplateLimitError, templateLimitProblem } from './limits.js';
import { type FieldsRead, fieldsRead } from './reads.js';

export { TemplateExecError, TemplateParseError } from './errors.js';
export { MAX_TEMPLATE_ACTIONS, MAX_TEMPLATE_BYTES, MAX_RENDER_CHARS, MAX_RENDER_ITERATIONS, TemplateLimitError, countActions, templateLimitProblem } from './limits.js';
export { unknownFields } from './fields.js';
export { type FieldsRead, type KeysRead, OBJECT_ROOTS, unionRead } from './reads.js';

/**
 * spire-controller-manager's templateData. The objects are Kubernetes JSON
 * (`metadata` of a Pod or Node, `spec` of a Pod or Node); templates address
 * them by Go field name (`.PodMeta.Namespace`). null is Go's nil pointer:
 * PodMeta and PodSpec are null while a parent ID is rendered.
 */
export interface TemplateData {
  TrustDomain: string;
  ClusterName: string;
  ClusterDomain: string;
  PodMeta: Record<string, unknown> | null;
  PodSpec: Record<string, unknown> | null;
  NodeMeta: Record<string, unknown> | null;
  NodeSpec: Record<string, unknown> | null;
}

export interface CompiledTemplate {
  /** The Go template text. */
  readonly source: string;
  /** The name it was parsed under (upstream's: spiffeIDTemplate, dnsNameTemplate, ...). */
  readonly name: string;
  /** Renders as spire-controller-manager would; throws TemplateExecError where Go's Execute fails. */
  render(data: TemplateData): string;
  /**
   * The template's top level: text every render prints as it is (adjacent
   * pieces joined), and null for each action or block, whose output depends
   * on the data. What is certain of every output can be checked from it
   * before any pod is seen.
   */
  readonly outline: readonly (string | null)[];
  /**
   * Beside each of the outline's actions (at the same index), the field it
   * prints when the action is only that, such as `{{ .TrustDomain }}` (as
   * `TrustDomain`) or `{{ .PodMeta.Namespace }}` (`PodMeta.Namespace`);
   * undefined for text and for any other action. What a field may hold tells
   * more of every output than the outline alone.
   */
  readonly printedFields: readonly (string | undefined)[];
  /** The first-level fields of each cluster object this template can read (see reads.ts): the caches keep only those. */
  readonly reads: FieldsRead;
}

class GoTemplate implements CompiledTemplate {
  readonly reads: FieldsRead;
  readonly outline: readonly (string | null)[];
  readonly printedFields: readonly (string | undefined)[];
  private readonly executable: Executable;

  constructor(
    readonly source: string,
    readonly name: string,
  ) {
    const parsed = parse(source, name);
    const root = parsed.trees.get(name)?.root ?? [];
    this.outline = outlineOf(root);
    this.printedFields = printedFieldsOf(root);
    this.reads = fieldsRead(parsed.trees, name);
    this.executable = compileTrees(parsed, name);
  }

  render(data: TemplateData): string {
    startRender();
    try {
      return this.executable.run(new GoValue(TEMPLATE_DATA, data));
    } catch (err) {
      if (err instanceof ExecFault) {
        throw new TemplateExecError(positionOf(this.source, err.site.pos), err.site.context, err.message, { unsupported: err.unsupported });
      }
      if (err instanceof RangeError) {
        // The JavaScript stack ran out (deep nesting); Go's would have gone on.
        throw new TemplateExecError({ line: 1, column: 0 }, '', `spire-reconciler ran out of stack: ${err.message}`, { cause: err, unsupported: true });
      }
      throw new TemplateExecError({ line: 1, column: 0 }, '', `internal error: ${(err as Error).message}`, { cause: err });
    }
  }
}

function outlineOf(root: readonly Node[]): (string | null)[] {
  const out: (string | null)[] = [];
  for (const node of root) {
    const last = out.length - 1;
    if (node.kind !== 'text') out.push(null);
    else if (last >= 0 && out[last] !== null) out[last] += node.text;
    else out.push(node.text);
  }
  return out;
}

/** For each outline slot (text runs joined, as outlineOf joins them): the field an action prints alone, else undefined. */
function printedFieldsOf(root: readonly Node[]): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  let previousText = false;
  for (const node of root) {
    if (node.kind === 'text') {
      if (!previousText) out.push(undefined);
      previousText = true;
      continue;
    }
    previousText = false;
    const cmd = node.kind === 'action' && node.pipe.decl.length === 0 && node.pipe.cmds.length === 1 ? node.pipe.cmds[0] : undefined;
    const arg = cmd?.args.length === 1 ? cmd.args[0] : undefined;
    out.push(arg?.kind === 'field' ? arg.idents.join('.') : undefined);
  }
  return out;
}

/**
 * The names upstream parses its templates under. A name matters only to a
 * template that defines or invokes templates: `{{template "spiffeIDTemplate"}}`
 * runs the template itself, and `{{define}}` of the same name replaces it.
 */
export const TEMPLATE_NAMES = {
  spiffeID: 'spiffeIDTemplate',
  dnsName: 'dnsNameTemplate',
  workloadSelector: 'workloadSelectorTemplate',
  parentID: 'customParentIDTemplate',
} as const;

const MAX_CACHED = 4096;
const cache = new Map<string, GoTemplate | TemplateParseError>();

function remember(key: string, entry: GoTemplate | TemplateParseError): void {
  // Templates come from a handful of cluster objects; the bound only stops unbounded growth.
  if (cache.size >= MAX_CACHED) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  cache.set(key, entry);
}

/** The cache key: the source alone unless the name can matter (a template that defines or invokes templates). */
function cacheKey(source: string, name: string): string {
  return /\{\{-?\s*(?:template|define|block)\b/.test(source) ? `${name}\u0000${source}` : source;
}

/**
 * Compiles a Go template as `template.New(name).Parse(source)` does; the same
 * source (and name) always gives back the same compiled object. Throws
 * TemplateParseError where Go's Parse fails.
 */
export function compileTemplate(source: string, name: string = TEMPLATE_NAMES.spiffeID): CompiledTemplate {
  const key = cacheKey(source, name);
  const hit = cache.get(key);
  if (hit instanceof TemplateParseError) throw hit;
  if (hit !== undefined) return hit;
  // Checked before anything is built: the parse and the executable tree are what a huge template would exhaust the heap with.
  const tooBig = templateLimitProblem(source);
  if (tooBig !== undefined) throw new TemplateLimitError(tooBig);
  let compiled: GoTemplate;
  try {
    compiled = new GoTemplate(source, name);
  } catch (err) {
    if (err instanceof TemplateParseError) remember(key, err);
    throw err;
  }
  remember(key, compiled);
  return compiled;
}

