/**
 * Evaluation steps of Go's text/template exec.go over template values:
 * literal constants and their conversion to a parameter's type (evalArg,
 * idealConstant, validateType), and field access with method calls
 * (evalField, evalCall), with Go's checks and messages.
 */
import { GoError, Unsupported } from './errors.js';
import { BOOL, COMPLEX128, EMPTY_INTERFACE, FLOAT64, INT, STRING } from './gotypes.js';
import type { FieldPath, GoMethod, GoType, StructType } from './gotypes.js';
import { methodImpl } from './methods.js';
import { GoValue, NO_VALUE, intOf, isNil, readKey, readObject } from './values.js';
import type { Complex } from './values.js';

/** A number literal as Go's parser reads it (parse.NumberNode): which types it fits, and its value in each. */
export interface NumberConst {
  readonly isInt: boolean;
  readonly int: bigint;
  readonly isUint: boolean;
  readonly uint: bigint;
  readonly isFloat: boolean;
  readonly float: number;
  readonly isComplex: boolean;
  readonly complex: Complex;
}

/**
 * A literal written as an argument. Go converts it to the parameter's type at
 * the call (evalArg), so it travels to the call as written.
 */
export class Literal {
  /** literalValue's result, kept: a template renders many times. */
  value: GoValue | undefined;

  constructor(
    readonly kind: 'bool' | 'string' | 'nil' | 'number',
    /** As written, for messages. */
    readonly text: string,
    readonly bool: boolean,
    readonly str: string,
    readonly num: NumberConst | undefined,
  ) {}
}

export type Arg = GoValue | Literal;

/** Go's idealConstant: the type a number literal gets where no parameter type decides it. */
export function idealConstant(text: string, n: NumberConst): GoValue {
  if (n.isComplex) return new GoValue(COMPLEX128, n.complex);
  const hexInt = /^0[xX]/.test(text) && !/[pP]/.test(text);
  if (n.isFloat && !hexInt && !text.startsWith("'") && /[.eEpP]/.test(text)) return new GoValue(FLOAT64, n.float);
  if (n.isInt) return new GoValue(INT, intOf(n.int));
  if (n.isUint) throw new GoError(`${text} overflows int`);
  return NO_VALUE;
}

/** A literal used as a value of no particular type (an argument of type any or reflect.Value). */
export function literalValue(lit: Literal): GoValue {
  return (lit.value ??= untypedValue(lit));
}

function untypedValue(lit: Literal): GoValue {
  switch (lit.kind) {
    case 'bool':
      return new GoValue(BOOL, lit.bool);
    case 'string':
      return new GoValue(STRING, lit.str);
    case 'nil':
      return NO_VALUE;
    case 'number':
      return idealConstant(lit.text, lit.num!);
  }
}

function canBeNil(t: GoType): boolean {
  return t.kind === 'ptr' || t.kind === 'slice' || t.kind === 'map' || t.kind === 'interface';
}

/** The zero value of a type that can be nil. */
function nilOf(t: GoType): GoValue {
  return t === EMPTY_INTERFACE ? NO_VALUE : new GoValue(t, undefined);
}

function assignable(from: GoType, to: GoType): boolean {
  return from === to || to === EMPTY_INTERFACE;
}

/** Go's validateType: the value, or one dereference or address of it, must be assignable to the parameter. */
function validateType(value: GoValue, typ: GoType): GoValue {
  const t = value.t;
  if (t === undefined) {
    if (canBeNil(typ)) return nilOf(typ);
    throw new GoError(`invalid value; expected ${typ.name}`);
  }
  if (assignable(t, typ)) return value;
  if (t.kind === 'ptr' && assignable(t.elem, typ)) {
    if (isNil(value)) throw new GoError(`dereference of nil pointer of type ${typ.name}`);
    return new GoValue(t.elem, value.v, true);
  }
  if (typ.kind === 'ptr' && assignable(t, typ.elem) && value.addr) return new GoValue(typ, value.v ?? null);
  throw new GoError(`wrong type for value; expected ${typ.name}; got ${t.name}`);
}

/** Go's evalArg: a literal converted to the parameter's type, or a value validated against it. */
function evalArg(arg: Arg, typ: GoType): GoValue {
  if (arg instanceof GoValue) return validateType(arg, typ);
  if (arg.kind === 'nil') {
    if (canBeNil(typ)) return nilOf(typ);
    throw new GoError(`cannot assign nil to ${typ.name}`);
  }
  const n = arg.num;
  switch (typ.kind) {
    case 'bool':
      if (arg.kind === 'bool') return new GoValue(typ, arg.bool);
      throw new GoError(`expected bool; found ${arg.text}`);
    case 'string':
      if (arg.kind === 'string') return new GoValue(typ, arg.str);
      throw new GoError(`expected string; found ${arg.text}`);
    case 'int':
      if (n?.isInt === true) return new GoValue(typ, intOf(n.int));
      throw new GoError(`expected integer; found ${arg.text}`);
    case 'uint':
      if (n?.isUint === true) return new GoValue(typ, intOf(n.uint));
      throw new GoError(`expected unsigned integer; found ${arg.text}`);
    case 'float':
      if (n?.isFloat === true) return new GoValue(typ, n.float);
      throw new GoError(`expected float; found ${arg.text}`);
    case 'complex':
      if (n?.isComplex === true) return new GoValue(typ, n.complex);
      throw new GoError(`expected complex; found ${arg.text}`);
    case 'interface':
      if (typ === EMPTY_INTERFACE) return literalValue(arg);
  }
  throw new GoError(`can't handle ${arg.text} for arg of type ${typ.name}`);
}

/** Arguments of a field step: explicit ones, and the value piped in from the previous command, if any. */
export interface Call {
  readonly args: readonly Arg[];
  readonly final: GoValue | undefined;
}

/** Go's goodFunc: a method must return one value, or a value and an error. */
function checkResults(name: string, m: GoMethod): void {
  const n = m.results.length;
  if (n === 1 || (n === 2 && m.results[1]?.name === 'error')) return;
  if (n === 2) throw new GoError(`invalid function signature for ${name}: second return value should be error; is ${m.results[1]!.name}`);
  throw new GoError(`function ${name} has ${n} return values; should be 1 or 2`);
}

function callMethod(target: GoValue, owner: GoType, m: GoMethod, name: string, call: Call | undefined): GoValue {
  const args = call?.args ?? [];
  const final = call?.final;
  const numIn = args.length + (final === undefined ? 0 : 1);
  const params = m.params;
  if (m.variadic) {
    if (numIn < params.length - 1) throw new GoError(`wrong number of args for ${name}: want at least ${params.length - 1} got ${args.length}`);
  } else if (numIn !== params.length) {
    throw new GoError(`wrong number of args for ${name}: want ${params.length} got ${numIn}`);
  }
  checkResults(name, m);
  const paramType = (i: number): GoType => {
    const p = params[Math.min(i, params.length - 1)]!;
    return m.variadic && i >= params.length - 1 && p.kind === 'slice' ? p.elem : p;
  };
  const argv = args.map((a, i) => evalArg(a, paramType(i)));
  if (final !== undefined) argv.push(validateType(final, paramType(numIn - 1)));
  const impl = methodImpl(owner, name);
  if (impl === undefined) throw new Unsupported(`spire-reconciler does not run the Go method ${owner.name}.${name}`);
  // A value method called through a nil pointer panics in Go's generated wrapper.
  if (target.t?.kind === 'ptr' && isNil(target) && !m.pointer) {
    throw new GoError(`error calling ${name}: value method ${owner.name}.${name} called using nil *${owner.name.replace(/^.*\./, '')} pointer`);
  }
  try {
    return impl(target, argv, m);
  } catch (err) {
    if (err instanceof Unsupported) throw err;
    if (err instanceof GoError) throw new GoError(`error calling ${name}: ${err.message}`);
    throw err;
  }
}

/** A struct field's value: JSON under its key, or the same JSON for an inlined embedded struct. */
function readField(owner: StructType, v: unknown, field: FieldPath[number]): unknown {
  switch (owner.codec) {
    case 'object':
      if (field.json === '') return v;
      if (field.json === '-') throw new Unsupported(`spire-reconciler does not read ${owner.name}.${field.name}`);
      return readKey(v, field.json);
    case 'metatime':
      return v;
    case 'intstr':
      if (field.name === 'Type') return typeof v === 'string' ? 1 : 0;
      if (field.name === 'IntVal') return typeof v === 'number' ? v : 0;
      return typeof v === 'string' ? v : '';
    default:
      throw new Unsupported(`spire-reconciler does not read ${owner.name}.${field.name}`);
  }
}

/** A value being walked along a field chain, mutated step by step so that `.A.B.C` allocates nothing on the way. */
export interface Cursor {
  t: GoType | undefined;
  v: unknown;
  addr: boolean;
  holder: unknown;
  key: string | undefined;
}

export function valueOf(c: Cursor): GoValue {
  if (c.t === undefined) return NO_VALUE;
  return c.key === undefined ? new GoValue(c.t, c.v, c.addr) : new GoValue(c.t, c.v, c.addr, c.holder, c.key);
}

/**
 * Go's evalField: `.Name` of a value, with the arguments a method would get.
 * Methods first (a pointer's, or an addressable value's, include the pointer
 * receivers), then struct fields, then map keys of a map keyed by string. An
 * invalid receiver (a missing map key) stays invalid.
 */
export function fieldStep(c: Cursor, name: string, call: Call | undefined): void {
  const typ = c.t;
  if (typ === undefined) return;
  // Go's indirect: what a non-nil pointer points to is addressable.
  let t: GoType = typ;
  const v = c.v;
  let addr = c.addr;
  if (t.kind === 'ptr' && v !== undefined && v !== null) {
    while (t.kind === 'ptr') t = t.elem;
    addr = true;
  }
  const method = t.methods.get(name);
  if (method !== undefined && (t.kind === 'ptr' || addr || !method.pointer)) {
    const receiver = t === typ ? valueOf(c) : new GoValue(t, v, true);
    const result = callMethod(receiver, t.kind === 'ptr' ? t.elem : t, method, name, call);
    c.t = result.t;
    c.v = result.v;
    c.addr = result.addr;
    c.holder = result.holder;
    c.key = result.key;
    return;
  }
  const hasArgs = call !== undefined && (call.args.length > 0 || call.final !== undefined);
  if (t.kind === 'struct') {
    const path = t.lookup.get(name);
    if (path !== undefined) {
      const last = path[path.length - 1]!;
      if (!last.exported) throw new GoError(`${name} is an unexported field of struct type ${typ.name}`);
      if (hasArgs) throw new GoError(`${name} has arguments but cannot be invoked as function`);
      let value = v;
      let holder: unknown;
      let type: GoType = t;
      for (const field of path) {
        holder = value;
        value = readField(type as StructType, value, field);
        type = field.type;
      }
      c.t = type;
      c.v = value;
      c.addr = addr;
      c.holder = holder;
      c.key = type.kind === 'ptr' ? last.json : undefined;
      return;
    }
  } else if (t.kind === 'map' && t.key === STRING) {
    if (hasArgs) throw new GoError(`${name} is not a method but has arguments`);
    const obj = readObject(v);
    const found = obj !== undefined && Object.hasOwn(obj, name);
    c.t = found ? t.elem : undefined;
    c.v = found ? obj[name] : undefined;
    c.addr = false;
    c.key = undefined;
    return;
  } else if (t.kind === 'ptr') {
    const elem = t.elem;
    if (elem.kind !== 'struct' || elem.lookup.has(name)) throw new GoError(`nil pointer evaluating ${typ.name}.${name}`);
  }
  throw new GoError(`can't evaluate field ${name} in type ${typ.name}`);
}

