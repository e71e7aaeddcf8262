/**
 * The private Handlebars instance and the helpers that give the generated
 * Handlebars templates Go's semantics.
 *
 * Every helper takes the number of its site (a node of the Go template) as
 * its first argument, so that a failure can be reported at the right place.
 * Handlebars re-wraps every registered helper on each render, so the set is
 * kept small: Go's functions share one `fn` helper, and Handlebars' own
 * builtins are removed (the generated templates never use them).
 */

import Handlebars from 'handlebars';
import { ExecFault, GoArgumentError, GoError, Unsupported } from './errors.js';
import type { Arg, Cursor } from './eval.js';
import { fieldStep, valueOf } from './eval.js';
import { printAction } from './format.js';
import { BUILTINS } from './funcs.js';
import { INT } from './gotypes.js';
import { MAX_RENDER_CHARS, MAX_RENDER_ITERATIONS, renderBudget } from './limits.js';
import { GoValue, NO_VALUE, bigOf, indirect, readInt, readItems, readObject, sortedKeys, truth } from './values.js';

type Options = Handlebars.HelperOptions;
/** Variable slots of one render: values, or break (1) / continue (2) signals; undefined means "not declared at this point". */
export type Slots = (GoValue | number | undefined)[];

/** A compiled tree, for `{{template}}` to run. */
export interface TreeRunner {
  readonly run: Handlebars.TemplateDelegate<GoValue>;
  readonly slotCount: number;
  /** The slot `$` starts in, when the template assigns to it; -1 otherwise. */
  readonly dollarSlot: number;
}

/** What every render passes to Handlebars as @data. */
export interface RenderData {
  readonly k: readonly unknown[];
  readonly v?: Slots;
  readonly t: readonly TreeRunner[];
  /** How many `{{template}}` invocations deep this render is. */
  readonly d: number;
}

/**
 * Go stops at 100,000 nested `{{template}}` calls; JavaScript's stack ends
 * earlier. Deeper recursion is refused as unsupported (docs/templates.md, "Documented limits").
 */
export const MAX_TEMPLATE_DEPTH = 1000;

const hb = Handlebars.create();
for (const name of Object.keys(hb.helpers)) hb.unregisterHelper(name);

function atSite(site: number, err: unknown): unknown {
  if (err instanceof GoError) return new ExecFault(site, err.message, err instanceof Unsupported);
  return err;
}

function optionsOf(rest: readonly unknown[]): Options {
  return rest[rest.length - 1] as Options;
}

/**
 * Walks `names` from `recv`. After the names, a number n tells that the last
 * step gets arguments: n >> 1 explicit ones, then (n & 1) the piped one.
 */
function walk(recv: GoValue, rest: readonly unknown[]): GoValue {
  const end = rest.length - 1;
  cursor.t = recv.t;
  cursor.v = recv.v;
  cursor.addr = recv.addr;
  cursor.holder = recv.holder;
  cursor.key = recv.key;
  for (let i = 0; i < end; i++) {
    const name = rest[i];
    if (typeof name !== 'string') break;
    const next = rest[i + 1];
    if (typeof next === 'number') {
      const explicit = next >> 1;
      const args = rest.slice(i + 2, i + 2 + explicit) as Arg[];
      const final = (next & 1) === 1 ? (rest[i + 2 + explicit] as GoValue) : undefined;
      fieldStep(cursor, name, { args, final });
      break;
    }
    fieldStep(cursor, name, undefined);
  }
  return valueOf(cursor);
}

// One cursor for all field walks: helpers never run concurrently, and a method a walk calls does not walk.
const cursor: Cursor = { t: undefined, v: undefined, addr: false, holder: undefined, key: undefined };

/** The variable slots a run of a tree starts with; `$` is the data it runs on. */
export function newSlots(tree: TreeRunner, dot: GoValue): Slots | undefined {
  if (tree.slotCount === 0) return undefined;
  const slots = new Array(tree.slotCount) as Slots;
  if (tree.dollarSlot >= 0) slots[tree.dollarSlot] = dot;
  return slots;
}

/**
 * Counts output against the render's budget (limits.ts), so no template can
 * grow a string without bound. Go has no such bound: going over it is a
 * documented limit, so the error is marked unsupported.
 */
function spend(text: string): string {
  renderBudget.chars += text.length;
  if (renderBudget.chars > MAX_RENDER_CHARS) throw new Unsupported(`render output exceeds the limit of ${MAX_RENDER_CHARS} characters`);
  return text;
}

function resetSlots(slots: Slots, lo: number, hi: number): void {
  for (let i = lo; i < hi; i++) slots[i] = undefined;
}

const BREAK = 1;

/** The `fn` name that runs `{{template}}`; not a Go identifier, so no function can have it. */
export const TEMPLATE = '{{template}}';

/** `{{template "name" value}}`: runs the named tree with the value as dot and `$`, and no variables of ours. */
function runTemplate(site: number, index: number, value: GoValue, options: Options): string {
  const data = options.data as RenderData;
  if (data.d >= MAX_TEMPLATE_DEPTH) {
    throw new ExecFault(site, `exceeded maximum template depth (${MAX_TEMPLATE_DEPTH}; Go allows 100000)`, true);
  }
  const tree = data.t[index]!;
  return tree.run(value, { data: { k: data.k, v: newSlots(tree, value), t: data.t, d: data.d + 1 } });
}

const helpers: Record<string, (this: GoValue, ...args: never[]) => unknown> = {
  /** `{{ x }}`: print a value as Go does. */
  out(site: number, value: GoValue): string {
    try {
      return spend(printAction(value));
    } catch (err) {
      throw atSite(site, err);
    }
  },

  /** `{{ .A.B }}`: walk and print a field chain in one step, the most common action by far. */
  pf(site: number, recv: GoValue, ...rest: unknown[]): string {
    try {
      return spend(printAction(walk(recv, rest)));
    } catch (err) {
      throw atSite(site, err);
    }
  },

  /** `.A.B` as a value, or a method call `.A.B arg`. */
  field(site: number, recv: GoValue, ...rest: unknown[]): GoValue {
    try {
      return walk(recv, rest);
    } catch (err) {
      throw atSite(site, err);
    }
  },

  /** A call of one of Go's builtin functions, or (name TEMPLATE) `{{template}}`, which prints. */
  fn(site: number, name: string, ...rest: unknown[]): GoValue | string {
    if (name === TEMPLATE) return runTemplate(site, rest[0] as number, rest[1] as GoValue, optionsOf(rest));
    const builtin = BUILTINS.get(name);
    if (builtin === undefined) throw new ExecFault(site, `${JSON.stringify(name)} is not a defined function`);
    let result: GoValue;
    try {
      result = builtin(rest.slice(0, -1) as Arg[]);
    } catch (err) {
      if (err instanceof GoArgumentError) throw new ExecFault(site, err.message);
      if (err instanceof GoError) throw new ExecFault(site, `error calling ${name}: ${err.message}`, err instanceof Unsupported);
      throw err;
    }
    // printf's width alone can make a megabyte; a range can repeat it.
    if (typeof result.v === 'string') {
      try {
        spend(result.v);
      } catch (err) {
        throw atSite(site, err);
      }
    }
    return result;
  },

  /**
   * `{{if}}`: Go's truth, not Handlebars'. Trailing `slots lo hi` end the scope of variables declared inside.
   * With site -1 it guards what follows a possible break or continue instead (Handlebars wraps every
   * helper on each render, so this is no helper of its own): `{{#goIf -1 slots control...}}` renders
   * only while none of those control slots is set.
   */
  goIf(this: GoValue, site: number, value: GoValue, ...rest: unknown[]): string {
    const options = optionsOf(rest);
    if (site === -1) {
      const slots = value as unknown as Slots;
      for (let i = 0; i < rest.length - 1; i++) if (slots[rest[i] as number] !== undefined) return '';
      return options.fn(this);
    }
    const out = truth(value) ? options.fn(this) : options.inverse(this);
    if (rest.length === 4) resetSlots(rest[0] as Slots, rest[1] as number, rest[2] as number);
    return out;
  },

  /** `{{with}}`: like if, and the body sees the value as dot. */
  goWith(this: GoValue, site: number, value: GoValue, ...rest: unknown[]): string {
    const options = optionsOf(rest);
    const out = truth(value) ? options.fn(value) : options.inverse(this);
    if (rest.length === 4) resetSlots(rest[0] as Slots, rest[1] as number, rest[2] as number);
    return out;
  },

  /**
   * `{{range}}` over a slice, a map (in sorted key order) or an integer; the body
   * sees each element as dot and, when two variables are declared, the key as
   * @key. Trailing `slots lo bodyLo bodyHi hi control` end variable scopes and
   * name the slot a `{{break}}` or `{{continue}}` in the body sets (-1: none).
   */
  goRange(this: GoValue, site: number, value: GoValue, nvars: number, ...rest: unknown[]): string {
    const options = optionsOf(rest);
    const slots = rest.length === 7 ? (rest[0] as Slots) : undefined;
    const control = slots === undefined ? -1 : (rest[5] as number);
    let stopped = false;
    const iterate = (key: GoValue, elem: GoValue): string => {
      if (++renderBudget.iterations > MAX_RENDER_ITERATIONS) throw new Unsupported(`range exceeds the limit of ${MAX_RENDER_ITERATIONS} iterations in one render`);
      let data: unknown = options.data;
      if (nvars === 2) {
        const frame = hb.createFrame(options.data) as Record<string, unknown>;
        frame['key'] = key;
        data = frame;
      }
      const out = spend(options.fn(elem, { data }));
      if (slots !== undefined) {
        resetSlots(slots, rest[2] as number, rest[3] as number);
        if (control >= 0) {
          stopped = slots[control] === BREAK;
          slots[control] = undefined;
        }
      }
      return out;
    };
    let out = '';
    let ran = false;
    const x = indirect(value);
    const t = x.t;
    try {
      if (t === undefined) {
        // An invalid value (a missing key) ranges like an empty map.
      } else if (t.kind === 'slice') {
        const items = readItems(x.v);
        for (let i = 0; i < items.length && !stopped; i++) {
          ran = true;
          out += iterate(new GoValue(INT, i), new GoValue(t.elem, items[i], true));
        }
      } else if (t.kind === 'map') {
        const obj = readObject(x.v);
        if (obj !== undefined) {
          for (const key of sortedKeys(obj)) {
            if (stopped) break;
            ran = true;
            out += iterate(new GoValue(t.key, key), new GoValue(t.elem, obj[key]));
          }
        }
      } else if (t.kind === 'int' || t.kind === 'uint') {
        if (nvars > 1) throw new GoError(`can't use ${printAction(x)} to iterate over more than one variable`);
        const n = bigOf(readInt(x.v));
        for (let i = 0n; i < n && !stopped; i++) {
          ran = true;
          out += iterate(NO_VALUE, new GoValue(t, i <= 0x1fffffffffffffn ? Number(i) : i));
        }
      } else {
        let shown: string;
        try {
          shown = printAction(x);
        } catch {
          shown = `a value of type ${t.name}`;
        }
        throw new GoError(`range can't iterate over ${shown}`);
      }
    } catch (err) {
      throw atSite(site, err);
    }
    if (!ran) out = options.inverse(this);
    if (slots !== undefined) resetSlots(slots, rest[1] as number, rest[4] as number);
    return out;
  },

  /**
   * One step of a lazily evaluated `and`/`or`: the block evaluates the current
   * operand into register r; the else part evaluates the remaining operands,
   * and runs only when this operand does not already decide the result.
   */
  goAndOr(this: GoValue, site: number, slots: Slots, r: number, isOr: boolean, options: Options): string {
    options.fn(this);
    const value = slots[r];
    if (value instanceof GoValue && truth(value) === isOr) return '';
    return options.inverse(this);
  },

  /** Reads a variable (or an and/or register). */
  getv(site: number, slots: Slots, slot: number, name: string): GoValue {
    const value = slots[slot];
    if (!(value instanceof GoValue)) throw new ExecFault(site, `undefined variable: ${name}`);
    return value;
  },

  /**
   * Declares (`:=`) or assigns (`=`, which needs an existing variable) a variable; prints nothing.
   * `{{break}}` and `{{continue}}` set their range's control slot to 1 or 2 through it too.
   */
  setv(site: number, slots: Slots, slot: number, name: string, assign: boolean, value: GoValue | number): string {
    if (assign && slots[slot] === undefined) throw new ExecFault(site, `undefined variable: ${name}`);
    slots[slot] = value;
    return '';
  },


  /**
   * An error Go raises at execution for a construct known to fail (wrong number
   * of arguments, arguments to a non-function); arguments are evaluated first,
   * as Go evaluates them before reaching the error.
   */
  fail(site: number, message: string): never {
    throw new ExecFault(site, message);
  },
};

for (const [name, helper] of Object.entries(helpers)) hb.registerHelper(name, helper as Handlebars.HelperDelegate);

const KNOWN_HELPERS = Object.fromEntries(Object.keys(helpers).map((name) => [name, true]));

export const COMPILE_OPTIONS = {
  noEscape: true,
  strict: true,
  knownHelpersOnly: true,
  knownHelpers: KNOWN_HELPERS,
  // Go keeps the whitespace around block actions; Handlebars would strip "standalone" lines.
  ignoreStandalone: true,
} as const;

/** Parses eagerly, so that a Handlebars syntax problem surfaces when the template is compiled, not at its first render. */
export function compileHandlebars(source: string): Handlebars.TemplateDelegate<GoValue> {
  const ast = hb.parse(source, { ignoreStandalone: true });
  return hb.compile<GoValue>(ast, COMPILE_OPTIONS);
}
