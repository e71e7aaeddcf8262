/**
 * Go's time.Time, as far as templates can reach it: the timestamps of
 * Kubernetes objects (metav1.Time) and what their methods return.
 *
 * metav1.Time decodes RFC 3339 and converts to the process's local zone; in
 * spire-controller-manager's container (no zone database, no TZ) Go's Local
 * is UTC under the name "UTC", so every time here has offset 0 and the zone
 * name "UTC". What is still observable is whether a time is Local (decoded,
 * or .Local) or UTC (the zero value of an absent field, or .UTC): GoString
 * and equality tell them apart.
 */
import { GoError } from './errors.js';
import { bigOf } from './values.js';
import type { GoInt } from './values.js';

export interface TimeValue {
  /** Seconds since 1970-01-01T00:00:00Z. */
  readonly sec: bigint;
  /** Nanoseconds within the second, 0 to 999,999,999. */
  readonly nsec: number;
  readonly loc: 'local' | 'utc';
}

/** Seconds from 0001-01-01 (Go's zero time) to the Unix epoch. */
const ZERO_TO_UNIX = 62135596800n;
const NS = 1_000_000_000n;
const MAX_INT64 = 0x7fffffffffffffffn;
const MIN_INT64 = -0x8000000000000000n;

/** time.Time{}: the zero time, in UTC. */
export const ZERO_TIME: TimeValue = { sec: -ZERO_TO_UNIX, nsec: 0, loc: 'utc' };

export function isTime(v: unknown): v is TimeValue {
  return typeof v === 'object' && v !== null && 'sec' in v && 'nsec' in v;
}

// ---- calendar (proleptic Gregorian, days counted from 1970-01-01) ----

function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = floorDiv(y, 400);
  const yoe = y - era * 400;
  const doy = floorDiv(153 * (month > 2 ? month - 3 : month + 9) + 2, 5) + day - 1;
  const doe = yoe * 365 + floorDiv(yoe, 4) - floorDiv(yoe, 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): [year: number, month: number, day: number] {
  const z = days + 719468;
  const era = floorDiv(z, 146097);
  const doe = z - era * 146097;
  const yoe = floorDiv(doe - floorDiv(doe, 1460) + floorDiv(doe, 36524) - floorDiv(doe, 146096), 365);
  const doy = doe - (365 * yoe + floorDiv(yoe, 4) - floorDiv(yoe, 100));
  const mp = floorDiv(5 * doy + 2, 153);
  const day = doy - floorDiv(153 * mp + 2, 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

interface Fields {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly yday: number;
  /** 0 is Sunday. */
  readonly weekday: number;
}

function floorDivBig(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

export function fieldsOf(t: TimeValue): Fields {
  const days = floorDivBig(t.sec, 86400n);
  const secOfDay = Number(t.sec - days * 86400n);
  const d = Number(days);
  const [year, month, day] = civilFromDays(d);
  return {
    year,
    month,
    day,
    hour: Math.floor(secOfDay / 3600),
    minute: Math.floor(secOfDay / 60) % 60,
    second: secOfDay % 60,
    yday: d - daysFromCivil(year, 1, 1) + 1,
    weekday: (((d + 4) % 7) + 7) % 7,
  };
}

// ---- parsing ----

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:\d{2})$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** metav1.Time's UnmarshalJSON: time.Parse(time.RFC3339, s), then Local(). */
export function parseKubeTime(s: string): TimeValue {
  const m = RFC3339.exec(s);
  const fail = (): never => {
    throw new GoError(`parsing time ${JSON.stringify(s)} as "2006-01-02T15:04:05Z07:00": cannot parse`);
  };
  if (m === null) return fail();
  const [, y, mo, d, h, mi, se, frac = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(se);
  const monthDays = (DAYS_IN_MONTH[month - 1] ?? 0) + (month === 2 && isLeap(year) ? 1 : 0);
  if (month < 1 || month > 12 || day < 1 || day > monthDays || hour > 23 || minute > 59 || second > 59) fail();
  let offset = 0;
  if (zone !== 'Z') {
    const zh = Number(zone.slice(1, 3));
    const zm = Number(zone.slice(4, 6));
    if (zh > 23 || zm > 59) fail();
    offset = (zh * 60 + zm) * 60 * (zone.startsWith('-') ? -1 : 1);
  }
  const sec = BigInt(daysFromCivil(year, month, day)) * 86400n + BigInt(hour * 3600 + minute * 60 + second - offset);
  const nsec = frac === '' ? 0 : Number(frac.slice(0, 9).padEnd(9, '0'));
  return { sec, nsec, loc: 'local' };
}

// ---- arithmetic ----

export function isZeroTime(t: TimeValue): boolean {
  return t.sec === -ZERO_TO_UNIX && t.nsec === 0;
}

function withNanos(t: TimeValue, totalNs: bigint): TimeValue {
  const sec = floorDivBig(totalNs, NS);
  return { sec, nsec: Number(totalNs - sec * NS), loc: t.loc };
}

function nanos(t: TimeValue): bigint {
  return t.sec * NS + BigInt(t.nsec);
}

export function addDuration(t: TimeValue, d: GoInt): TimeValue {
  return withNanos(t, nanos(t) + bigOf(d));
}

export function compareTimes(a: TimeValue, b: TimeValue): number {
  if (a.sec !== b.sec) return a.sec < b.sec ? -1 : 1;
  return a.nsec === b.nsec ? 0 : a.nsec < b.nsec ? -1 : 1;
}

/** t.Sub(u), saturated to the int64 range as Go does. */
export function subTimes(t: TimeValue, u: TimeValue): bigint {
  const d = nanos(t) - nanos(u);
  return d > MAX_INT64 ? MAX_INT64 : d < MIN_INT64 ? MIN_INT64 : d;
}

/** time.Date's normalisation, as AddDate uses it. */
export function addDate(t: TimeValue, years: GoInt, months: GoInt, days: GoInt): TimeValue {
  const f = fieldsOf(t);
  let year = BigInt(f.year) + bigOf(years);
  let m = BigInt(f.month - 1) + bigOf(months);
  const carry = floorDivBig(m, 12n);
  year += carry;
  m -= carry * 12n;
  const start = BigInt(daysFromCivil(Number(year), Number(m) + 1, 1));
  const day = start + BigInt(f.day - 1) + bigOf(days);
  const sec = day * 86400n + BigInt(f.hour * 3600 + f.minute * 60 + f.second);
  return { sec, nsec: t.nsec, loc: t.loc };
}

/** The remainder of t since the zero time, modulo d (Go's div), d > 0. */
function remainder(t: TimeValue, d: bigint): bigint {
  const total = (t.sec + ZERO_TO_UNIX) * NS + BigInt(t.nsec);
  return ((total % d) + d) % d;
}

export function truncateTime(t: TimeValue, d: GoInt): TimeValue {
  const dd = bigOf(d);
  return dd <= 0n ? t : withNanos(t, nanos(t) - remainder(t, dd));
}

export function roundTime(t: TimeValue, d: GoInt): TimeValue {
  const dd = bigOf(d);
  if (dd <= 0n) return t;
  const r = remainder(t, dd);
  return withNanos(t, r + r < dd ? nanos(t) - r : nanos(t) + dd - r);
}

/** Wraps to int64 as Go's arithmetic does. */
export function int64(n: bigint): bigint {
  return BigInt.asIntN(64, n);
}

export function unixNano(t: TimeValue): bigint {
  return int64(nanos(t));
}

// ---- formatting ----

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export function monthString(n: GoInt): string {
  const m = Number(n);
  return m >= 1 && m <= 12 ? MONTHS[m - 1]! : `%!Month(${BigInt.asUintN(64, bigOf(n))})`;
}

export function weekdayString(n: GoInt): string {
  const d = Number(n);
  return d >= 0 && d <= 6 ? WEEKDAYS[d]! : `%!Weekday(${BigInt.asUintN(64, bigOf(n))})`;
}

/** Go's appendInt: zero-padded to width, a minus sign before the padding. */
function pad(n: number, width: number): string {
  const s = Math.abs(n).toString();
  return (n < 0 ? '-' : '') + (s.length < width ? '0'.repeat(width - s.length) + s : s);
}

type Std =
  | { kind: 'text' }
  | { kind: 'frac'; digits: number; trim: boolean; sep: string }
  | { kind: 'std'; code: string };

/** Go's nextStdChunk: the text before the next layout element, the element, and the rest. */
function nextChunk(layout: string): [prefix: string, std: Std, rest: string] {
  const at = (i: number, s: string): boolean => layout.startsWith(s, i);
  const lowerAt = (i: number): boolean => i < layout.length && layout[i]! >= 'a' && layout[i]! <= 'z';
  const digitAt = (i: number): boolean => i < layout.length && layout[i]! >= '0' && layout[i]! <= '9';
  for (let i = 0; i < layout.length; i++) {
    const chunk = (code: string, len: number): [string, Std, string] => [layout.slice(0, i), { kind: 'std', code }, layout.slice(i + len)];
    switch (layout[i]) {
      case 'J':
        if (at(i, 'Jan')) {
          if (at(i, 'January')) return chunk('January', 7);
          if (!lowerAt(i + 3)) return chunk('Jan', 3);
        }
        break;
      case 'M':
        if (at(i, 'Mon')) {
          if (at(i, 'Monday')) return chunk('Monday', 6);
          if (!lowerAt(i + 3)) return chunk('Mon', 3);
        }
        if (at(i, 'MST')) return chunk('MST', 3);
        break;
      case '0':
        if (i + 1 < layout.length && layout[i + 1]! >= '1' && layout[i + 1]! <= '6') return chunk(layout.slice(i, i + 2), 2);
        if (at(i, '002')) return chunk('002', 3);
        break;
      case '1':
        return at(i, '15') ? chunk('15', 2) : chunk('1', 1);
      case '2':
        return at(i, '2006') ? chunk('2006', 4) : chunk('2', 1);
      case '_':
        if (at(i, '_2')) {
          // _2006 is a literal _ followed by the long year.
          if (at(i + 1, '2006')) return [layout.slice(0, i + 1), { kind: 'std', code: '2006' }, layout.slice(i + 5)];
          return chunk('_2', 2);
        }
        if (at(i, '__2')) return chunk('__2', 3);
        break;
      case '3':
      case '4':
      case '5':
        return chunk(layout[i]!, 1);
      case 'P':
        if (at(i, 'PM')) return chunk('PM', 2);
        break;
      case 'p':
        if (at(i, 'pm')) return chunk('pm', 2);
        break;
      case '-':
        for (const z of ['-070000', '-07:00:00', '-0700', '-07:00', '-07']) if (at(i, z)) return chunk(z, z.length);
        break;
      case 'Z':
        for (const z of ['Z070000', 'Z07:00:00', 'Z0700', 'Z07:00', 'Z07']) if (at(i, z)) return chunk(z, z.length);
        break;
      case '.':
      case ',': {
        const ch = layout[i + 1];
        if (ch === '0' || ch === '9') {
          let j = i + 1;
          while (j < layout.length && layout[j] === ch) j++;
          if (!digitAt(j)) return [layout.slice(0, i), { kind: 'frac', digits: j - (i + 1), trim: ch === '9', sep: layout[i]! }, layout.slice(j)];
        }
        break;
      }
    }
  }
  return [layout, { kind: 'text' }, ''];
}

/** Time.Format(layout), for a time whose zone is UTC (offset 0, named "UTC"). */
export function formatTime(t: TimeValue, layout: string): string {
  const f = fieldsOf(t);
  let out = '';
  let rest = layout;
  while (rest !== '') {
    const [prefix, std, next] = nextChunk(rest);
    out += prefix;
    if (std.kind === 'text') break;
    rest = next;
    if (std.kind === 'frac') {
      if (std.trim && (std.digits === 0 || t.nsec === 0)) continue;
      let digits = pad(t.nsec, 9);
      if (std.digits < 9) digits = digits.slice(0, std.digits);
      if (std.trim) digits = digits.replace(/0+$/, '');
      out += digits === '' && std.trim ? '' : std.sep + digits;
      continue;
    }
    const hour12 = f.hour % 12 === 0 ? 12 : f.hour % 12;
    switch (std.code) {
      case '06':
        out += pad(Math.abs(f.year) % 100, 2);
        break;
      case '2006':
        out += pad(f.year, 4);
        break;
      case 'Jan':
        out += MONTHS[f.month - 1]!.slice(0, 3);
        break;
      case 'January':
        out += MONTHS[f.month - 1]!;
        break;
      case '1':
        out += f.month;
        break;
      case '01':
        out += pad(f.month, 2);
        break;
      case 'Mon':
        out += WEEKDAYS[f.weekday]!.slice(0, 3);
        break;
      case 'Monday':
        out += WEEKDAYS[f.weekday]!;
        break;
      case '2':
        out += f.day;
        break;
      case '_2':
        out += (f.day < 10 ? ' ' : '') + f.day;
        break;
      case '02':
        out += pad(f.day, 2);
        break;
      case '__2':
        out += (f.yday < 100 ? (f.yday < 10 ? '  ' : ' ') : '') + f.yday;
        break;
      case '002':
        out += pad(f.yday, 3);
        break;
      case '15':
        out += pad(f.hour, 2);
        break;
      case '3':
        out += hour12;
        break;
      case '03':
        out += pad(hour12, 2);
        break;
      case '4':
        out += f.minute;
        break;
      case '04':
        out += pad(f.minute, 2);
        break;
      case '5':
        out += f.second;
        break;
      case '05':
        out += pad(f.second, 2);
        break;
      case 'PM':
        out += f.hour >= 12 ? 'PM' : 'AM';
        break;
      case 'pm':
        out += f.hour >= 12 ? 'pm' : 'am';
        break;
      case 'MST':
        out += 'UTC';
        break;
      default:
        // Zone offsets: the offset is always 0; the Z forms print Z for it.
        if (std.code.startsWith('Z')) out += 'Z';
        else out += `+${std.code.slice(1).replace(/\d/g, '0')}`;
    }
  }
  return out;
}

/** Time.String(): the layout "2006-01-02 15:04:05.999999999 -0700 MST". */
export function timeString(t: TimeValue): string {
  return formatTime(t, '2006-01-02 15:04:05.999999999 -0700 MST');
}

export function goString(t: TimeValue): string {
  const f = fieldsOf(t);
  return `time.Date(${f.year}, time.${MONTHS[f.month - 1]!}, ${f.day}, ${f.hour}, ${f.minute}, ${f.second}, ${t.nsec}, ${t.loc === 'local' ? 'time.Local' : 'time.UTC'})`;
}

/** RFC 3339 with nanoseconds, for MarshalJSON and MarshalText, which refuse years outside 0 to 9999. */
export function strictRFC3339(t: TimeValue, method: string): string {
  const year = fieldsOf(t).year;
  if (year < 0 || year > 9999) throw new GoError(`Time.${method}: year outside of range [0,9999]`);
  return formatTime(t, '2006-01-02T15:04:05.999999999Z07:00');
}

/** time.Duration's String(): "1h2m3.5s", "1.5µs", "0s". */
export function durationString(n: GoInt): string {
  const d = bigOf(n);
  const neg = d < 0n;
  let u = neg ? -d : d;
  let out: string;
  // Trailing zeros of the fraction are left out, and the point with them.
  const frac = (prec: number): string => {
    let digits = '';
    for (let i = 0; i < prec; i++) {
      digits = String(u % 10n) + digits;
      u /= 10n;
    }
    digits = digits.replace(/0+$/, '');
    return digits === '' ? '' : `.${digits}`;
  };
  if (u < NS) {
    if (u === 0n) return '0s';
    if (u < 1000n) out = `${frac(0)}ns`;
    else if (u < 1_000_000n) out = `${frac(3)}µs`;
    else out = `${frac(6)}ms`;
    out = `${u}${out}`;
  } else {
    const f = frac(9);
    out = `${u % 60n}${f}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}
