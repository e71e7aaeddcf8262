/**
 * Number literals as Go's template parser reads them (parse.newNumber): which
 * of int64, uint64, float64 and complex128 a literal fits, with strconv's
 * syntax (base prefixes, underscores, hexadecimal floats) and range rules.
 */
import type { NumberConst } from './eval.js';
import type { Complex } from './values.js';

const MAX_INT64 = 0x7fffffffffffffffn;
const MIN_INT64 = -0x8000000000000000n;
const MAX_UINT64 = 0xffffffffffffffffn;

/** strconv's underscoreOK: underscores only between digits, or between a base prefix and a digit. */
function underscoreOK(text: string): boolean {
  let s = text;
  if (s.startsWith('-') || s.startsWith('+')) s = s.slice(1);
  let saw = '^';
  let i = 0;
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && /[bBoOxX]/.test(s[1]!)) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** strconv.ParseUint(s, 0, 64). */
function parseUint(s: string): bigint | undefined {
  if (s === '' || !/^[0-9]/.test(s)) return undefined;
  let base = 10;
  let digits = s;
  if (s[0] === '0') {
    if (s.length >= 3 && /[bB]/.test(s[1]!)) [base, digits] = [2, s.slice(2)];
    else if (s.length >= 3 && /[oO]/.test(s[1]!)) [base, digits] = [8, s.slice(2)];
    else if (s.length >= 3 && /[xX]/.test(s[1]!)) [base, digits] = [16, s.slice(2)];
    else [base, digits] = [8, s.slice(1)];
  }
  if (digits.includes('_') && !underscoreOK(s)) return undefined;
  const clean = digits.replaceAll('_', '');
  if (clean === '' && base !== 8) return undefined;
  const valid = { 2: /^[01]*$/, 8: /^[0-7]*$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ }[base as 2 | 8 | 10 | 16];
  if (!valid.test(clean)) return undefined;
  let n = 0n;
  for (const c of clean) {
    n = n * BigInt(base) + BigInt(parseInt(c, 16));
    if (n > MAX_UINT64) return undefined;
  }
  return n;
}

/** strconv.ParseInt(s, 0, 64). */
function parseInt64(s: string): bigint | undefined {
  const neg = s.startsWith('-');
  const body = s.startsWith('-') || s.startsWith('+') ? s.slice(1) : s;
  const u = parseUint(body);
  if (u === undefined) return undefined;
  const n = neg ? -u : u;
  return n > MAX_INT64 || n < MIN_INT64 ? undefined : n;
}

/** A binary mantissa times a power of two, rounded to the nearest float64 (ties to even). */
function scaleBinary(mant: bigint, exp2: number): number {
  if (mant === 0n) return 0;
  let m = mant;
  let e = exp2;
  const bits = m.toString(2).length;
  // Keep 53 significant bits, or fewer where the result is subnormal.
  const minExp = -1074;
  const shift = Math.max(bits - 53, minExp - e);
  if (shift > 0) {
    const rest = m & ((1n << BigInt(shift)) - 1n);
    const half = 1n << BigInt(shift - 1);
    m >>= BigInt(shift);
    if (rest > half || (rest === half && (m & 1n) === 1n)) m += 1n;
    e += shift;
  }
  let value = Number(m);
  // Scale in steps: 2 ** e alone overflows or underflows before the product does.
  while (e > 0) {
    const step = Math.min(e, 1000);
    value *= 2 ** step;
    e -= step;
  }
  while (e < 0) {
    const step = Math.max(e, -1000);
    value *= 2 ** step;
    e -= step;
  }
  return value;
}

/** strconv.ParseFloat(s, 64): the value, 'range' when it overflows, or undefined when it is not a float. */
function parseFloat64(s: string): number | 'range' | undefined {
  const neg = s.startsWith('-');
  const body = s.startsWith('-') || s.startsWith('+') ? s.slice(1) : s;
  if (body.includes('_') && !underscoreOK(s)) return undefined;
  const clean = body.replaceAll('_', '');
  let value: number;
  const hex = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(clean);
  if (hex !== null) {
    const intPart = hex[1] ?? '';
    const frac = hex[2] ?? '';
    if (intPart.length + frac.length === 0) return undefined;
    const mant = BigInt(`0x${intPart + frac || '0'}`);
    const exp = Number(hex[3]) - 4 * frac.length;
    value = scaleBinary(mant, exp);
  } else {
    if (!/^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(clean)) return undefined;
    value = Number(clean);
  }
  if (!Number.isFinite(value)) return 'range';
  return neg ? -value : value;
}

const NONE: Complex = { re: 0, im: 0 };

/** The types a float value fits: float64(int64(f)) == f and float64(uint64(f)) == f, on amd64. */
function fromFloat(f: number, into: { isInt: boolean; int: bigint; isUint: boolean; uint: bigint }): void {
  if (!Number.isInteger(f)) return;
  if (!into.isInt && f >= -(2 ** 63) && f < 2 ** 63) {
    into.isInt = true;
    into.int = BigInt(f);
  }
  if (!into.isUint && f >= 0 && f < 2 ** 64) {
    into.isUint = true;
    into.uint = BigInt(f);
  }
}

/** Go's simplifyComplex: a complex constant with no imaginary part is also a float, and maybe an integer. */
function simplifyComplex(c: Complex): NumberConst {
  const n = { isInt: false, int: 0n, isUint: false, uint: 0n, isFloat: c.im === 0, float: c.im === 0 ? c.re : 0, isComplex: true, complex: c };
  if (n.isFloat) fromFloat(c.re, n);
  return n;
}

/** fmt.Sscan of a complex literal `real±imag i`, as the lexer delivers them. */
function parseComplex(text: string): Complex | undefined {
  const m = /^([+-]?.*?[^eEpP])([+-].*)i$/.exec(text);
  if (m === null) return undefined;
  const re = parseFloat64(m[1]!);
  const im = parseFloat64(m[2]!);
  if (typeof re !== 'number' || typeof im !== 'number') return undefined;
  return { re, im };
}

/** parse.newNumber for a number token: what it fits, or the parse error's message. */
export function numberConst(text: string, complexToken: boolean): NumberConst | string {
  if (complexToken) {
    const c = parseComplex(text);
    return c === undefined ? `bad number syntax: ${JSON.stringify(text)}` : simplifyComplex(c);
  }
  // Imaginary constants can only be complex unless they are zero.
  if (text.endsWith('i')) {
    const f = parseFloat64(text.slice(0, -1));
    if (typeof f === 'number') return simplifyComplex({ re: 0, im: f });
  }
  const n = { isInt: false, int: 0n, isUint: false, uint: 0n, isFloat: false, float: 0, isComplex: false, complex: NONE };
  const u = parseUint(text);
  if (u !== undefined) {
    n.isUint = true;
    n.uint = u;
  }
  const i = parseInt64(text);
  if (i !== undefined) {
    n.isInt = true;
    n.int = i;
    // -0 does not parse as unsigned, but is zero all the same.
    if (i === 0n) n.isUint = true;
  }
  if (n.isInt) {
    n.isFloat = true;
    n.float = Number(n.int);
  } else if (n.isUint) {
    n.isFloat = true;
    n.float = Number(n.uint);
  } else {
    const f = parseFloat64(text);
    if (typeof f === 'number') {
      // Parsed as a float but looks like an integer: too large for int64.
      if (!/[.eEpP]/.test(text)) return `integer overflow: ${JSON.stringify(text)}`;
      n.isFloat = true;
      n.float = f;
      fromFloat(f, n);
    }
  }
  if (!n.isInt && !n.isUint && !n.isFloat) return `illegal number syntax: ${JSON.stringify(text)}`;
  return n;
}

/** A rune constant's NumberConst: an integer, unsigned integer and float at once. */
export function runeConst(rune: number): NumberConst {
  const b = BigInt(rune);
  return { isInt: true, int: b, isUint: true, uint: b, isFloat: true, float: rune, isComplex: false, complex: NONE };
}
