/**
 * Go text/template, as spire-controller-manager uses it for ClusterSPIFFEID
 * templates, compiled to Handlebars.
 *
 * A template is parsed with Go's grammar and parse-time checks, compiled to
 * Handlebars source whose helpers carry Go's semantics (field names mapped to
 * Kubernetes JSON keys, zero values, `<no value>`, Go truth, fmt printing),
 * compiled once by a private Handlebars instance and cached by source string.
 */

import type { TemplateDelegate } from 'handlebars';
import type { Node } from './ast.js';
import { ExecFault, TemplateExecError, TemplateParseError, positionOf } from './errors.js';
import { directRenderer } from './direct.js';
import { emit } from './emit.js';
import type { Site } from './emit.js';
import { TEMPLATE_DATA } from './gotypes.js';
import { compileHandlebars } from './helpers.js';
import type { Slots } from './helpers.js';
import { parse } from './parser.js';
import { GoValue } from './values.js';
import { startRender, TemplateLimitError, templateLimitProblem } from './limits.js';
import { type FieldsRead, fieldsRead } from './reads.js';

export { TemplateExecError, TemplateParseError } from './errors.js';
export { MAX_TEMPLATE_ACTIONS, MAX_TEMPLATE_BYTES, MAX_RENDER_CHARS, MAX_RENDER_ITERATIONS, TemplateLimitError, countActions, templateLimitProblem } from './limits.js';
export { type FieldsRead, type KeysRead, NOTHING_READ, OBJECT_ROOTS, type ObjectRoot, unionRead } from './reads.js';

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
  /** The Handlebars source it was compiled to (for diagnostics). */
  readonly handlebarsSource: string;
  /** Renders as spire-controller-manager would; throws TemplateExecError where Go's Execute fails. */
  render(data: TemplateData): string;
  /** True when plain data is rendered by concatenation rather than by Handlebars (text and string fields only; see direct.ts). */
  readonly isDirect: boolean;
  /**
   * The template's top level: text every render prints as it is (adjacent
   * pieces joined), and null for each action or block, whose output depends
   * on the data. What is certain of every output can be checked from it
   * before any pod is seen.
   */
  readonly outline: readonly (string | null)[];
  /** The first-level fields of each cluster object this template can read (see reads.ts): the caches keep only those. */
  readonly reads: FieldsRead;
}

class GoTemplate implements CompiledTemplate {
  readonly handlebarsSource: string;
  readonly reads: FieldsRead;
  private readonly template: TemplateDelegate<GoValue>;
  private readonly sites: readonly Site[];
  private readonly constants: readonly unknown[];
  private readonly slotCount: number;
  /** Runtime options shared by every render of a template that needs no variable slots. */
  private readonly sharedOptions: { data: { k: readonly unknown[] } } | undefined;

  /** Renders the simple templates without Handlebars, when the data allows (see direct.ts). */
  private readonly direct: ((data: TemplateData) => string | undefined) | undefined;

  readonly outline: readonly (string | null)[];

  constructor(readonly source: string) {
    const parsed = parse(source);
    this.outline = outlineOf(parsed.root);
    this.reads = fieldsRead(parsed.root);
    this.direct = directRenderer(parsed.root);
    const emitted = emit(parsed);
    this.handlebarsSource = emitted.source;
    this.sites = emitted.sites;
    this.constants = emitted.constants;
    this.slotCount = emitted.slotCount;
    this.sharedOptions = emitted.slotCount === 0 ? { data: { k: emitted.constants } } : undefined;
    this.template = compileHandlebars(emitted.source);
  }

  get isDirect(): boolean {
    return this.direct !== undefined;
  }

  render(data: TemplateData): string {
    const out = this.direct?.(data);
    if (out !== undefined) return out;
    const root = new GoValue(TEMPLATE_DATA, data);
    const options = this.sharedOptions ?? { data: { k: this.constants, v: new Array(this.slotCount) as Slots } };
    startRender();
    try {
      return this.template(root, options);
    } catch (err) {
      if (err instanceof ExecFault) {
        const site = this.sites[err.site];
        if (site !== undefined) throw new TemplateExecError(positionOf(this.source, site.pos), site.context, err.message);
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

const MAX_CACHED = 4096;
const cache = new Map<string, GoTemplate | TemplateParseError>();

function remember(source: string, entry: GoTemplate | TemplateParseError): void {
  // Templates come from a handful of cluster objects; the bound only stops unbounded growth.
  if (cache.size >= MAX_CACHED) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  cache.set(source, entry);
}

/**
 * Compiles a Go template; the same source string always gives back the same
 * compiled object. Throws TemplateParseError where Go's template.Parse fails.
 */
export function compileTemplate(source: string): CompiledTemplate {
  const hit = cache.get(source);
  if (hit instanceof TemplateParseError) throw hit;
  if (hit !== undefined) return hit;
  // Checked before anything is built: the parse and the Handlebars compile are what a huge template would exhaust the heap with.
  const tooBig = templateLimitProblem(source);
  if (tooBig !== undefined) throw new TemplateLimitError(tooBig);
  let compiled: GoTemplate;
  try {
    compiled = new GoTemplate(source);
  } catch (err) {
    if (err instanceof TemplateParseError) remember(source, err);
    throw err;
  }
  remember(source, compiled);
  return compiled;
}

/** Parse-only validation, for admission: undefined when the template parses, else the error message. */
export function checkTemplate(source: string): string | undefined {
  const hit = cache.get(source);
  if (hit !== undefined) return hit instanceof TemplateParseError ? hit.message : undefined;
  const tooBig = templateLimitProblem(source);
  if (tooBig !== undefined) return tooBig;
  try {
    parse(source);
    return undefined;
  } catch (err) {
    if (err instanceof TemplateParseError) return err.message;
    throw err;
  }
}
