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
import { ExecFault, GoArgumentError, GoError } from './errors.js';
import { printAction } from './format.js';
import { BUILTINS } from './funcs.js';
import { INT } from './gotypes.js';
import { MAX_RENDER_CHARS, MAX_RENDER_ITERATIONS, renderBudget } from './limits.js';
import { GoValue, NO_VALUE, fieldStep, indirect, readItems, readNumber, readObject, sortedKeys, truth } from './values.js';
import type { Cursor } from './values.js';

type Options = Handlebars.HelperOptions;
/** Variable slots of one render; undefined means "not declared at this point". */
export type Slots = (GoValue | undefined)[];

const hb = Handlebars.create();
for (const name of Object.keys(hb.helpers)) hb.unregisterHelper(name);

function atSite(site: number, err: unknown): unknown {
  return err instanceof GoError ? new ExecFault(site, err.message) : err;
}

function optionsOf(rest: readonly unknown[]): Options {
  return rest[rest.length - 1] as Options;
}

// One cursor for all field walks: helpers never run concurrently.
const cursor: Cursor = { t: undefined, v: undefined };

/** Walks `names` from `recv`; a number among the arguments gives how many arguments the last step gets. */
function walk(recv: GoValue, rest: readonly unknown[]): void {
  cursor.t = recv.t;
  cursor.v = recv.v;
  const end = rest.length - 1;
  for (let i = 0; i < end; i++) {
    const name = rest[i];
    if (typeof name !== 'string') break;
    const next = rest[i + 1];
    fieldStep(cursor, name, typeof next === 'number' ? next : 0);
  }
}

/** Counts output against the render's budget (limits.ts), so no template can grow a string without bound. */
function spend(text: string): string {
  renderBudget.chars += text.length;
  if (renderBudget.chars > MAX_RENDER_CHARS) throw new GoError(`render output exceeds the limit of ${MAX_RENDER_CHARS} characters`);
  return text;
}

function resetSlots(slots: Slots, lo: number, hi: number): void {
  for (let i = lo; i < hi; i++) slots[i] = undefined;
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
      walk(recv, rest);
      return spend(printAction(cursor.t === undefined ? NO_VALUE : new GoValue(cursor.t, cursor.v)));
    } catch (err) {
      throw atSite(site, err);
    }
  },

  /** `.A.B` as a value. */
  field(site: number, recv: GoValue, ...rest: unknown[]): GoValue {
    try {
      walk(recv, rest);
      return cursor.t === undefined ? NO_VALUE : new GoValue(cursor.t, cursor.v);
    } catch (err) {
      throw atSite(site, err);
    }
  },

  /** A call of one of Go's builtin functions. */
  fn(site: number, name: string, ...rest: unknown[]): GoValue {
    const builtin = BUILTINS.get(name);
    if (builtin === undefined) throw new ExecFault(site, `${JSON.stringify(name)} is not a defined function`);
    let result: GoValue;
    try {
      result = builtin(rest.slice(0, -1) as GoValue[]);
    } catch (err) {
      if (err instanceof GoArgumentError) throw new ExecFault(site, err.message);
      if (err instanceof GoError) throw new ExecFault(site, `error calling ${name}: ${err.message}`);
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

  /** `{{if}}`: Go's truth, not Handlebars'. Trailing `slots lo hi` end the scope of variables declared inside. */
  goIf(this: GoValue, site: number, value: GoValue, ...rest: unknown[]): string {
    const options = optionsOf(rest);
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
   * @key. Trailing `slots lo bodyLo bodyHi hi` end variable scopes.
   */
  goRange(this: GoValue, site: number, value: GoValue, nvars: number, ...rest: unknown[]): string {
    const options = optionsOf(rest);
    const slots = rest.length === 6 ? (rest[0] as Slots) : undefined;
    const iterate = (key: GoValue, elem: GoValue): string => {
      if (++renderBudget.iterations > MAX_RENDER_ITERATIONS) throw new GoError(`range exceeds the limit of ${MAX_RENDER_ITERATIONS} iterations in one render`);
      let data: unknown = options.data;
      if (nvars === 2) {
        const frame = hb.createFrame(options.data) as Record<string, unknown>;
        frame['key'] = key;
        data = frame;
      }
      const out = options.fn(elem, { data });
      if (slots !== undefined) resetSlots(slots, rest[2] as number, rest[3] as number);
      return spend(out);
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
        for (let i = 0; i < items.length; i++) {
          ran = true;
          out += iterate(new GoValue(INT, i), new GoValue(t.elem, items[i]));
        }
      } else if (t.kind === 'map') {
        const obj = readObject(x.v);
        if (obj !== undefined) {
          for (const key of sortedKeys(obj)) {
            ran = true;
            out += iterate(new GoValue(t.key, key), new GoValue(t.elem, obj[key]));
          }
        }
      } else if (t.kind === 'int' || t.kind === 'uint') {
        if (nvars > 1) throw new GoError(`can't use ${printAction(x)} to iterate over more than one variable`);
        const n = readNumber(x.v);
        for (let i = 0; i < n; i++) {
          ran = true;
          out += iterate(NO_VALUE, new GoValue(t, i));
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
    if (value !== undefined && truth(value) === isOr) return '';
    return options.inverse(this);
  },

  /** Reads a variable (or an and/or register). */
  getv(site: number, slots: Slots, slot: number, name: string): GoValue {
    const value = slots[slot];
    if (value === undefined) throw new ExecFault(site, `undefined variable: ${name}`);
    return value;
  },

  /** Declares (`:=`) or assigns (`=`, which needs an existing variable) a variable; prints nothing. */
  setv(site: number, slots: Slots, slot: number, name: string, assign: boolean, value: GoValue): string {
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
