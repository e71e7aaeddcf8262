/**
 * Bounds on what one template may cost. Go's text/template has none, and
 * spire-controller-manager none either; but a compiled template here holds
 * heap in proportion to its actions, so a few objects with templates of
 * 50,000 actions (950 KB each) would exhaust the 192 MiB heap deploy/ gives
 * the process, and a `{{ range 1000000000 }}` would never end. Real templates are a few hundred
 * bytes with under twenty actions, so the limits sit far above them.
 */

/** Source text of one template, in UTF-8 bytes. */
export const MAX_TEMPLATE_BYTES = 16 * 1024;
/** Actions (`{{ ... }}`, comments and block ends included) in one template. */
export const MAX_TEMPLATE_ACTIONS = 128;
/** `{{ range }}` iterations in one render, nested ones included. */
export const MAX_RENDER_ITERATIONS = 10_000;
/**
 * Characters one render may produce, counting every printed action, every
 * string a function returns and every range iteration's output (so nested
 * output counts more than once: a bound, not a measure). Anything valid is
 * far smaller: a SPIFFE ID is at most 2,048 bytes, a DNS name 253.
 */
export const MAX_RENDER_CHARS = 1024 * 1024;

/** The number of actions in a template: its `{{` delimiters (an upper bound where text holds a stray `{{`). */
export function countActions(source: string): number {
  let n = 0;
  for (let i = source.indexOf('{{'); i !== -1; i = source.indexOf('{{', i + 2)) n++;
  return n;
}

/** Why a template is over the limits, or undefined. Linear in its length and allocates nothing, so it can run before any parsing. */
export function templateLimitProblem(source: string): string | undefined {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > MAX_TEMPLATE_BYTES) return `template is ${bytes} bytes, over the limit of ${MAX_TEMPLATE_BYTES}`;
  const actions = countActions(source);
  if (actions > MAX_TEMPLATE_ACTIONS) return `template has ${actions} actions, over the limit of ${MAX_TEMPLATE_ACTIONS}`;
  return undefined;
}

/** Raised by compileTemplate for a template over the limits: it is never parsed. */
export class TemplateLimitError extends Error {
  override readonly name = 'TemplateLimitError';
}

/**
 * What the render in progress has used. Renders are synchronous and never
 * nest, so one record serves them all; GoTemplate.render resets it.
 */
export const renderBudget = { iterations: 0, chars: 0 };

export function startRender(): void {
  renderBudget.iterations = 0;
  renderBudget.chars = 0;
}
