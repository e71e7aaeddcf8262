/**
 * Go's builtin template functions (text/template/funcs.go) over template
 * values. `and` and `or` are absent: they evaluate their arguments lazily, so
 * the executor evaluates them itself (see exec.ts).
 *
 * Errors are thrown as GoError with Go's wording; the executor, calling a
 * function, prefixes them with "error calling <name>:" as Go does, except for
 * GoArgumentError, which Go raises before the call.
 */

import { fromBytes, normalize, toBytes } from './bytes.js';
import { GoArgumentError, GoError, Unsupported } from './errors.js';
import type { Arg } from './eval.js';
import { Literal, literalValue } from './eval.js';
import { BOOL, INT, STRING, UINT8 } from './gotypes.js';
import type { GoType } from './gotypes.js';
import { printAction, printable, sprint, sprintf, sprintln } from './format.js';
import { readTime } from './methods.js';
import { isPrint } from './quote.js';
import { compareTimes } from './time.js';
import {
  GoValue,
  LazyText,
  NO_VALUE,
  bigOf,
  byteLength,
  compareStrings,
  hasOwn,
  indirect,
  isNil,
  readComplex,
  readFloat,
  readInt,
  readItems,
  readKey,
  readObject,
  readString,
  sliceLength,
  truth,
} from './values.js';

interface Arity {
  readonly min: number;
  /** Variadic functions take min or more arguments; the others exactly min. */
  readonly variadic: boolean;
}

export const ARITY: ReadonlyMap<string, Arity> = new Map<string, Arity>([
  ['and', { min: 1, variadic: true }],
  ['or', { min: 1, variadic: true }],
  ['not', { min: 1, variadic: false }],
  ['len', { min: 1, variadic: false }],
  ['index', { min: 1, variadic: true }],
  ['slice', { min: 1, variadic: true }],
  ['call', { min: 1, variadic: true }],
  ['eq', { min: 1, variadic: true }],
  ['ne', { min: 2, variadic: false }],
  ['lt', { min: 2, variadic: false }],
  ['le', { min: 2, variadic: false }],
  ['gt', { min: 2, variadic: false }],
  ['ge', { min: 2, variadic: false }],
  ['print', { min: 0, variadic: true }],
  ['printf', { min: 1, variadic: true }],
  ['println', { min: 0, variadic: true }],
  ['html', { min: 0, variadic: true }],
  ['js', { min: 0, variadic: true }],
  ['urlquery', { min: 0, variadic: true }],
]);

const TRUE = new GoValue(BOOL, true);
const FALSE = new GoValue(BOOL, false);

function boolValue(b: boolean): GoValue {
  return b ? TRUE : FALSE;
}

function arg(args: readonly GoValue[], i: number): GoValue {
  return args[i] ?? NO_VALUE;
}

// ---- indexing ----

function isIntLike(t: GoType | undefined): boolean {
  return t !== undefined && (t.kind === 'int' || t.kind === 'uint');
}

/** Go's indexArg: an integer index within [0, cap]. */
function indexArg(index: GoValue, cap: number): number {
  if (index.t === undefined) throw new GoError('cannot index slice/array with nil');
  if (!isIntLike(index.t)) throw new GoError(`cannot index slice/array with type ${index.t.name}`);
  const x = index.t.kind === 'uint' ? BigInt.asIntN(64, bigOf(readInt(index.v))) : bigOf(readInt(index.v));
  if (x < 0n || x > BigInt(cap)) throw new GoError(`index out of range: ${x}`);
  return Number(x);
}

/** Go's prepareArg for a map key: the key must have the map's key type (integers convert among themselves). */
function mapKey(key: GoValue, keyType: GoType): string {
  if (key.t === undefined) throw new GoError(`value is nil; should be of type ${keyType.name}`);
  if (key.t === keyType || (isIntLike(key.t) && isIntLike(keyType))) return readString(key.v);
  throw new GoError(`value has type ${key.t.name}; should be ${keyType.name}`);
}

function utf8(s: string): Buffer {
  return toBytes(s);
}

function index(args: readonly GoValue[]): GoValue {
  let item = arg(args, 0);
  if (item.t === undefined) throw new GoError('index of untyped nil');
  for (let k = 1; k < args.length; k++) {
    const key = arg(args, k);
    item = indirect(item);
    const t = item.t!;
    if (t.kind === 'ptr') throw new GoError('index of nil pointer');
    if (t.kind === 'string') {
      const s = readString(item.v);
      const len = byteLength(s);
      const x = indexArg(key, len);
      if (x === len) throw new GoError('reflect: string index out of range');
      item = new GoValue(UINT8, utf8(s)[x]);
    } else if (t.kind === 'slice') {
      const items = readItems(item.v);
      const x = indexArg(key, items.length);
      if (x === items.length) throw new GoError('reflect: slice index out of range');
      // A slice's elements are addressable.
      item = new GoValue(t.elem, items[x], true);
    } else if (t.kind === 'map') {
      const name = mapKey(key, t.key);
      const obj = readObject(item.v);
      // A missing key gives the element type's zero value.
      item = new GoValue(t.elem, obj !== undefined && hasOwn(obj, name) ? obj[name] : undefined);
    } else {
      throw new GoError(`can't index item of type ${t.name}`);
    }
  }
  return item;
}

function slice(args: readonly GoValue[]): GoValue {
  const first = arg(args, 0);
  if (first.t === undefined) throw new GoError('slice of untyped nil');
  const item = indirect(first);
  const t = item.t!;
  if (t.kind === 'ptr') throw new GoError('slice of nil pointer');
  const indexes = args.slice(1);
  if (indexes.length > 3) throw new GoError(`too many slice indexes: ${indexes.length}`);
  let len: number;
  if (t.kind === 'string') {
    if (indexes.length === 3) throw new GoError('cannot 3-index slice a string');
    len = byteLength(readString(item.v));
  } else if (t.kind === 'slice') {
    len = sliceLength(item.v);
  } else {
    throw new GoError(`can't slice item of type ${t.name}`);
  }
  const idx = [0, len, len];
  indexes.forEach((x, i) => {
    idx[i] = indexArg(x, len);
  });
  const [from = 0, to = len, max = len] = idx;
  if (from > to) throw new GoError(`invalid slice index: ${from} > ${to}`);
  if (indexes.length === 3 && to > max) throw new GoError(`invalid slice index: ${to} > ${max}`);
  // Go slices bytes: a cut inside a character leaves bytes that are not UTF-8 (see bytes.ts).
  if (t.kind === 'string') return new GoValue(t, fromBytes(utf8(readString(item.v)).subarray(from, to)));
  const v = item.v;
  return new GoValue(t, v instanceof Uint8Array ? v.subarray(from, to) : readItems(v).slice(from, to));
}

function length(args: readonly GoValue[]): GoValue {
  const item = indirect(arg(args, 0));
  const t = item.t;
  // Go asks an invalid value for its type, which panics.
  if (t === undefined) throw new GoError('reflect: call of reflect.Value.Type on zero Value');
  switch (t.kind) {
    case 'ptr':
      throw new GoError('len of nil pointer');
    case 'string':
      return new GoValue(INT, byteLength(readString(item.v)));
    case 'slice':
      return new GoValue(INT, sliceLength(item.v));
    case 'map': {
      const obj = readObject(item.v);
      return new GoValue(INT, obj === undefined ? 0 : Object.keys(obj).length);
    }
    default:
      throw new GoError(`len of type ${t.name}`);
  }
}

// ---- comparison ----

type BasicKind = 'invalid' | 'bool' | 'int' | 'uint' | 'float' | 'complex' | 'string';

function basicKind(x: GoValue): BasicKind {
  const k = x.t?.kind;
  return k === 'bool' || k === 'int' || k === 'uint' || k === 'float' || k === 'complex' || k === 'string' ? k : 'invalid';
}

function describe(x: GoValue): string {
  try {
    return x.t === undefined ? '<invalid reflect.Value>' : printAction(x);
  } catch {
    return x.t?.name ?? '';
  }
}

/** Go's Type.Comparable. */
function comparable(t: GoType): boolean {
  if (t.kind === 'slice' || t.kind === 'map') return false;
  if (t.kind !== 'struct') return true;
  return t.fields.every((f) => comparable(f.type));
}

function sameInt(a: GoValue, b: GoValue): boolean {
  return bigOf(readInt(a.v)) === bigOf(readInt(b.v));
}

/** Go's == on two comparable values of one type (eq's last resort). */
function equalValues(a: GoValue, b: GoValue): boolean {
  const t = a.t!;
  switch (t.kind) {
    case 'bool':
      return (a.v === true) === (b.v === true);
    case 'int':
    case 'uint':
      return sameInt(a, b);
    case 'float':
      return readFloat(a.v) === readFloat(b.v);
    case 'complex': {
      const x = readComplex(a.v);
      const y = readComplex(b.v);
      return x.re === y.re && x.im === y.im;
    }
    case 'string':
      return readString(a.v) === readString(b.v);
    case 'ptr':
      if (isNil(a) || isNil(b)) return isNil(a) && isNil(b);
      // Non-nil pointers are equal when they point to the same place: the same JSON object, or the same field.
      if (a.key !== undefined && b.key !== undefined) return a.holder === b.holder && a.key === b.key;
      if (a.v !== null && typeof a.v === 'object') return a.v === b.v;
      throw new Unsupported(`spire-reconciler cannot compare the addresses of two ${t.name}`);
    case 'struct': {
      if (t.codec === 'metatime' || t.codec === 'gotime') {
        const x = readTime(a.v);
        const y = readTime(b.v);
        return compareTimes(x, y) === 0 && x.loc === y.loc;
      }
      if (t.codec !== 'object') throw new Unsupported(`spire-reconciler cannot compare values of type ${t.name}`);
      if (a.v === b.v) return true;
      return t.fields.every((f) => {
        const x = new GoValue(f.type, f.json === '' ? a.v : readKey(a.v, f.json));
        const y = new GoValue(f.type, f.json === '' ? b.v : readKey(b.v, f.json));
        // Pointers held by two different structs point to different places.
        if (f.type.kind === 'ptr' && !isNil(x) && !isNil(y)) return false;
        return equalValues(x, y);
      });
    }
    default:
      return false;
  }
}

function eq(args: readonly GoValue[]): GoValue {
  const a = arg(args, 0);
  if (args.length < 2) throw new GoError('missing argument for comparison');
  const k1 = basicKind(a);
  for (let i = 1; i < args.length; i++) {
    const b = arg(args, i);
    const k2 = basicKind(b);
    let equal = false;
    if (k1 !== k2) {
      if (k1 === 'int' && k2 === 'uint') equal = bigOf(readInt(a.v)) >= 0n && sameInt(a, b);
      else if (k1 === 'uint' && k2 === 'int') equal = bigOf(readInt(b.v)) >= 0n && sameInt(a, b);
      else if (a.t !== undefined && b.t !== undefined) {
        throw new GoError(`incompatible types for comparison: ${a.t.name} and ${b.t.name}`);
      }
    } else if (k1 !== 'invalid') {
      equal = equalValues(a, b);
    } else {
      const ka = a.t?.kind ?? 'invalid';
      const kb = b.t?.kind ?? 'invalid';
      if (ka !== kb && a.t !== undefined && b.t !== undefined) {
        throw new GoError(`non-comparable types ${describe(a)}: ${a.t.name}, ${b.t.name}: ${describe(b)}`);
      }
      if (isNil(a) || isNil(b)) {
        equal = isNil(a) === isNil(b);
      } else if (!comparable(b.t!)) {
        throw new GoError(`non-comparable type ${describe(b)}: ${b.t!.name}`);
      } else {
        // Interfaces holding different types are unequal.
        equal = a.t === b.t && equalValues(a, b);
      }
    }
    if (equal) return TRUE;
  }
  return FALSE;
}

function lessThan(a: GoValue, b: GoValue): boolean {
  const k1 = basicKind(a);
  if (k1 === 'invalid') throw new GoError('invalid type for comparison');
  const k2 = basicKind(b);
  if (k2 === 'invalid') throw new GoError('invalid type for comparison');
  if (k1 !== k2) {
    const x = bigOf(readInt(a.v));
    const y = bigOf(readInt(b.v));
    if (k1 === 'int' && k2 === 'uint') return x < 0n || x < y;
    if (k1 === 'uint' && k2 === 'int') return y >= 0n && x < y;
    throw new GoError(`incompatible types for comparison: ${a.t!.name} and ${b.t!.name}`);
  }
  switch (k1) {
    case 'bool':
    case 'complex':
      throw new GoError('invalid type for comparison');
    case 'string':
      return compareStrings(readString(a.v), readString(b.v)) < 0;
    case 'float':
      return readFloat(a.v) < readFloat(b.v);
    default:
      return bigOf(readInt(a.v)) < bigOf(readInt(b.v));
  }
}

function lt(args: readonly GoValue[]): GoValue {
  return boolValue(lessThan(arg(args, 0), arg(args, 1)));
}

function le(args: readonly GoValue[]): GoValue {
  return lessThan(arg(args, 0), arg(args, 1)) ? TRUE : eq([arg(args, 0), arg(args, 1)]);
}

// ---- text ----

/** Go's evalArgs: a lone string as is, otherwise each argument made printable and joined as Sprint joins them. */
function evalArgs(args: readonly GoValue[]): string {
  const only = args[0];
  if (args.length === 1 && only !== undefined && only.t === STRING) return readString(only.v);
  return sprint(args.map((a) => (a.t === undefined ? new GoValue(STRING, '<no value>') : printable(a))));
}

function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => {
    switch (c) {
      case '\0':
        return '\uFFFD';
      case '"':
        return '&#34;';
      case "'":
        return '&#39;';
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      default:
        return '&gt;';
    }
  });
}

const JS_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '"': '\\"',
  '<': '\\u003C',
  '>': '\\u003E',
  '&': '\\u0026',
  '=': '\\u003D',
};

function jsEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    const simple = JS_ESCAPES[ch];
    if (simple !== undefined) out += simple;
    // A byte that is not UTF-8 decodes to U+FFFD, which is printable: Go copies the byte.
    else if (cp >= 0xdc80 && cp <= 0xdcff) out += ch;
    else if (cp < 0x20) out += `\\u00${cp.toString(16).toUpperCase().padStart(2, '0')}`;
    else if (cp < 0x80 || isPrint(ch)) out += ch;
    else out += `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return out;
}

/** url.QueryEscape. */
function queryEscape(s: string): string {
  let out = '';
  for (const b of utf8(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function text(s: string): GoValue {
  return new GoValue(STRING, normalize(s));
}

/** Sprint's result is empty only when every operand is an empty string (or there are none). */
function printsSomething(operands: readonly GoValue[]): boolean {
  return operands.some((a) => a.t === undefined || a.t.kind !== 'string' || (a.v instanceof LazyText && a.v.nonEmpty) || readString(a.v) !== '');
}

/** The text of print/html/js/urlquery, formatted when first needed (see LazyText). */
function lazy(operands: readonly GoValue[], format: () => string): GoValue {
  return new GoValue(STRING, new LazyText(() => normalize(format()), printsSomething(operands)));
}

/** What evalArgs hands to Sprint, for deciding emptiness without formatting. */
function escapedOperands(args: readonly GoValue[]): readonly GoValue[] {
  const only = args[0];
  if (args.length === 1 && only !== undefined && only.t === STRING) return args;
  return args.map((a) => (a.t === undefined ? new GoValue(STRING, '<no value>') : printable(a)));
}

/** printf's format must be a string, as Go checks before the call. */
function formatArgument(x: Arg): string {
  if (x instanceof Literal) {
    if (x.kind === 'nil') throw new GoArgumentError('cannot assign nil to string');
    if (x.kind !== 'string') throw new GoArgumentError(`expected string; found ${x.text}`);
    return x.str;
  }
  let f = x;
  if (f.t === undefined) throw new GoArgumentError('invalid value; expected string');
  if (f.t.kind === 'ptr' && f.t.elem === STRING) {
    if (isNil(f)) throw new GoArgumentError('dereference of nil pointer of type string');
    f = indirect(f);
  }
  if (f.t !== STRING) throw new GoArgumentError(`wrong type for value; expected string; got ${f.t?.name ?? ''}`);
  return readString(f.v);
}

type Builtin = (args: readonly Arg[]) => GoValue;

/** Literal arguments become values as Go's evalArg makes them for a parameter of type any or reflect.Value. */
function values(args: readonly Arg[]): GoValue[] {
  return args.map((a) => (a instanceof Literal ? literalValue(a) : a));
}

function valued(fn: (args: readonly GoValue[]) => GoValue): Builtin {
  return (args) => {
    let converted: GoValue[];
    try {
      converted = values(args);
    } catch (err) {
      // A literal's conversion fails before the call: no "error calling" prefix.
      if (err instanceof GoError && !(err instanceof GoArgumentError)) throw new GoArgumentError(err.message);
      throw err;
    }
    return fn(converted);
  };
}

export const BUILTINS: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  ['index', valued(index)],
  ['slice', valued(slice)],
  ['len', valued(length)],
  ['not', valued((args) => boolValue(!truth(arg(args, 0))))],
  ['eq', valued(eq)],
  ['ne', valued((args) => boolValue(!truth(eq([arg(args, 0), arg(args, 1)]))))],
  ['lt', valued(lt)],
  ['le', valued(le)],
  ['gt', valued((args) => boolValue(!truth(le(args))))],
  ['ge', valued((args) => boolValue(!lessThan(arg(args, 0), arg(args, 1))))],
  ['print', valued((args) => lazy(args, () => sprint(args)))],
  ['println', valued((args) => text(sprintln(args)))],
  [
    'printf',
    (args) => {
      const format = formatArgument(args[0] ?? NO_VALUE);
      const rest = values(args.slice(1));
      return text(sprintf(format, rest));
    },
  ],
  ['html', valued((args) => lazy(escapedOperands(args), () => htmlEscape(evalArgs(args))))],
  ['js', valued((args) => lazy(escapedOperands(args), () => jsEscape(evalArgs(args))))],
  ['urlquery', valued((args) => lazy(escapedOperands(args), () => queryEscape(evalArgs(args))))],
  [
    'call',
    // The first argument is the callee's source text, added by the executor for the message;
    // template data holds no functions, so every call fails as Go's does on a non-function.
    valued((args) => {
      const fn = arg(args, 1);
      if (fn.t === undefined) throw new GoError('call of nil');
      throw new GoError(`non-function ${readString(arg(args, 0).v)} of type ${fn.t.name}`);
    }),
  ],
]);
