/**
 * Template values: a Go type from gotypes.ts paired with what holds the
 * value, and whether Go would see it as addressable (reached through a
 * pointer or a slice), which decides whether pointer-receiver methods apply.
 *
 * Values from the data are Kubernetes JSON. JSON leaves out zero values, so an
 * absent string is "", an absent number 0, an absent map or slice nil, and so
 * on; the readers below apply that rule. A pointer and its target share the
 * same JSON value; null or absent JSON is a nil pointer. Values the template
 * computes are held natively: integers as numbers, or bigints beyond 2^53;
 * complex numbers as Complex; times as TimeValue (time.ts); byte slices as
 * Uint8Array.
 */

import { compareBytes, hasRawBytes } from './bytes.js';
import type { GoType } from './gotypes.js';

export class GoValue {
  constructor(
    /** Undefined for Go's invalid reflect.Value: a missing map key, or nil passed as an argument. */
    readonly t: GoType | undefined,
    readonly v: unknown,
    /** Reached through a pointer or a slice element (reflect's CanAddr). */
    readonly addr = false,
    /**
     * For a pointer read from a struct field: the JSON object and key holding
     * it, which stand for its address (two pointers to equal scalars are
     * equal only when they are the same field).
     */
    readonly holder?: unknown,
    readonly key?: string,
  ) {}
}

/** What a missing map key evaluates to; printed as `<no value>`. */
export const NO_VALUE = new GoValue(undefined, undefined);

/** An int64 or uint64 value: a number while it is exact, a bigint beyond 2^53. */
export type GoInt = number | bigint;

export interface Complex {
  readonly re: number;
  readonly im: number;
}

const EMPTY: readonly unknown[] = Object.freeze([]);

/**
 * The text of print, html, js or urlquery, formatted when first needed.
 * `{{ if print . }}` only asks whether it is empty, which the operands tell
 * without formatting values Go prints through machinery spire-reconciler does
 * not reproduce.
 */
export class LazyText {
  private text: string | undefined;

  constructor(
    private readonly format: () => string,
    /** Whether the text is known to be non-empty without formatting it. */
    readonly nonEmpty: boolean,
  ) {}

  get value(): string {
    return (this.text ??= this.format());
  }
}

export function readString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof LazyText) return v.value;
  return v === undefined || v === null ? '' : String(v);
}

export function readInt(v: unknown): GoInt {
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  return 0;
}

/** An integer as a bigint, for exact comparisons and arithmetic. */
export function bigOf(n: GoInt): bigint {
  return typeof n === 'bigint' ? n : BigInt(n);
}

/** A bigint as a number when that is exact; integers stay numbers wherever they can. */
export function intOf(n: bigint): GoInt {
  return n >= -0x1fffffffffffffn && n <= 0x1fffffffffffffn ? Number(n) : n;
}

export function readFloat(v: unknown): number {
  return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : 0;
}

export function readComplex(v: unknown): Complex {
  return typeof v === 'object' && v !== null && 're' in v ? (v as Complex) : { re: readFloat(v), im: 0 };
}

export function readItems(v: unknown): readonly unknown[] {
  if (Array.isArray(v)) return v;
  if (v instanceof Uint8Array) return Array.from(v);
  return EMPTY;
}

export function sliceLength(v: unknown): number {
  return Array.isArray(v) || v instanceof Uint8Array ? v.length : 0;
}

export function readObject(v: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) ? (v as Record<string, unknown>) : undefined;
}

export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

export function readKey(v: unknown, key: string): unknown {
  const obj = readObject(v);
  return obj !== undefined && hasOwn(obj, key) ? obj[key] : undefined;
}

/** Whether the value is nil: invalid, or a nil pointer, map or slice. */
export function isNil(x: GoValue): boolean {
  const t = x.t;
  if (t === undefined) return true;
  return (t.kind === 'ptr' || t.kind === 'map' || t.kind === 'slice' || t.kind === 'interface') && (x.v === undefined || x.v === null);
}

/** Follows pointers until a non-pointer or a nil pointer (Go's indirect); what a pointer points to is addressable. */
export function indirect(x: GoValue): GoValue {
  let t = x.t;
  if (t === undefined || t.kind !== 'ptr' || x.v === undefined || x.v === null) return x;
  while (t.kind === 'ptr') t = t.elem;
  return new GoValue(t, x.v, true);
}

/** Go's template truth: the zero value of a type is false, any struct is true. */
export function truth(x: GoValue): boolean {
  const t = x.t;
  if (t === undefined) return false;
  const v = x.v;
  switch (t.kind) {
    case 'string':
      if (v instanceof LazyText && v.nonEmpty) return true;
      return readString(v).length > 0;
    case 'int':
    case 'uint': {
      const n = readInt(v);
      return n !== 0 && n !== 0n;
    }
    case 'float':
      return readFloat(v) !== 0;
    case 'complex': {
      const c = readComplex(v);
      return c.re !== 0 || c.im !== 0;
    }
    case 'bool':
      return v === true;
    case 'ptr':
    case 'interface':
      return v !== undefined && v !== null;
    case 'slice':
      return sliceLength(v) > 0;
    case 'map': {
      const obj = readObject(v);
      if (obj === undefined) return false;
      for (const key in obj) if (hasOwn(obj, key)) return true;
      return false;
    }
    case 'struct':
      return true;
  }
}

/** Go compares strings bytewise, which for UTF-8 is code point order, not UTF-16 order. */
export function compareStrings(a: string, b: string): number {
  if (hasRawBytes(a) || hasRawBytes(b)) return compareBytes(a, b);
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      if (xs !== ys) return xs ? 1 : -1;
      return x - y;
    }
  }
  return a.length - b.length;
}

/** Map keys in the order Go's fmt and range use. */
export function sortedKeys(obj: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(obj).sort(compareStrings);
}

export { byteLength } from './bytes.js';
