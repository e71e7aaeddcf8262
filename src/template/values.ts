/**
 * Template values: a Go type from gotypes.ts paired with the Kubernetes JSON
 * that holds the value. JSON leaves out zero values, so an absent string is
 * "", an absent number 0, an absent map or slice nil, and so on; the readers
 * below apply that rule. A pointer and its target share the same JSON value;
 * null or absent JSON is a nil pointer.
 */

import { GoError } from './errors.js';
import type { GoType } from './gotypes.js';

export class GoValue {
  constructor(
    /** Undefined for Go's invalid reflect.Value: a missing map key, or nil passed as an argument. */
    readonly t: GoType | undefined,
    readonly v: unknown,
  ) {}
}

/** What a missing map key evaluates to; printed as `<no value>`. */
export const NO_VALUE = new GoValue(undefined, undefined);

const EMPTY: readonly unknown[] = Object.freeze([]);

export function readString(v: unknown): string {
  if (typeof v === 'string') return v;
  return v === undefined || v === null ? '' : String(v);
}

export function readNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v === undefined || v === null || v === '') return 0;
  const n = Number(v);
  return Number.isNaN(n) ? 0 : n;
}

export function readItems(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : EMPTY;
}

export function readObject(v: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

function readKey(v: unknown, key: string): unknown {
  const obj = readObject(v);
  return obj !== undefined && hasOwn(obj, key) ? obj[key] : undefined;
}

/** Whether the value is nil: invalid, or a nil pointer, map or slice. */
export function isNil(x: GoValue): boolean {
  const t = x.t;
  if (t === undefined) return true;
  return (t.kind === 'ptr' || t.kind === 'map' || t.kind === 'slice') && (x.v === undefined || x.v === null);
}

/** Follows pointers until a non-pointer or a nil pointer (Go's indirect). */
export function indirect(x: GoValue): GoValue {
  let t = x.t;
  if (t === undefined || t.kind !== 'ptr' || x.v === undefined || x.v === null) return x;
  while (t.kind === 'ptr') t = t.elem;
  return new GoValue(t, x.v);
}

/** Go's template truth: the zero value of a type is false, any struct is true. */
export function truth(x: GoValue): boolean {
  const t = x.t;
  if (t === undefined) return false;
  const v = x.v;
  switch (t.kind) {
    case 'string':
      return readString(v).length > 0;
    case 'int':
    case 'uint':
    case 'float':
      return readNumber(v) !== 0;
    case 'bool':
      return v === true;
    case 'ptr':
      return v !== undefined && v !== null;
    case 'slice':
      return readItems(v).length > 0;
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

/** Length in UTF-8 bytes, which is what Go's len and index see. */
export function byteLength(s: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) return Buffer.byteLength(s, 'utf8');
  }
  return s.length;
}

/** A mutable (type, JSON) pair, so that walking `.A.B.C` allocates nothing per step. */
export interface Cursor {
  t: GoType | undefined;
  v: unknown;
}

/**
 * One step of a field chain, as Go's evalField: methods first, then struct
 * fields (Go names, read from their JSON keys), then map keys (exact, never
 * renamed). A missing map key makes the cursor invalid, and further steps
 * from an invalid value stay invalid. `nargs` counts arguments given to the
 * last step (`.X.Y arg` or `... | .X.Y`), which only a method could accept.
 */
export function fieldStep(c: Cursor, name: string, nargs: number): void {
  const typ = c.t;
  if (typ === undefined) return;
  const v = c.v;
  let t: GoType = typ;
  while (t.kind === 'ptr' && v !== undefined && v !== null) t = t.elem;
  const nilPointer = t.kind === 'ptr';
  const target = t.kind === 'ptr' ? t.elem : t;

  if (target.kind === 'struct') {
    const getter = target.getters.get(name);
    if (getter !== undefined) {
      if (nargs > 0) throw new GoError(`wrong number of args for ${name}: want 0 got ${nargs}`);
      if (nilPointer) {
        throw new GoError(`error calling ${name}: runtime error: invalid memory address or nil pointer dereference`);
      }
      fieldStep(c, getter, 0);
      return;
    }
    if (target.methods.has(name)) {
      throw new GoError(
        `can't evaluate ${name} in type ${typ.name}: it is a Go method, and spire-reconciler only supports the ObjectMeta getters (GetName, GetLabels, ...)`,
      );
    }
  }

  if (nilPointer) {
    // Go names the nil pointer only when the field exists; otherwise it reports the unknown field.
    const known = target.kind !== 'struct' || target.fields === undefined || target.fields.has(name);
    if (known) throw new GoError(`nil pointer evaluating ${typ.name}.${name}`);
  } else if (t.kind === 'struct') {
    if (t.fields === undefined) {
      throw new GoError(
        `can't evaluate field ${name} in type ${typ.name}: spire-reconciler does not model the fields of ${t.name}`,
      );
    }
    const field = t.fields.get(name);
    if (field !== undefined) {
      if (nargs > 0) throw new GoError(`${name} has arguments but cannot be invoked as function`);
      c.t = field.type;
      c.v = field.inline ? v : readKey(v, field.json);
      return;
    }
  } else if (t.kind === 'map' && t.key.name === 'string') {
    // Only a map keyed by the plain string type accepts a field name as key.
    if (nargs > 0) throw new GoError(`${name} is not a method but has arguments`);
    const obj = readObject(v);
    if (obj !== undefined && hasOwn(obj, name)) {
      c.t = t.elem;
      c.v = obj[name];
    } else {
      c.t = undefined;
      c.v = undefined;
    }
    return;
  }
  throw new GoError(`can't evaluate field ${name} in type ${typ.name}`);
}
