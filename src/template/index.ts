/**
 * Go text/template, as spire-controller-manager uses it for ClusterSPIFFEID
 * templates, compiled to Handlebars.
 *
 * A template is parsed with Go's grammar and parse-time checks, compiled to
 * Handlebars source whose helpers carry Go's semantics (field names mapped to
 * Kubernetes JSON keys, zero values, `<no value>`, Go truth, fmt printing),
 * compiled once by a private Handlebars instance and cached by source string.
 */

import { ExecFault, TemplateExecError, TemplateParseError, positionOf } from './errors.js';
import { directRenderer } from './direct.js';
import { emit } from './emit.js';
import type { Site } from './emit.js';
import { TEMPLATE_DATA } from './gotypes.js';
import { compileHandlebars, newSlots } from './helpers.js';
import type { RenderData, TreeRunner } from './helpers.js';
import { parse } from './parser.js';
import { GoValue } from './values.js';
import type { Node } from './ast.js';
import { startRender, TemplateLimitError, templateLimitProblem } from './limits.js';
import { type FieldsRead, fieldsRead } from './reads.js';

export { TemplateExecError, TemplateParseError } from './errors.js';
export { MAX_TEMPLATE_ACTIONS, MAX_TEMPLATE_BYTES, MAX_RENDER_CHARS, MAX_RENDER_ITERATIONS, TemplateLimitError, countActions, templateLimitProblem } from './limits.js';
export { type UnknownField, unknownFields } from './fields.js';
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
  /** The name it was parsed under (upstream's: spiffeIDTemplate, dnsNameTemplate, ...). */
  readonly name: string;
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
  private readonly trees: readonly TreeRunner[];
  private readonly main: TreeRunner;
  private readonly sites: readonly Site[];
  private readonly constants: readonly unknown[];
  /** Runtime data shared by every render of a template whose main tree needs no variable slots. */
  private readonly sharedData: RenderData | undefined;

  /** Renders the simple templates without Handlebars, when the data allows (see direct.ts). */
  private readonly direct: ((data: TemplateData) => string | undefined) | undefined;

  readonly outline: readonly (string | null)[];

  constructor(
    readonly source: string,
    readonly name: string,
  ) {
    const parsed = parse(source, name);
    const mainTree = parsed.trees.get(name);
    this.outline = outlineOf(mainTree?.root ?? []);
    this.reads = fieldsRead(parsed.trees, name);
    this.direct = parsed.trees.size === 1 && mainTree !== undefined ? directRenderer(mainTree.root) : undefined;
    const emitted = emit(parsed);
    this.handlebarsSource = emitted.trees.map((t) => (emitted.trees.length === 1 ? t.source : `{{!-- ${t.name} --}}${t.source}`)).join('\n');
    this.sites = emitted.sites;
    this.constants = emitted.constants;
    this.trees = emitted.trees.map((t) => ({ run: compileHandlebars(t.source), slotCount: t.slotCount, dollarSlot: t.dollarSlot }));
    this.main = this.trees[emitted.main]!;
    this.sharedData = this.main.slotCount === 0 ? { k: emitted.constants, t: this.trees, d: 0 } : undefined;
  }

  get isDirect(): boolean {
    return this.direct !== undefined;
  }

  render(data: TemplateData): string {
    const out = this.direct?.(data);
    if (out !== undefined) return out;
    const root = new GoValue(TEMPLATE_DATA, data);
    const renderData = this.sharedData ?? { k: this.constants, v: newSlots(this.main, root), t: this.trees, d: 0 };
    startRender();
    try {
      return this.main.run(root, { data: renderData });
    } catch (err) {
      if (err instanceof ExecFault) {
        const site = this.sites[err.site];
        if (site !== undefined) {
          throw new TemplateExecError(positionOf(this.source, site.pos), site.context, err.message, { unsupported: err.unsupported });
        }
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
  // Checked before anything is built: the parse and the Handlebars compile are what a huge template would exhaust the heap with.
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

/** Parse-only validation, for admission: undefined when the template parses, else the error message. */
export function checkTemplate(source: string, name: string = TEMPLATE_NAMES.spiffeID): string | undefined {
  const hit = cache.get(cacheKey(source, name));
  if (hit !== undefined) return hit instanceof TemplateParseError ? hit.message : undefined;
  const tooBig = templateLimitProblem(source);
  if (tooBig !== undefined) return tooBig;
  try {
    parse(source, name);
    return undefined;
  } catch (err) {
    if (err instanceof TemplateParseError) return err.message;
    throw err;
  }
}
