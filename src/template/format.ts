/**
 * Printing values the way Go prints them: text/template's printValue for
 * `{{ x }}`, and fmt's Sprint, Sprintln and Sprintf for the print, println and
 * printf functions (verbs, flags, width, precision, argument indexes and fmt's
 * `%!verb(type=value)` error notation included).
 *
 * Values Go would print through machinery spire-reconciler does not model
 * (whole structs, memory addresses of pointers) raise a GoError instead of
 * printing something that would differ from Go's output.
 */

import { GoError } from './errors.js';
import type { GoType } from './gotypes.js';
import { canBackquote, isPrint, quote, quoteRune } from './quote.js';
import { GoValue, indirect, readItems, readNumber, readObject, readString, sortedKeys } from './values.js';

// ---- time ----

const ZERO_TIME = '0001-01-01 00:00:00 +0000 UTC';
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

function two(n: number): string {
  return n.toString().padStart(2, '0');
}

/**
 * metav1.Time's String(): Go's Time.String() layout `2006-01-02 15:04:05.999999999 -0700 MST`.
 * metav1.Time decodes into the process's local zone, which in the controller's container is UTC.
 */
export function formatTime(v: unknown): string {
  if (v === undefined || v === null || v === '') return ZERO_TIME;
  const s = readString(v);
  const m = RFC3339.exec(s);
  if (m === null) throw new GoError(`cannot parse ${quote(s)} as a Kubernetes timestamp`);
  const [, year, month, day, hour, minute, second, frac = '', zone = 'Z'] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  if (zone !== 'Z' && zone !== 'z') {
    const offset = (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
    date.setTime(date.getTime() - (zone.startsWith('-') ? -offset : offset));
  }
  const fraction = frac.replace(/0+$/, '');
  return (
    `${date.getUTCFullYear().toString().padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}` +
    `${fraction === '' ? '' : `.${fraction}`} +0000 UTC`
  );
}

// ---- numbers ----

interface Digits {
  /** Significant decimal digits without trailing zeros; empty for zero. */
  readonly d: string;
  /** Position of the decimal point relative to the start of d. */
  readonly dp: number;
}

function digitsOf(exponential: string): Digits {
  const [mantissa = '0', exp = '0'] = exponential.split('e');
  const d = mantissa.replace('.', '').replace(/0+$/, '');
  return d === '' ? { d: '', dp: 0 } : { d, dp: Number(exp) + 1 };
}

function shortestDigits(a: number): Digits {
  return digitsOf(a.toExponential());
}

function roundedDigits(a: number, significant: number): Digits {
  return digitsOf(a.toExponential(Math.min(Math.max(significant - 1, 0), 100)));
}

function integerDigits(a: number): Digits {
  const s = BigInt(a).toString();
  const d = s.replace(/0+$/, '');
  return d === '' ? { d: '', dp: 0 } : { d, dp: s.length };
}

function fmtE(digs: Digits, prec: number, e: 'e' | 'E'): string {
  let s = digs.d[0] ?? '0';
  if (prec > 0) s += `.${digs.d.slice(1, prec + 1).padEnd(prec, '0')}`;
  const exp = digs.d === '' ? 0 : digs.dp - 1;
  return `${s}${e}${exp < 0 ? '-' : '+'}${two(Math.abs(exp))}`;
}

function fmtF(digs: Digits, prec: number): string {
  let s = digs.dp > 0 ? digs.d.slice(0, digs.dp).padEnd(digs.dp, '0') : '0';
  if (prec > 0) {
    s += '.';
    for (let i = 1; i <= prec; i++) {
      const j = digs.dp + i - 1;
      s += j >= 0 && j < digs.d.length ? digs.d[j] : '0';
    }
  }
  return s;
}

/** strconv.FormatFloat(v, verb, prec, 64) for the e, f and g verbs; prec -1 is "shortest". */
export function formatFloat(v: number, verb: string, prec: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  const neg = v < 0 || Object.is(v, -0);
  const a = Math.abs(v);
  let body: string;
  switch (verb) {
    case 'e':
    case 'E': {
      const digs = prec < 0 ? shortestDigits(a) : roundedDigits(a, prec + 1);
      body = fmtE(digs, prec < 0 ? Math.max(digs.d.length - 1, 0) : prec, verb);
      break;
    }
    case 'f':
    case 'F':
      if (prec >= 0 && a < 1e21 && prec <= 100) {
        body = a.toFixed(prec);
      } else if (prec >= 0 && a >= 1e21) {
        // Every float64 this large is an integer, whose digits BigInt gives exactly.
        body = fmtF(integerDigits(a), prec);
      } else {
        // Shortest digits; for precisions beyond 100, padded with zeros (Go would print the binary expansion).
        const digs = shortestDigits(a);
        body = fmtF(digs, prec < 0 ? Math.max(digs.d.length - digs.dp, 0) : prec);
      }
      break;
    default: {
      // 'g' / 'G', following strconv's %e-or-%f decision.
      const shortest = prec < 0;
      let p = prec === 0 ? 1 : prec;
      const digs = a === 0 ? { d: '', dp: 0 } : shortest ? shortestDigits(a) : roundedDigits(a, p);
      if (shortest) p = digs.d.length;
      let eprec = p;
      if (eprec > digs.d.length && digs.d.length >= digs.dp) eprec = digs.d.length;
      if (shortest) eprec = 6;
      const exp = digs.dp - 1;
      if (a !== 0 && (exp < -4 || exp >= eprec)) {
        body = fmtE(digs, (p > digs.d.length ? digs.d.length : p) - 1, verb === 'G' ? 'E' : 'e');
      } else {
        if (p > digs.dp) p = digs.d.length;
        body = fmtF(digs, Math.max(p - digs.dp, 0));
      }
    }
  }
  return neg ? `-${body}` : body;
}

// ---- fmt ----

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
  return {
    plus: false,
    minus: false,
    sharp: false,
    space: false,
    zero: false,
    plusV: false,
    sharpV: false,
    wid: 0,
    widPresent: false,
    prec: 0,
    precPresent: false,
  };
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

/** The subset of fmt's pp state that printing one argument needs. */
class Printer {
  buf = '';
  f: Flags = clearFlags();
  private arg: GoValue | undefined;

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
    if (f.minus) this.buf += s + (n > 0 ? ' '.repeat(n) : '');
    else this.buf += this.padding(n) + s;
  }

  printArg(arg: GoValue, verb: string): void {
    this.arg = arg;
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
    // %w only wraps errors, and no template value is an error.
    if (verb === 'w') {
      this.badVerb(verb);
      return;
    }
    if (verb === 'p') {
      if (t.kind === 'ptr' || t.kind === 'map' || t.kind === 'slice') {
        throw new GoError(`%p prints a memory address; spire-reconciler cannot reproduce it`);
      }
      this.badVerb(verb);
      return;
    }
    this.printValue(arg, verb, 0);
  }

  private badVerb(verb: string): void {
    this.buf += `%!${verb}(`;
    const arg = this.arg;
    if (arg !== undefined && arg.t !== undefined) {
      this.buf += `${arg.t.name}=`;
      this.printArg(arg, 'v');
    } else {
      this.buf += '<nil>';
    }
    this.buf += ')';
  }

  private printValue(x: GoValue, verb: string, depth: number): void {
    if (depth > 0) this.arg = x;
    const t = x.t;
    if (t === undefined) {
      this.pad('<nil>');
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
        this.fmtInteger(readNumber(v), t.kind === 'int', verb);
        return;
      case 'float':
        this.fmtFloat(readNumber(v), verb);
        return;
      case 'string':
        this.fmtString(readString(v), verb);
        return;
      case 'map':
        this.printMap(t, v, verb, depth);
        return;
      case 'slice':
        this.printSlice(t, v, verb, depth);
        return;
      case 'ptr':
        this.printPointer(t, v, verb, depth);
        return;
      case 'struct':
        if (t.stringer === 'time' && !this.f.sharpV && 'vsxXq'.includes(verb)) {
          this.fmtString(formatTime(v), verb);
          return;
        }
        throw new GoError(`printing a value of type ${t.name} is not supported by spire-reconciler`);
    }
  }

  private printMap(t: Extract<GoType, { kind: 'map' }>, v: unknown, verb: string, depth: number): void {
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

  private printSlice(t: Extract<GoType, { kind: 'slice' }>, v: unknown, verb: string, depth: number): void {
    if (this.f.sharpV) {
      this.buf += t.name;
      if (!Array.isArray(v)) {
        this.buf += '(nil)';
        return;
      }
      this.buf += '{';
    } else {
      this.buf += '[';
    }
    readItems(v).forEach((item, i) => {
      if (i > 0) this.buf += this.f.sharpV ? ', ' : ' ';
      this.printValue(new GoValue(t.elem, item), verb, depth + 1);
    });
    this.buf += this.f.sharpV ? '}' : ']';
  }

  private printPointer(t: Extract<GoType, { kind: 'ptr' }>, v: unknown, verb: string, depth: number): void {
    if (v !== undefined && v !== null) {
      throw new GoError(
        depth === 0 && t.elem.kind === 'struct'
          ? `printing a value of type ${t.elem.name} is not supported by spire-reconciler`
          : `printing a pointer (${t.name}) shows a memory address in Go; spire-reconciler cannot reproduce it`,
      );
    }
    // A nil pointer: a String method called on it panics, which fmt prints as <nil>;
    // otherwise fmt formats the address (0) for the integer verbs.
    if (this.f.sharpV) {
      this.buf += `(${t.name})(nil)`;
    } else if (verb === 'v' || (t.elem.kind === 'struct' && 'sxXq'.includes(verb))) {
      this.pad('<nil>');
    } else if ('bodxX'.includes(verb)) {
      this.fmtInteger(0, false, verb);
    } else {
      this.badVerb(verb);
    }
  }

  private fmtInteger(n: number, signed: boolean, verb: string): void {
    switch (verb) {
      case 'v':
        this.intFmt(n, 10, signed, verb, false);
        return;
      case 'd':
        this.intFmt(n, 10, signed, verb, false);
        return;
      case 'b':
        this.intFmt(n, 2, signed, verb, false);
        return;
      case 'o':
      case 'O':
        this.intFmt(n, 8, signed, verb, false);
        return;
      case 'x':
        this.intFmt(n, 16, signed, verb, false);
        return;
      case 'X':
        this.intFmt(n, 16, signed, verb, true);
        return;
      case 'c':
        this.pad(String.fromCodePoint(validRune(n)));
        return;
      case 'q':
        this.pad(quoteRune(validRune(n), this.f.plus));
        return;
      case 'U':
        this.fmtUnicode(n);
        return;
      default:
        this.badVerb(verb);
    }
  }

  private intFmt(n: number, base: number, signed: boolean, verb: string, upper: boolean): void {
    const f = this.f;
    const negative = signed && n < 0;
    const u = Math.abs(n);
    let prec = 0;
    if (f.precPresent) {
      prec = f.prec;
      if (prec === 0 && u === 0) {
        // %.0d of zero prints nothing but padding.
        const zero = f.zero;
        f.zero = false;
        this.buf += this.padding(f.widPresent ? f.wid : 0);
        f.zero = zero;
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
    const zero = f.zero;
    f.zero = false;
    this.pad(digits);
    f.zero = zero;
  }

  private fmtUnicode(n: number): void {
    const f = this.f;
    let s = `U+${n.toString(16).toUpperCase().padStart(f.precPresent && f.prec > 4 ? f.prec : 4, '0')}`;
    if (f.sharp && n >= 0 && n <= 0x10ffff && isPrint(String.fromCodePoint(n))) s += ` '${String.fromCodePoint(n)}'`;
    const zero = f.zero;
    f.zero = false;
    this.pad(s);
    f.zero = zero;
  }

  private fmtFloat(n: number, verb: string): void {
    let prec: number;
    switch (verb) {
      case 'v':
        this.floatFmt(n, 'g', -1);
        return;
      case 'g':
      case 'G':
        prec = -1;
        break;
      case 'e':
      case 'E':
      case 'f':
      case 'F':
        prec = 6;
        break;
      case 'b':
      case 'x':
      case 'X':
        throw new GoError(`the %${verb} verb for floating-point values is not supported by spire-reconciler`);
      default:
        this.badVerb(verb);
        return;
    }
    this.floatFmt(n, verb, prec);
  }

  private floatFmt(n: number, verb: string, defaultPrec: number): void {
    const f = this.f;
    let num = formatFloat(n, verb, f.precPresent ? f.prec : defaultPrec);
    if (!num.startsWith('-') && !num.startsWith('+')) num = `+${num}`;
    if (f.space && num.startsWith('+') && !f.plus) num = ` ${num.slice(1)}`;
    if (num[1] === 'I' || num[1] === 'N') {
      if (num[1] === 'N' && !f.space && !f.plus) num = num.slice(1);
      const zero = f.zero;
      f.zero = false;
      this.pad(num);
      f.zero = zero;
      return;
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
        this.fmtSx(s, verb === 'X');
        return;
      case 'q':
        this.fmtQ(s);
        return;
      default:
        this.badVerb(verb);
    }
  }

  private fmtS(s: string): void {
    this.pad(this.f.precPresent ? truncateRunes(s, this.f.prec) : s);
  }

  private fmtQ(s: string): void {
    const t = this.f.precPresent ? truncateRunes(s, this.f.prec) : s;
    if (this.f.sharp && canBackquote(t)) this.pad(`\`${t}\``);
    else this.pad(quote(t, this.f.plus));
  }

  private fmtSx(s: string, upper: boolean): void {
    const f = this.f;
    let bytes = Buffer.from(s, 'utf8');
    if (f.precPresent && f.prec < bytes.length) bytes = bytes.subarray(0, f.prec);
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
    const prefix = upper ? '0X' : '0x';
    let out = '';
    if (f.sharp && !f.space) out += prefix;
    bytes.forEach((b, i) => {
      if (f.space && i > 0) out += ' ';
      if (f.space && f.sharp) out += prefix;
      const hex = b.toString(16).padStart(2, '0');
      out += upper ? hex.toUpperCase() : hex;
    });
    if (f.widPresent && f.wid > width) {
      if (f.minus) out += ' '.repeat(f.wid - width);
      else out = this.padding(f.wid - width) + out;
    }
    this.buf += out;
  }
}

function validRune(n: number): number {
  return n >= 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff) ? n : 0xfffd;
}

/** The text `{{ x }}` writes: Go's printableValue (pointers followed, invalid is `<no value>`) then fmt's %v. */
export function printAction(x: GoValue): string {
  const t = x.t;
  if (t === undefined) return '<no value>';
  // The common cases, without a Printer.
  if (t.kind === 'string') return readString(x.v);
  if (t.kind === 'int') return String(readNumber(x.v));
  if (t.kind === 'bool') return x.v === true ? 'true' : 'false';
  const p = new Printer();
  p.printArg(indirect(x), 'v');
  return p.buf;
}

/** fmt.Sprint: operands separated by a space when neither side is a string. */
export function sprint(args: readonly GoValue[]): string {
  let out = '';
  let prevString = false;
  args.forEach((arg, i) => {
    const isString = arg.t?.kind === 'string';
    if (i > 0 && !isString && !prevString) out += ' ';
    const p = new Printer();
    p.printArg(arg, 'v');
    out += p.buf;
    prevString = isString;
  });
  return out;
}

/** fmt.Sprintln: operands always separated by a space, and a newline at the end. */
export function sprintln(args: readonly GoValue[]): string {
  return `${args
    .map((arg) => {
      const p = new Printer();
      p.printArg(arg, 'v');
      return p.buf;
    })
    .join(' ')}\n`;
}

const MAX_WIDTH = 1e6;

function parseNum(s: string, start: number, end: number): [num: number, present: boolean, next: number] {
  let i = start;
  let num = 0;
  let present = false;
  while (i < end && s[i]! >= '0' && s[i]! <= '9') {
    if (num > MAX_WIDTH) return [0, false, end];
    num = num * 10 + (s.charCodeAt(i) - 48);
    present = true;
    i++;
  }
  return [num, present, i];
}

function intFromArg(args: readonly GoValue[], argNum: number): [num: number, isInt: boolean, next: number] {
  if (argNum >= args.length) return [0, false, argNum];
  const a = args[argNum]!;
  let num = 0;
  let isInt = false;
  if (a.t !== undefined && (a.t.kind === 'int' || a.t.kind === 'uint')) {
    num = readNumber(a.v);
    isInt = true;
  }
  if (num > MAX_WIDTH || num < -MAX_WIDTH) return [0, false, argNum + 1];
  return [num, isInt, argNum + 1];
}

/** fmt.Sprintf. */
export function sprintf(format: string, args: readonly GoValue[]): string {
  let out = '';
  const end = format.length;
  let argNum = 0;
  let afterIndex: boolean;
  let reordered = false;

  // An explicit argument index `[n]`; returns the new argument number, position and whether one was found.
  let goodArgNum: boolean;
  const argNumber = (i: number): [number, number, boolean] => {
    if (i >= end || format[i] !== '[') return [argNum, i, false];
    reordered = true;
    const close = format.indexOf(']', i + 1);
    if (end - i < 3 || close === -1) {
      goodArgNum = false;
      return [argNum, i + 1, false];
    }
    const [n, ok, next] = parseNum(format, i + 1, close);
    if (!ok || next !== close) {
      goodArgNum = false;
      return [argNum, close + 1, false];
    }
    const index = n - 1;
    if (index >= 0 && index < args.length) return [index, close + 1, true];
    goodArgNum = false;
    return [argNum, close + 1, true];
  };

  for (let i = 0; i < end; ) {
    goodArgNum = true;
    const lasti = i;
    while (i < end && format[i] !== '%') i++;
    if (i > lasti) out += format.slice(lasti, i);
    if (i >= end) break;
    i++;

    const p = new Printer();
    const f = p.f;
    for (; i < end; i++) {
      const c = format[i];
      if (c === '#') f.sharp = true;
      else if (c === '0') f.zero = !f.minus;
      else if (c === '+') f.plus = true;
      else if (c === '-') {
        f.minus = true;
        f.zero = false;
      } else if (c === ' ') f.space = true;
      else break;
    }

    [argNum, i, afterIndex] = argNumber(i);

    if (i < end && format[i] === '*') {
      i++;
      [f.wid, f.widPresent, argNum] = intFromArg(args, argNum);
      if (!f.widPresent) out += '%!(BADWIDTH)';
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

    if (i + 1 <= end && format[i] === '.') {
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
        if (!f.precPresent) out += '%!(BADPREC)';
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
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i) ?? 0);
    i += verb.length;

    if (verb === '%') {
      out += '%';
    } else if (!goodArgNum) {
      out += `%!${verb}(BADINDEX)`;
    } else if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
    } else {
      if (verb === 'v') {
        f.sharpV = f.sharp;
        f.sharp = false;
        f.plusV = f.plus;
        f.plus = false;
      }
      p.printArg(args[argNum]!, verb);
      out += p.buf;
      argNum++;
    }
  }

  if (!reordered && argNum < args.length) {
    out += `%!(EXTRA ${args
      .slice(argNum)
      .map((arg) => {
        if (arg.t === undefined) return '<nil>';
        const p = new Printer();
        p.printArg(arg, 'v');
        return `${arg.t.name}=${p.buf}`;
      })
      .join(', ')})`;
  }
  return out;
}
