/**
 * Go's builtin template functions (text/template/funcs.go) over template
 * values. `and` and `or` are absent: they evaluate their arguments lazily, so
 * the compiler turns them into control flow (see emit.ts).
 *
 * Errors are thrown as GoError with Go's wording; the helper that calls a
 * function prefixes them with "error calling <name>:" as Go does.
 */

import { GoArgumentError, GoError } from './errors.js';
import { BOOL, INT, STRING, UINT8 } from './gotypes.js';
import type { GoType } from './gotypes.js';
import { sprint, sprintf, sprintln, printAction } from './format.js';
import { isPrint } from './quote.js';
import {
  GoValue,
  NO_VALUE,
  byteLength,
  compareStrings,
  hasOwn,
  indirect,
  isNil,
  readItems,
  readNumber,
  readObject,
  readString,
  truth,
} from './values.js';

export interface Arity {
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

function indexArg(index: GoValue, cap: number): number {
  if (index.t === undefined) throw new GoError('cannot index slice/array with nil');
  if (!isIntLike(index.t)) throw new GoError(`cannot index slice/array with type ${index.t.name}`);
  const x = readNumber(index.v);
  if (x < 0 || x > cap) throw new GoError(`index out of range: ${x}`);
  return x;
}

/** Go's prepareArg for a map key: the key must have the map's key type (ints convert among themselves). */
function mapKey(key: GoValue, keyType: GoType): string {
  if (key.t === undefined) throw new GoError(`value is nil; should be of type ${keyType.name}`);
  if (key.t.name === keyType.name || (isIntLike(key.t) && isIntLike(keyType))) return readString(key.v);
  throw new GoError(`value has type ${key.t.name}; should be ${keyType.name}`);
}

function utf8(s: string): Buffer {
  return Buffer.from(s, 'utf8');
}

function index(args: readonly GoValue[]): GoValue {
  let item = arg(args, 0);
  if (item.t === undefined) throw new GoError('index of untyped nil');
  for (let k = 1; k < args.length; k++) {
    const key = arg(args, k);
    item = indirect(item);
    const t = item.t;
    if (t === undefined) throw new GoError('index of untyped nil');
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
      item = new GoValue(t.elem, items[x]);
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
  const item = arg(args, 0);
  const t = item.t;
  if (t === undefined) throw new GoError('slice of untyped nil');
  const indexes = args.slice(1);
  if (indexes.length > 3) throw new GoError(`too many slice indexes: ${indexes.length}`);
  let len: number;
  if (t.kind === 'string') {
    if (indexes.length === 3) throw new GoError('cannot 3-index slice a string');
    len = byteLength(readString(item.v));
  } else if (t.kind === 'slice') {
    len = readItems(item.v).length;
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
  if (t.kind === 'string') {
    return new GoValue(t, utf8(readString(item.v)).subarray(from, to).toString('utf8'));
  }
  return new GoValue(t, readItems(item.v).slice(from, to));
}

function length(args: readonly GoValue[]): GoValue {
  const item = indirect(arg(args, 0));
  const t = item.t;
  if (t === undefined) throw new GoError('reflect: call of reflect.Value.Type on zero Value');
  switch (t.kind) {
    case 'ptr':
      throw new GoError('len of nil pointer');
    case 'string':
      return new GoValue(INT, byteLength(readString(item.v)));
    case 'slice':
      return new GoValue(INT, readItems(item.v).length);
    case 'map': {
      const obj = readObject(item.v);
      return new GoValue(INT, obj === undefined ? 0 : Object.keys(obj).length);
    }
    default:
      throw new GoError(`len of type ${t.name}`);
  }
}

// ---- comparison ----

type BasicKind = 'invalid' | 'bool' | 'int' | 'uint' | 'float' | 'string';

function basicKind(x: GoValue): BasicKind {
  const k = x.t?.kind;
  return k === 'bool' || k === 'int' || k === 'uint' || k === 'float' || k === 'string' ? k : 'invalid';
}

function describe(x: GoValue): string {
  try {
    return x.t === undefined ? '<invalid reflect.Value>' : printAction(x);
  } catch {
    return x.t?.name ?? '';
  }
}

/** The reflect.Kind Go compares for non-basic values. */
function reflectKind(x: GoValue): string {
  return x.t?.kind ?? 'invalid';
}

function comparable(t: GoType): boolean {
  return t.kind === 'ptr' || (t.kind === 'struct' && t.stringer === 'time');
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
      if (k1 === 'int' && k2 === 'uint') equal = readNumber(a.v) >= 0 && readNumber(a.v) === readNumber(b.v);
      else if (k1 === 'uint' && k2 === 'int') equal = readNumber(b.v) >= 0 && readNumber(a.v) === readNumber(b.v);
      else if (a.t !== undefined && b.t !== undefined) {
        throw new GoError(`incompatible types for comparison: ${a.t.name} and ${b.t.name}`);
      }
    } else {
      switch (k1) {
        case 'bool':
          equal = (a.v === true) === (b.v === true);
          break;
        case 'int':
        case 'uint':
        case 'float':
          equal = readNumber(a.v) === readNumber(b.v);
          break;
        case 'string':
          equal = readString(a.v) === readString(b.v);
          break;
        default:
          if (reflectKind(a) !== reflectKind(b) && a.t !== undefined && b.t !== undefined) {
            throw new GoError(`non-comparable types ${describe(a)}: ${a.t.name}, ${b.t.name}: ${describe(b)}`);
          }
          if (isNil(a) || isNil(b)) {
            equal = isNil(a) === isNil(b);
          } else if (b.t === undefined || !comparable(b.t)) {
            throw new GoError(`non-comparable type ${describe(b)}: ${b.t?.name ?? ''}`);
          } else {
            equal = a.v === b.v;
          }
      }
    }
    if (equal) return TRUE;
  }
  return FALSE;
}

function lessThan(a: GoValue, b: GoValue): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 === 'invalid' || k2 === 'invalid') throw new GoError('invalid type for comparison');
  if (k1 !== k2) {
    if (k1 === 'int' && k2 === 'uint') return readNumber(a.v) < 0 || readNumber(a.v) < readNumber(b.v);
    if (k1 === 'uint' && k2 === 'int') return readNumber(b.v) >= 0 && readNumber(a.v) < readNumber(b.v);
    throw new GoError(`incompatible types for comparison: ${a.t?.name ?? ''} and ${b.t?.name ?? ''}`);
  }
  if (k1 === 'bool') throw new GoError('invalid type for comparison');
  if (k1 === 'string') return compareStrings(readString(a.v), readString(b.v)) < 0;
  return readNumber(a.v) < readNumber(b.v);
}

function lt(args: readonly GoValue[]): GoValue {
  return boolValue(lessThan(arg(args, 0), arg(args, 1)));
}

function le(args: readonly GoValue[]): GoValue {
  return lessThan(arg(args, 0), arg(args, 1)) ? TRUE : eq([arg(args, 0), arg(args, 1)]);
}

// ---- text ----

/** Go's evalArgs: a lone string as is, otherwise each argument printed as `{{ }}` would, joined as Sprint. */
function evalArgs(args: readonly GoValue[]): string {
  const only = args[0];
  if (args.length === 1 && only !== undefined && only.t === STRING) return readString(only.v);
  return sprint(args.map((a) => (a.t === undefined ? new GoValue(STRING, '<no value>') : indirect(a))));
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
  return new GoValue(STRING, s);
}

/** printf's format must be a string, as Go checks before the call. */
function formatArgument(x: GoValue): string {
  let f = x;
  if (f.t === undefined) throw new GoArgumentError('invalid value; expected string');
  if (f.t.kind === 'ptr' && f.t.elem === STRING) {
    if (isNil(f)) throw new GoArgumentError('dereference of nil pointer of type string');
    f = indirect(f);
  }
  if (f.t !== STRING) throw new GoArgumentError(`wrong type for value; expected string; got ${f.t?.name ?? ''}`);
  return readString(f.v);
}

export type Builtin = (args: readonly GoValue[]) => GoValue;

export const BUILTINS: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  ['index', index],
  ['slice', slice],
  ['len', length],
  ['not', (args) => boolValue(!truth(arg(args, 0)))],
  ['eq', eq],
  ['ne', (args) => boolValue(!truth(eq([arg(args, 0), arg(args, 1)])))],
  ['lt', lt],
  ['le', le],
  ['gt', (args) => boolValue(!truth(le(args)))],
  ['ge', (args) => boolValue(!lessThan(arg(args, 0), arg(args, 1)))],
  ['print', (args) => text(sprint(args))],
  ['println', (args) => text(sprintln(args))],
  ['printf', (args) => text(sprintf(formatArgument(arg(args, 0)), args.slice(1)))],
  ['html', (args) => text(htmlEscape(evalArgs(args)))],
  ['js', (args) => text(jsEscape(evalArgs(args)))],
  ['urlquery', (args) => text(queryEscape(evalArgs(args)))],
  [
    'call',
    // The first argument is the callee's source text, added by the compiler for the message;
    // template data holds no functions, so every call fails as Go's does on a non-function.
    (args) => {
      const fn = arg(args, 1);
      if (fn.t === undefined) throw new GoError('call of nil');
      throw new GoError(`non-function ${readString(arg(args, 0).v)} of type ${fn.t.name}`);
    },
  ],
]);
