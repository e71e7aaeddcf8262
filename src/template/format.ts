/**
 * Printing values the way Go prints them: text/template's printValue for
 * `{{ x }}`, and fmt's Sprint, Sprintln and Sprintf for print, println and
 * printf (verbs, flags, width, precision, argument indexes, String and
 * GoString methods, and fmt's `%!verb(type=value)` error notation).
 *
 * What Go prints through machinery spire-reconciler does not reproduce
 * (memory addresses of pointers, the generated String() of Kubernetes structs
 * other than ObjectMeta) raises an Unsupported error instead of printing
 * something that would differ from Go's output.
 */

import { fromBytes, toBytes } from './bytes.js';
import { Unsupported } from './errors.js';
import { formatFloat } from './floatfmt.js';
import type { MapType, SliceType, StructType } from './gotypes.js';
import { methodOf, typeNamed } from './gotypes.js';
import { UnsupportedString, readTime, stringOf } from './methods.js';
import { canBackquote, isPrint, quote, quoteRune } from './quote.js';
import { goString, timeString } from './time.js';
import {
  GoValue,
  bigOf,
  indirect,
  isNil,
  readComplex,
  readFloat,
  readInt,
  readItems,
  readKey,
  readObject,
  readString,
  sortedKeys,
} from './values.js';

// ---- fmt's state ----

interface Flags {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  plusV: boolean;
  sharpV: boolean;
  wid: number;
  widPresent: boolean;
  prec: number;
  precPresent: boolean;
}

function clearFlags(): Flags {
  return { plus: false, minus: false, sharp: false, space: false, zero: false, plusV: false, sharpV: false, wid: 0, widPresent: false, prec: 0, precPresent: false };
}

function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function truncateRunes(s: string, n: number): string {
  let out = '';
  let i = 0;
  for (const ch of s) {
    if (i++ >= n) break;
    out += ch;
  }
  return out;
}

function validRune(n: bigint): number {
  return n >= 0n && n <= 0x10ffffn && !(n >= 0xd800n && n <= 0xdfffn) ? Number(n) : 0xfffd;
}

/** A struct field's value, as fmt reads it (field by field, in declaration order). */
function fieldValue(t: StructType, v: unknown, i: number): GoValue {
  const f = t.fields[i]!;
  switch (t.codec) {
    case 'object':
      if (f.json === '-') break;
      return new GoValue(f.type, f.json === '' ? v : readKey(v, f.json));
    case 'metatime':
      return new GoValue(f.type, v);
    case 'intstr':
      return new GoValue(f.type, i === 0 ? (typeof v === 'string' ? 1 : 0) : i === 1 ? (typeof v === 'number' ? v : 0) : typeof v === 'string' ? v : '');
  }
  throw new Unsupported(`spire-reconciler does not print the inside of ${t.name}`);
}

/** The subset of fmt's pp state that printing one operand needs. */
class Printer {
  buf = '';
  f: Flags = clearFlags();
  private arg: GoValue | undefined;
  private value: GoValue | undefined;
  private erroring = false;

  // ---- padding (fmt/format.go) ----

  private padding(n: number): string {
    return n > 0 ? (this.f.zero && !this.f.minus ? '0' : ' ').repeat(n) : '';
  }

  private pad(s: string): void {
    const f = this.f;
    if (!f.widPresent || f.wid === 0) {
      this.buf += s;
      return;
    }
    const n = f.wid - runeCount(s);
    if (f.minus) this.buf += s + this.padding(n);
    else this.buf += this.padding(n) + s;
  }

  /** Pads with spaces even when the zero flag is set. */
  private padSpaces(s: string): void {
    const zero = this.f.zero;
    this.f.zero = false;
    this.pad(s);
    this.f.zero = zero;
  }

  // ---- printArg and handleMethods (fmt/print.go) ----

  printArg(arg: GoValue, verb: string): void {
    this.arg = arg;
    this.value = undefined;
    const t = arg.t;
    if (t === undefined) {
      if (verb === 'T' || verb === 'v') this.pad('<nil>');
      else this.badVerb(verb);
      return;
    }
    if (verb === 'T') {
      this.fmtS(t.name);
      return;
    }
    if (verb === 'p') {
      this.fmtPointer(arg, 'p');
      return;
    }
    if (t.name === '[]uint8') {
      this.fmtBytes(arg.v, verb, '[]byte');
      return;
    }
    if (!this.handleMethods(arg, verb)) this.printValue(arg, verb, 0);
  }

  /** String and GoString methods, as fmt calls them on the operand (a copy: pointer receivers only through a pointer). */
  private handleMethods(x: GoValue, verb: string): boolean {
    if (this.erroring) return false;
    const t = x.t!;
    if (verb === 'w') {
      this.badVerb(verb);
      return true;
    }
    const owner = t.kind === 'ptr' ? t.elem : t;
    if (this.f.sharpV) {
      const m = methodOf(t, 'GoString', false);
      if (m === undefined) return false;
      if (isNil(x) && t.kind === 'ptr' && !m.pointer) {
        this.buf += '<nil>';
        return true;
      }
      this.fmtS(goString(readTime(x.v)));
      return true;
    }
    if (!'vsxXq'.includes(verb)) return false;
    const m = methodOf(t, 'String', false);
    if (m === undefined || m.params.length > 0) return false;
    // A value method called through a nil pointer panics; fmt prints <nil> for that.
    if (t.kind === 'ptr' && isNil(x) && !m.pointer) {
      this.buf += '<nil>';
      return true;
    }
    const s = stringOf(owner, t.kind === 'ptr' && !isNil(x) ? new GoValue(owner, x.v, true) : x);
    if (s === undefined) throw new UnsupportedString(owner.name);
    this.fmtString(s, verb);
    return true;
  }

  private badVerb(verb: string): void {
    this.erroring = true;
    this.buf += `%!${verb}(`;
    if (this.arg !== undefined && this.arg.t !== undefined) {
      this.buf += `${this.arg.t.name}=`;
      this.printArg(this.arg, 'v');
    } else if (this.value !== undefined && this.value.t !== undefined) {
      this.buf += `${this.value.t.name}=`;
      this.printValue(this.value, 'v', 0);
    } else {
      this.buf += '<nil>';
    }
    this.buf += ')';
    this.erroring = false;
  }

  // ---- printValue (fmt/print.go) ----

  printValue(x: GoValue, verb: string, depth: number): void {
    if (depth > 0 && x.t !== undefined) {
      this.arg = x;
      if (this.handleMethods(x, verb)) return;
    }
    this.arg = undefined;
    this.value = x;
    const t = x.t;
    if (t === undefined) {
      if (depth === 0) this.buf += '<invalid reflect.Value>';
      else if (verb === 'v') this.buf += '<nil>';
      else this.badVerb(verb);
      return;
    }
    const v = x.v;
    switch (t.kind) {
      case 'bool':
        if (verb === 't' || verb === 'v') this.pad(v === true ? 'true' : 'false');
        else this.badVerb(verb);
        return;
      case 'int':
      case 'uint':
        this.fmtInteger(bigOf(readInt(v)), t.kind === 'int', verb);
        return;
      case 'float':
        this.fmtFloat(readFloat(v), verb);
        return;
      case 'complex': {
        if (!'vbgGxXfFeE'.includes(verb)) {
          this.badVerb(verb);
          return;
        }
        const c = readComplex(v);
        const plus = this.f.plus;
        this.buf += '(';
        this.fmtFloat(c.re, verb);
        this.f.plus = true;
        this.fmtFloat(c.im, verb);
        this.buf += 'i)';
        this.f.plus = plus;
        return;
      }
      case 'string':
        this.fmtString(readString(v), verb);
        return;
      case 'map':
        this.printMap(t, v, verb, depth);
        return;
      case 'struct':
        this.printStruct(t, v, verb, depth);
        return;
      case 'slice':
        this.printSlice(t, v, verb, depth);
        return;
      case 'ptr':
        if (depth === 0 && !isNil(x)) {
          const elem = t.elem;
          if (elem.kind === 'slice' || elem.kind === 'struct' || elem.kind === 'map') {
            this.buf += '&';
            this.printValue(new GoValue(elem, v, true), verb, depth + 1);
            return;
          }
        }
        this.fmtPointer(x, verb);
        return;
      case 'interface':
        this.buf += this.f.sharpV ? `${t.name}(nil)` : '<nil>';
    }
  }

  private printMap(t: MapType, v: unknown, verb: string, depth: number): void {
    const obj = readObject(v);
    if (this.f.sharpV) {
      this.buf += t.name;
      if (obj === undefined) {
        this.buf += '(nil)';
        return;
      }
      this.buf += '{';
    } else {
      this.buf += 'map[';
    }
    if (obj !== undefined) {
      sortedKeys(obj).forEach((key, i) => {
        if (i > 0) this.buf += this.f.sharpV ? ', ' : ' ';
        this.printValue(new GoValue(t.key, key), verb, depth + 1);
        this.buf += ':';
        this.printValue(new GoValue(t.elem, obj[key]), verb, depth + 1);
      });
    }
    this.buf += this.f.sharpV ? '}' : ']';
  }

  private printStruct(t: StructType, v: unknown, verb: string, depth: number): void {
    if (this.f.sharpV) this.buf += t.name;
    this.buf += '{';
    t.fields.forEach((field, i) => {
      if (i > 0) this.buf += this.f.sharpV ? ', ' : ' ';
      if (this.f.plusV || this.f.sharpV) this.buf += `${field.name}:`;
      this.printValue(fieldValue(t, v, i), verb, depth + 1);
    });
    this.buf += '}';
  }

  private printSlice(t: SliceType, v: unknown, verb: string, depth: number): void {
    if ('sqxX'.includes(verb) && t.elem.kind === 'uint' && t.elem.name === 'uint8') {
      this.fmtBytes(v, verb, t.name);
      return;
    }
    const items = readItems(v);
    if (this.f.sharpV) {
      this.buf += t.name;
      if (!Array.isArray(v) && !(v instanceof Uint8Array)) {
        this.buf += '(nil)';
        return;
      }
      this.buf += '{';
    } else {
      this.buf += '[';
    }
    items.forEach((item, i) => {
      if (i > 0) this.buf += this.f.sharpV ? ', ' : ' ';
      // Slice elements are addressable.
      this.printValue(new GoValue(t.elem, item, true), verb, depth + 1);
    });
    this.buf += this.f.sharpV ? '}' : ']';
  }

  private fmtPointer(x: GoValue, verb: string): void {
    const t = x.t!;
    if (t.kind !== 'ptr' && t.kind !== 'map' && t.kind !== 'slice') {
      this.badVerb(verb);
      return;
    }
    if (!isNil(x)) throw new Unsupported(`printing a ${t.name} shows a memory address in Go, which spire-reconciler cannot reproduce`);
    switch (verb) {
      case 'v':
        if (this.f.sharpV) this.buf += `(${t.name})(nil)`;
        else this.pad('<nil>');
        return;
      case 'p':
        this.fmt0x64(0n, !this.f.sharp);
        return;
      case 'b':
      case 'o':
      case 'd':
      case 'x':
      case 'X':
        this.fmtInteger(0n, false, verb);
        return;
      default:
        this.badVerb(verb);
    }
  }

  private fmtBytes(v: unknown, verb: string, typeString: string): void {
    const bytes = v instanceof Uint8Array ? v : Uint8Array.from(readItems(v) as number[]);
    switch (verb) {
      case 'v':
      case 'd':
        if (this.f.sharpV) {
          this.buf += typeString;
          if (v === undefined || v === null) {
            this.buf += '(nil)';
            return;
          }
          this.buf += '{';
          bytes.forEach((b, i) => {
            if (i > 0) this.buf += ', ';
            this.fmt0x64(BigInt(b), true);
          });
          this.buf += '}';
        } else {
          this.buf += '[';
          bytes.forEach((b, i) => {
            if (i > 0) this.buf += ' ';
            this.intFmt(BigInt(b), 10, false, verb, false);
          });
          this.buf += ']';
        }
        return;
      case 's':
        this.fmtS(fromBytes(bytes));
        return;
      case 'x':
      case 'X':
        this.fmtSx(Buffer.from(bytes), verb === 'X');
        return;
      case 'q':
        this.fmtQ(fromBytes(bytes));
        return;
      default:
        this.printSlice(typeNamed('[]uint8') as SliceType, Array.from(bytes), verb, 0);
    }
  }

  // ---- numbers ----

  private fmt0x64(n: bigint, leading0x: boolean): void {
    const sharp = this.f.sharp;
    this.f.sharp = leading0x;
    this.intFmt(n, 16, false, 'v', false);
    this.f.sharp = sharp;
  }

  private fmtInteger(n: bigint, signed: boolean, verb: string): void {
    // An unsigned operand is a uint64: a negative value wraps.
    const u = signed ? n : BigInt.asUintN(64, n);
    switch (verb) {
      case 'v':
        if (this.f.sharpV && !signed) this.fmt0x64(u, true);
        else this.intFmt(u, 10, signed, verb, false);
        return;
      case 'd':
        this.intFmt(u, 10, signed, verb, false);
        return;
      case 'b':
        this.intFmt(u, 2, signed, verb, false);
        return;
      case 'o':
      case 'O':
        this.intFmt(u, 8, signed, verb, false);
        return;
      case 'x':
        this.intFmt(u, 16, signed, verb, false);
        return;
      case 'X':
        this.intFmt(u, 16, signed, verb, true);
        return;
      case 'c':
        this.pad(String.fromCodePoint(validRune(BigInt.asUintN(64, n))));
        return;
      case 'q':
        this.pad(quoteRune(validRune(BigInt.asUintN(64, n)), this.f.plus));
        return;
      case 'U':
        this.fmtUnicode(BigInt.asUintN(64, n));
        return;
      default:
        this.badVerb(verb);
    }
  }

  private intFmt(n: bigint, base: number, signed: boolean, verb: string, upper: boolean): void {
    const f = this.f;
    const negative = signed && n < 0n;
    const u = negative ? -n : n;
    let prec = 0;
    if (f.precPresent) {
      prec = f.prec;
      if (prec === 0 && u === 0n) {
        this.buf += ' '.repeat(Math.max(f.widPresent ? f.wid : 0, 0));
        return;
      }
    } else if (f.zero && !f.minus && f.widPresent) {
      prec = f.wid;
      if (negative || f.plus || f.space) prec--;
    }
    let digits = u.toString(base);
    if (upper) digits = digits.toUpperCase();
    if (digits.length < prec) digits = digits.padStart(prec, '0');
    if (f.sharp) {
      if (base === 2) digits = `0b${digits}`;
      else if (base === 8 && !digits.startsWith('0')) digits = `0${digits}`;
      else if (base === 16) digits = `0${upper ? 'X' : 'x'}${digits}`;
    }
    if (verb === 'O') digits = `0o${digits}`;
    if (negative) digits = `-${digits}`;
    else if (f.plus) digits = `+${digits}`;
    else if (f.space) digits = ` ${digits}`;
    this.padSpaces(digits);
  }

  private fmtUnicode(u: bigint): void {
    const f = this.f;
    let s = `U+${u.toString(16).toUpperCase().padStart(f.precPresent && f.prec > 4 ? f.prec : 4, '0')}`;
    if (f.sharp && u <= 0x10ffffn && isPrint(String.fromCodePoint(validRune(u)))) s += ` '${String.fromCodePoint(Number(u))}'`;
    this.padSpaces(s);
  }

  private fmtFloat(n: number, verb: string): void {
    switch (verb) {
      case 'v':
        this.floatFmt(n, 'g', -1);
        return;
      case 'b':
      case 'g':
      case 'G':
      case 'x':
      case 'X':
        this.floatFmt(n, verb, -1);
        return;
      case 'f':
      case 'e':
      case 'E':
        this.floatFmt(n, verb, 6);
        return;
      case 'F':
        this.floatFmt(n, 'f', 6);
        return;
      default:
        this.badVerb(verb);
    }
  }

  /** fmt's fmtFloat: sign handling, the # flag's point and trailing zeros, zero padding after the sign. */
  private floatFmt(n: number, verb: string, defaultPrec: number): void {
    const f = this.f;
    const prec = f.precPresent ? f.prec : defaultPrec;
    let num = formatFloat(n, verb, prec);
    if (!num.startsWith('-') && !num.startsWith('+')) num = `+${num}`;
    if (f.space && num.startsWith('+') && !f.plus) num = ` ${num.slice(1)}`;
    if (num[1] === 'I' || num[1] === 'N') {
      if (num[1] === 'N' && !f.space && !f.plus) num = num.slice(1);
      this.padSpaces(num);
      return;
    }
    if (f.sharp && verb !== 'b') {
      let digits = 0;
      if ('vgGx'.includes(verb)) digits = prec === -1 ? 6 : prec;
      let tail = '';
      let hasPoint = false;
      let sawNonzero = false;
      let body = num;
      for (let i = 1; i < body.length; i++) {
        const c = body[i]!;
        if (c === '.') hasPoint = true;
        else if (c === 'p' || c === 'P' || ((c === 'e' || c === 'E') && verb !== 'x' && verb !== 'X')) {
          tail = body.slice(i);
          body = body.slice(0, i);
          break;
        } else {
          if (c !== '0') sawNonzero = true;
          if (sawNonzero) digits--;
        }
      }
      if (!hasPoint) {
        if (body.length === 2 && body[1] === '0') digits--;
        body += '.';
      }
      if (digits > 0) body += '0'.repeat(digits);
      num = body + tail;
    }
    if (f.plus || !num.startsWith('+')) {
      if (f.zero && !f.minus && f.widPresent && f.wid > num.length) {
        this.buf += num[0] + '0'.repeat(f.wid - num.length) + num.slice(1);
        return;
      }
      this.pad(num);
      return;
    }
    this.pad(num.slice(1));
  }

  // ---- strings ----

  private fmtString(s: string, verb: string): void {
    switch (verb) {
      case 'v':
        if (this.f.sharpV) this.fmtQ(s);
        else this.fmtS(s);
        return;
      case 's':
        this.fmtS(s);
        return;
      case 'x':
      case 'X':
        this.fmtSx(toBytes(s), verb === 'X');
        return;
      case 'q':
        this.fmtQ(s);
        return;
      default:
        this.badVerb(verb);
    }
  }

  fmtS(s: string): void {
    this.pad(this.f.precPresent ? truncateRunes(s, this.f.prec) : s);
  }

  private fmtQ(s: string): void {
    const t = this.f.precPresent ? truncateRunes(s, this.f.prec) : s;
    if (this.f.sharp && canBackquote(t)) this.pad(`\`${t}\``);
    else this.pad(quote(t, this.f.plus));
  }

  private fmtSx(all: Uint8Array, upper: boolean): void {
    const f = this.f;
    const bytes = f.precPresent && f.prec < all.length ? all.subarray(0, f.prec) : all;
    const length = bytes.length;
    let width = 2 * length;
    if (width > 0) {
      if (f.space) {
        if (f.sharp) width *= 2;
        width += length - 1;
      } else if (f.sharp) {
        width += 2;
      }
    } else {
      if (f.widPresent) this.buf += this.padding(f.wid);
      return;
    }
    if (f.widPresent && f.wid > width && !f.minus) this.buf += this.padding(f.wid - width);
    const prefix = upper ? '0X' : '0x';
    let out = f.sharp ? prefix : '';
    bytes.forEach((b, i) => {
      if (f.space && i > 0) {
        out += ' ';
        if (f.sharp) out += prefix;
      }
      const hex = b.toString(16).padStart(2, '0');
      out += upper ? hex.toUpperCase() : hex;
    });
    this.buf += out;
    if (f.widPresent && f.wid > width && f.minus) this.buf += this.padding(f.wid - width);
  }
}

// ---- text/template's printValue ----

/**
 * The text `{{ x }}` writes: Go's printableValue (a pointer followed; a value
 * whose pointer has String() printed through it; invalid is `<no value>`),
 * then fmt's %v.
 */
export function printAction(x: GoValue): string {
  const t = x.t;
  if (t === undefined) return '<no value>';
  // The common cases, without a Printer.
  if (t.kind === 'string' && t.methods.size === 0) return readString(x.v);
  if (t.kind === 'int' && t.methods.size === 0) return String(readInt(x.v));
  if (t.kind === 'bool') return x.v === true ? 'true' : 'false';
  const p = new Printer();
  p.printArg(printable(x), 'v');
  return p.buf;
}

/** Go's printableValue: pointers followed; an addressable value whose pointer type has String() becomes that pointer. */
export function printable(x: GoValue): GoValue {
  let y = x.t?.kind === 'ptr' ? indirect(x) : x;
  const t = y.t;
  if (t === undefined || t.kind === 'ptr') return y;
  if (methodOf(t, 'String', false) === undefined && methodOf(t, 'String', y.addr) !== undefined) {
    y = new GoValue(typeNamed(`*${t.name}`), y.v ?? {}, false);
  }
  return y;
}

/** fmt.Sprint: operands separated by a space when neither side is a string. */
export function sprint(args: readonly GoValue[]): string {
  const p = new Printer();
  let prevString = false;
  args.forEach((arg, i) => {
    const isString = arg.t?.kind === 'string';
    if (i > 0 && !isString && !prevString) p.buf += ' ';
    p.f = clearFlags();
    p.printArg(arg, 'v');
    prevString = isString;
  });
  return p.buf;
}

/** fmt.Sprintln: operands always separated by a space, and a newline at the end. */
export function sprintln(args: readonly GoValue[]): string {
  const p = new Printer();
  args.forEach((arg, i) => {
    if (i > 0) p.buf += ' ';
    p.f = clearFlags();
    p.printArg(arg, 'v');
  });
  return `${p.buf}\n`;
}

const MAX_WIDTH = 1e6;

function tooLarge(n: number | bigint): boolean {
  return n > MAX_WIDTH || n < -MAX_WIDTH;
}

/** fmt's parsenum: a decimal number, or not present; overflowing digits give "not present" and skip to the end. */
function parseNum(s: string, start: number, end: number): [num: number, present: boolean, next: number] {
  if (start >= end) return [0, false, end];
  let i = start;
  let num = 0;
  let present = false;
  while (i < end && s[i]! >= '0' && s[i]! <= '9') {
    if (tooLarge(num)) return [0, false, end];
    num = num * 10 + (s.charCodeAt(i) - 48);
    present = true;
    i++;
  }
  return [num, present, i];
}

/** fmt's intFromArg: a `*` width or precision; any integer type within ±1e6 will do. */
function intFromArg(args: readonly GoValue[], argNum: number): [num: number, isInt: boolean, next: number] {
  if (argNum >= args.length) return [0, false, argNum];
  const a = args[argNum]!;
  let num = 0n;
  let isInt = false;
  if (a.t !== undefined && (a.t.kind === 'int' || a.t.kind === 'uint')) {
    num = bigOf(readInt(a.v));
    isInt = a.t.kind === 'int' || num >= 0n;
  }
  if (tooLarge(num)) return [0, false, argNum + 1];
  return [Number(num), isInt, argNum + 1];
}

/** fmt.Sprintf. */
export function sprintf(format: string, args: readonly GoValue[]): string {
  const p = new Printer();
  const end = format.length;
  let argNum = 0;
  let afterIndex: boolean;
  let reordered = false;
  let goodArgNum: boolean;

  // An explicit argument index `[n]`: the new argument number, position, and whether one was found.
  const argNumber = (i: number): [number, number, boolean] => {
    if (i >= end || format[i] !== '[') return [argNum, i, false];
    reordered = true;
    let width = 1;
    let index = 0;
    let ok = false;
    if (end - i >= 3) {
      const close = format.indexOf(']', i + 1);
      if (close !== -1) {
        const [n, present, next] = parseNum(format, i + 1, close);
        width = close - i + 1;
        if (present && next === close) {
          index = n - 1;
          ok = true;
        }
      }
    }
    if (ok && index >= 0 && index < args.length) return [index, i + width, true];
    goodArgNum = false;
    return [argNum, i + width, ok];
  };

  for (let i = 0; i < end; ) {
    goodArgNum = true;
    const lasti = i;
    while (i < end && format[i] !== '%') i++;
    if (i > lasti) p.buf += format.slice(lasti, i);
    if (i >= end) break;
    i++;

    p.f = clearFlags();
    const f = p.f;
    for (; i < end; i++) {
      const c = format[i];
      if (c === '#') f.sharp = true;
      else if (c === '0') f.zero = true;
      else if (c === '+') f.plus = true;
      else if (c === '-') f.minus = true;
      else if (c === ' ') f.space = true;
      else break;
    }

    [argNum, i, afterIndex] = argNumber(i);

    if (i < end && format[i] === '*') {
      i++;
      [f.wid, f.widPresent, argNum] = intFromArg(args, argNum);
      if (!f.widPresent) p.buf += '%!(BADWIDTH)';
      if (f.wid < 0) {
        f.wid = -f.wid;
        f.minus = true;
        f.zero = false;
      }
      afterIndex = false;
    } else {
      [f.wid, f.widPresent, i] = parseNum(format, i, end);
      if (afterIndex && f.widPresent) goodArgNum = false;
    }

    if (i + 1 < end && format[i] === '.') {
      i++;
      if (afterIndex) goodArgNum = false;
      [argNum, i, afterIndex] = argNumber(i);
      if (i < end && format[i] === '*') {
        i++;
        [f.prec, f.precPresent, argNum] = intFromArg(args, argNum);
        if (f.prec < 0) {
          f.prec = 0;
          f.precPresent = false;
        }
        if (!f.precPresent) p.buf += '%!(BADPREC)';
        afterIndex = false;
      } else {
        [f.prec, f.precPresent, i] = parseNum(format, i, end);
        if (!f.precPresent) {
          f.prec = 0;
          f.precPresent = true;
        }
      }
    }

    if (!afterIndex) [argNum, i] = argNumber(i);

    if (i >= end) {
      p.buf += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i) ?? 0);
    i += verb.length;

    if (verb === '%') {
      p.buf += '%';
    } else if (!goodArgNum) {
      p.buf += `%!${verb}(BADINDEX)`;
    } else if (argNum >= args.length) {
      p.buf += `%!${verb}(MISSING)`;
    } else {
      if (verb === 'v' || verb === 'w') {
        f.sharpV = f.sharp;
        f.sharp = false;
        f.plusV = f.plus;
        f.plus = false;
      }
      p.printArg(args[argNum]!, verb);
      argNum++;
    }
  }

  if (!reordered && argNum < args.length) {
    p.f = clearFlags();
    p.buf += '%!(EXTRA ';
    args.slice(argNum).forEach((arg, k) => {
      if (k > 0) p.buf += ', ';
      if (arg.t === undefined) p.buf += '<nil>';
      else {
        p.buf += `${arg.t.name}=`;
        p.printArg(arg, 'v');
      }
    });
    p.buf += ')';
  }
  return p.buf;
}

// ---- Kubernetes' generated String() of ObjectMeta ----

/** fmt.Sprintf("%v", x). */
function v(x: GoValue): string {
  const p = new Printer();
  p.printArg(x, 'v');
  return p.buf;
}

/** The generated valueToStringGenerated: "nil", or "*" and the value. */
function pointee(t: string, value: unknown): string {
  return value === undefined || value === null ? 'nil' : `*${v(new GoValue(typeNamed(t), value))}`;
}

/** %v of a *metav1.Time: its String(), or <nil> (the promoted value method panics on nil). */
function timePointer(value: unknown): string {
  return value === undefined || value === null ? '<nil>' : timeString(readTime(value));
}

function stringMap(value: unknown): string {
  const obj = readObject(value) ?? {};
  return `map[string]string{${sortedKeys(obj)
    .map((k) => `${k}: ${readString(obj[k])},`)
    .join('')}}`;
}

function ownerReference(o: unknown): string {
  const s = (k: string): string => readString(readKey(o, k));
  return `OwnerReference{Kind:${s('kind')},Name:${s('name')},UID:${s('uid')},APIVersion:${s('apiVersion')},Controller:${pointee('bool', readKey(o, 'controller'))},BlockOwnerDeletion:${pointee('bool', readKey(o, 'blockOwnerDeletion'))},}`;
}

function managedFieldsEntry(e: unknown): string {
  const s = (k: string): string => readString(readKey(e, k));
  const fields = readKey(e, 'fieldsV1');
  if (fields !== undefined && fields !== null) throw new Unsupported('spire-reconciler does not reproduce the String() method of v1.FieldsV1');
  return `ManagedFieldsEntry{Manager:${s('manager')},Operation:${s('operation')},APIVersion:${s('apiVersion')},Time:${timePointer(readKey(e, 'time'))},FieldsType:${s('fieldsType')},FieldsV1:<nil>,Subresource:${s('subresource')},}`;
}

/** (*metav1.ObjectMeta).String(), as apimachinery's generated.pb.go writes it, for a non-nil pointer. */
export function objectMetaString(meta: unknown): string {
  const s = (k: string): string => readString(readKey(meta, k));
  const generation = readKey(meta, 'generation');
  return (
    `&ObjectMeta{Name:${s('name')},GenerateName:${s('generateName')},Namespace:${s('namespace')},SelfLink:${s('selfLink')},` +
    `UID:${s('uid')},ResourceVersion:${s('resourceVersion')},Generation:${typeof generation === 'number' ? generation : 0},` +
    `CreationTimestamp:${timeString(readTime(readKey(meta, 'creationTimestamp')))},` +
    `DeletionTimestamp:${timePointer(readKey(meta, 'deletionTimestamp'))},` +
    `DeletionGracePeriodSeconds:${pointee('int64', readKey(meta, 'deletionGracePeriodSeconds'))},` +
    `Labels:${stringMap(readKey(meta, 'labels'))},Annotations:${stringMap(readKey(meta, 'annotations'))},` +
    `OwnerReferences:[]OwnerReference{${readItems(readKey(meta, 'ownerReferences')).map((o) => `${ownerReference(o)},`).join('')}},` +
    `Finalizers:${v(new GoValue(typeNamed('[]string'), readKey(meta, 'finalizers')))},` +
    `ManagedFields:[]ManagedFieldsEntry{${readItems(readKey(meta, 'managedFields')).map((e) => `${managedFieldsEntry(e)},`).join('')}},}`
  );
}
