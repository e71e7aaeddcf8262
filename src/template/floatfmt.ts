/**
 * strconv.FormatFloat(v, fmt, prec, 64): Go's float formatting, exactly.
 *
 * Shortest forms (prec -1) use JavaScript's shortest round-trip digits, which
 * are Go's. A given precision rounds the exact binary value half to even, as
 * Go does (JavaScript's toFixed rounds exact halves up: 2.5 -> "3", Go "2").
 */

/** Significant decimal digits, without trailing zeros ('' for zero), and the decimal point's position. */
interface Digits {
  readonly d: string;
  readonly dp: number;
}

const ZERO: Digits = { d: '', dp: 0 };

function trimmed(d: string, dp: number): Digits {
  const t = d.replace(/0+$/, '');
  return t === '' ? ZERO : { d: t, dp };
}

/** The float's bits: sign, mantissa with the implicit bit, and exponent, so that |v| = mant * 2^(exp - 52). */
function decompose(v: number): { neg: boolean; mant: bigint; exp: number; denorm: boolean } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  const bits = view.getBigUint64(0);
  const neg = bits >> 63n === 1n;
  let exp = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  let denorm = false;
  if (exp === 0) {
    exp = 1;
    denorm = true;
  } else {
    mant |= 1n << 52n;
  }
  return { neg, mant, exp: exp - 1023, denorm };
}

/** The exact decimal expansion of |v| (every binary fraction has one). */
function exactDigits(v: number): Digits {
  const { mant, exp } = decompose(v);
  if (mant === 0n) return ZERO;
  const shift = exp - 52;
  if (shift >= 0) {
    const s = (mant << BigInt(shift)).toString();
    return trimmed(s, s.length);
  }
  const s = (mant * 5n ** BigInt(-shift)).toString();
  return trimmed(s, s.length + shift);
}

/** Rounds to `keep` leading digits, exact halves to even. */
function roundDigits(x: Digits, keep: number): Digits {
  if (keep >= x.d.length) return x;
  if (keep < 0) return ZERO;
  const next = x.d.charCodeAt(keep) - 48;
  const rest = x.d.length > keep + 1;
  const prevOdd = keep > 0 && (x.d.charCodeAt(keep - 1) - 48) % 2 === 1;
  const up = next > 5 || (next === 5 && (rest || prevOdd));
  if (!up) return trimmed(x.d.slice(0, keep), x.dp);
  // Add one at the last kept digit; a carry out of the first digit moves the point.
  const digits = x.d.slice(0, keep).split('').map(Number);
  let i = keep - 1;
  while (i >= 0 && digits[i] === 9) digits[i--] = 0;
  if (i < 0) return { d: '1', dp: x.dp + 1 };
  digits[i]! += 1;
  return trimmed(digits.join(''), x.dp);
}

function shortestDigits(a: number): Digits {
  const [mantissa = '0', e = '0'] = a.toExponential().split('e');
  return trimmed(mantissa.replace('.', ''), Number(e) + 1);
}

function fmtE(x: Digits, prec: number, e: string): string {
  let s = x.d[0] ?? '0';
  if (prec > 0) s += `.${x.d.slice(1, prec + 1).padEnd(prec, '0')}`;
  const exp = x.d === '' ? 0 : x.dp - 1;
  const abs = Math.abs(exp);
  return `${s}${e}${exp < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
}

function fmtF(x: Digits, prec: number): string {
  let s = x.dp > 0 ? x.d.slice(0, x.dp).padEnd(x.dp, '0') : '0';
  if (prec > 0) {
    s += '.';
    for (let i = 0; i < prec; i++) {
      const j = x.dp + i;
      s += j >= 0 && j < x.d.length ? x.d[j] : '0';
    }
  }
  return s;
}

/** Go's fmtB: decimal mantissa, 'p', binary exponent. */
function fmtB(v: number): string {
  const { neg, mant, exp } = decompose(v);
  const e = exp - 52;
  return `${neg ? '-' : ''}${mant}p${e >= 0 ? '+' : ''}${e}`;
}

/** Go's fmtX: hexadecimal mantissa 0x1.8p+01, rounded to prec hex digits (half to even) when 0 <= prec < 15. */
function fmtX(v: number, prec: number, upper: boolean): string {
  const { neg } = decompose(v);
  let { mant, exp } = decompose(v);
  if (mant === 0n) exp = 0;
  const ONE = 1n << 60n;
  mant <<= 8n;
  while (mant !== 0n && (mant & ONE) === 0n) {
    mant <<= 1n;
    exp--;
  }
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4);
    const extra = (mant << shift) & (ONE - 1n);
    mant >>= 60n - shift;
    if ((extra | (mant & 1n)) > 1n << 59n) mant++;
    mant <<= 60n - shift;
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n;
      exp++;
    }
  }
  const mask = (1n << 64n) - 1n;
  let s = `${neg ? '-' : ''}0${upper ? 'X' : 'x'}${(mant >> 60n) & 1n}`;
  mant = (mant << 4n) & mask;
  const hex = (n: bigint): string => {
    const h = n.toString(16);
    return upper ? h.toUpperCase() : h;
  };
  if (prec < 0 && mant !== 0n) {
    s += '.';
    while (mant !== 0n) {
      s += hex((mant >> 60n) & 15n);
      mant = (mant << 4n) & mask;
    }
  } else if (prec > 0) {
    s += '.';
    for (let i = 0; i < prec; i++) {
      s += hex((mant >> 60n) & 15n);
      mant = (mant << 4n) & mask;
    }
  }
  const abs = Math.abs(exp);
  return `${s}${upper ? 'P' : 'p'}${exp < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
}

/** strconv.FormatFloat(v, verb, prec, 64) for the verbs b, e, E, f, g, G, x and X; prec -1 is "shortest". */
export function formatFloat(v: number, verb: string, prec: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (verb === 'b') return fmtB(v);
  if (verb === 'x' || verb === 'X') return fmtX(v, prec, verb === 'X');
  const neg = v < 0 || Object.is(v, -0);
  const a = Math.abs(v);
  const shortest = prec < 0;
  let body: string;
  switch (verb) {
    case 'e':
    case 'E': {
      const x = shortest ? shortestDigits(a) : roundDigits(exactDigits(a), prec + 1);
      body = fmtE(x, shortest ? Math.max(x.d.length - 1, 0) : prec, verb);
      break;
    }
    case 'f':
    case 'F': {
      let x: Digits;
      if (shortest) x = a === 0 ? ZERO : shortestDigits(a);
      else {
        const exact = exactDigits(a);
        x = roundDigits(exact, exact.dp + prec);
      }
      body = fmtF(x, shortest ? Math.max(x.d.length - x.dp, 0) : prec);
      break;
    }
    default: {
      // g and G, following strconv's choice between the e and f forms.
      let p = prec === 0 ? 1 : prec;
      const x = a === 0 ? ZERO : shortest ? shortestDigits(a) : roundDigits(exactDigits(a), p);
      if (shortest) p = x.d.length;
      let eprec = p;
      if (eprec > x.d.length && x.d.length >= x.dp) eprec = x.d.length;
      if (shortest) eprec = 6;
      const exp = x.dp - 1;
      if (exp < -4 || exp >= eprec) {
        body = fmtE(x, (p > x.d.length ? x.d.length : p) - 1, verb === 'G' ? 'E' : 'e');
      } else {
        body = fmtF(x, Math.max((p > x.dp ? x.d.length : p) - x.dp, 0));
      }
    }
  }
  return neg ? `-${body}` : body;
}
