/**
 * The Go methods templates can call on the template data, reproduced: the
 * metav1.Object getters of ObjectMeta, time.Time's and metav1.Time's methods,
 * the String() methods Go's printing calls, DeepCopy and OpenAPIModelName.
 * A method not listed here is refused with an Unsupported error (see
 * docs/templates.md, "Documented limits"); its argument count and signature are still checked as Go
 * checks them (eval.ts), so those errors agree.
 */
import { GoError, Unsupported } from './errors.js';
import { objectMetaString } from './format.js';
import type { GoMethod, GoType } from './gotypes.js';
import { BYTES, STRING, typeNamed } from './gotypes.js';
import {
  ZERO_TIME,
  addDate,
  addDuration,
  compareTimes,
  durationString,
  fieldsOf,
  formatTime,
  goString,
  int64,
  isTime,
  isZeroTime,
  monthString,
  parseKubeTime,
  roundTime,
  strictRFC3339,
  subTimes,
  timeString,
  truncateTime,
  unixNano,
  weekdayString,
} from './time.js';
import type { TimeValue } from './time.js';
import { GoValue, NO_VALUE, intOf, isNil, readInt, readKey, readString } from './values.js';

/** recv: the receiver (a value of the method's type, or a pointer to it, nil or not); args: converted to the parameter types. */
type MethodImpl = (recv: GoValue, args: readonly GoValue[], m: GoMethod) => GoValue;

function result(m: GoMethod, v: unknown): GoValue {
  return new GoValue(m.results[0], v);
}

const NIL_DEREFERENCE = 'runtime error: invalid memory address or nil pointer dereference';

/** A time held by a metav1.Time or time.Time value: decoded JSON, a computed time, or the zero time. */
export function readTime(v: unknown): TimeValue {
  if (isTime(v)) return v;
  if (typeof v === 'string') return parseKubeTime(v);
  return ZERO_TIME;
}

function time(x: GoValue): TimeValue {
  return readTime(x.v);
}

const bytes = (s: string): GoValue => new GoValue(BYTES, Buffer.from(s, 'utf8'));

/** time.Time's value methods; metav1.Time has them too (promoted from its embedded time.Time). */
const TIME: Readonly<Record<string, MethodImpl>> = {
  Unix: (r, _, m) => result(m, intOf(time(r).sec)),
  UnixMilli: (r, _, m) => result(m, intOf(int64(time(r).sec * 1000n + BigInt(Math.floor(time(r).nsec / 1e6))))),
  UnixMicro: (r, _, m) => result(m, intOf(int64(time(r).sec * 1_000_000n + BigInt(Math.floor(time(r).nsec / 1e3))))),
  UnixNano: (r, _, m) => result(m, intOf(unixNano(time(r)))),
  Year: (r, _, m) => result(m, fieldsOf(time(r)).year),
  Month: (r, _, m) => result(m, fieldsOf(time(r)).month),
  Day: (r, _, m) => result(m, fieldsOf(time(r)).day),
  Hour: (r, _, m) => result(m, fieldsOf(time(r)).hour),
  Minute: (r, _, m) => result(m, fieldsOf(time(r)).minute),
  Second: (r, _, m) => result(m, fieldsOf(time(r)).second),
  Nanosecond: (r, _, m) => result(m, time(r).nsec),
  YearDay: (r, _, m) => result(m, fieldsOf(time(r)).yday),
  Weekday: (r, _, m) => result(m, fieldsOf(time(r)).weekday),
  IsZero: (r, _, m) => result(m, isZeroTime(time(r))),
  IsDST: (_r, _, m) => result(m, false),
  UTC: (r, _, m) => result(m, { ...time(r), loc: 'utc' }),
  Local: (r, _, m) => result(m, { ...time(r), loc: 'local' }),
  String: (r, _, m) => result(m, timeString(time(r))),
  GoString: (r, _, m) => result(m, goString(time(r))),
  Format: (r, [layout], m) => result(m, formatTime(time(r), readString(layout?.v))),
  Add: (r, [d], m) => result(m, addDuration(time(r), readInt(d?.v))),
  Truncate: (r, [d], m) => result(m, truncateTime(time(r), readInt(d?.v))),
  Round: (r, [d], m) => result(m, roundTime(time(r), readInt(d?.v))),
  AddDate: (r, [y, mo, d], m) => result(m, addDate(time(r), readInt(y?.v), readInt(mo?.v), readInt(d?.v))),
  Sub: (r, [u], m) => result(m, intOf(subTimes(time(r), time(u!)))),
  Compare: (r, [u], m) => result(m, compareTimes(time(r), time(u!))),
  After: (r, [u], m) => result(m, compareTimes(time(r), time(u!)) > 0),
  Before: (r, [u], m) => result(m, compareTimes(time(r), time(u!)) < 0),
  Equal: (r, [u], m) => result(m, compareTimes(time(r), time(u!)) === 0),
  In: (r, [loc], m) => {
    if (loc === undefined || isNil(loc)) throw new GoError('time: missing Location in call to Time.In');
    return result(m, { ...time(r), loc: loc.v === 'utc' ? 'utc' : 'local' });
  },
  Location: (r, _, m) => result(m, time(r).loc),
  MarshalJSON: (r) => bytes(`"${strictRFC3339(time(r), 'MarshalJSON')}"`),
  MarshalText: (r) => bytes(strictRFC3339(time(r), 'MarshalText')),
};

const RFC3339 = '2006-01-02T15:04:05Z07:00';

/** metav1.Time's own methods (apimachinery pkg/apis/meta/v1/time.go); the rest are time.Time's. */
const META_TIME: Readonly<Record<string, MethodImpl>> = {
  // Pointer receivers that accept nil.
  IsZero: (r, _, m) => result(m, isNil(r) || isZeroTime(time(r))),
  Before: (r, [u], m) => result(m, !isNil(r) && !isNil(u!) && compareTimes(time(r), time(u!)) < 0),
  Equal: (r, [u], m) => {
    if (isNil(r) || isNil(u!)) return result(m, isNil(r) && isNil(u!));
    return result(m, compareTimes(time(r), time(u!)) === 0);
  },
  MarshalJSON: (r) => {
    const t = time(r);
    return bytes(isZeroTime(t) ? 'null' : `"${formatTime({ ...t, loc: 'utc' }, RFC3339)}"`);
  },
  MarshalQueryParameter: (r, _, m) => {
    const t = time(r);
    return result(m, isZeroTime(t) ? '' : formatTime({ ...t, loc: 'utc' }, RFC3339));
  },
  ToUnstructured: (r) => {
    const t = time(r);
    return isZeroTime(t) ? NO_VALUE : new GoValue(STRING, formatTime({ ...t, loc: 'utc' }, RFC3339));
  },
  Rfc3339Copy: (r, _, m) => {
    // Format then Parse: whole seconds, in UTC; a year Parse refuses gives the zero time.
    const t = time(r);
    const year = fieldsOf(t).year;
    return result(m, year < 0 || year > 9999 ? ZERO_TIME : { sec: t.sec, nsec: 0, loc: 'utc' });
  },
  OpenAPISchemaFormat: (_r, _, m) => result(m, 'date-time'),
  OpenAPISchemaType: (_r, _, m) => result(m, ['string']),
};

/** String() of the named types with one (time.Month prints January). */
const STRINGERS: Readonly<Record<string, (v: unknown) => string>> = {
  'time.Month': (v) => monthString(readInt(v)),
  'time.Weekday': (v) => weekdayString(readInt(v)),
  'time.Duration': (v) => durationString(readInt(v)),
  // Local is UTC in spire-controller-manager's container, under the name "UTC"; a nil *Location is UTC too.
  'time.Location': () => 'UTC',
  'v1.ResourceName': (v) => readString(v),
};

/** intstr.IntOrString's String(); a nil pointer prints <nil>. */
function intOrString(r: GoValue): string {
  if (isNil(r)) return '<nil>';
  return typeof r.v === 'string' ? r.v : String(typeof r.v === 'number' ? r.v : 0);
}

/** The String() Go's printing calls for a value of type t (or a pointer to it), or undefined when t has none we reproduce. */
export function stringOf(owner: GoType, r: GoValue): string | undefined {
  const named = STRINGERS[owner.name];
  if (named !== undefined) return named(r.v);
  switch (owner.name) {
    case 'v1.Time':
    case 'time.Time':
      return timeString(time(r));
    case 'intstr.IntOrString':
      return intOrString(r);
    case 'v1.ObjectMeta':
      return isNil(r) ? 'nil' : objectMetaString(r.v);
  }
  // Kubernetes' generated String() methods start with a nil check.
  if (owner.kind === 'struct' && owner.codec === 'object' && owner.methods.has('String') && isNil(r)) return 'nil';
  return undefined;
}

/** A deep copy: a new pointer to an equal value. */
function deepCopy(r: GoValue, _args: readonly GoValue[], m: GoMethod): GoValue {
  if (isNil(r)) return result(m, null);
  return result(m, r.v === undefined ? {} : structuredClone(r.v));
}

/** The metav1.Object getters of ObjectMeta: `GetName` returns the field Name. */
function getter(owner: GoType, name: string): MethodImpl | undefined {
  const field = owner.kind === 'struct' && name.startsWith('Get') ? owner.fields.find((f) => f.name === name.slice(3)) : undefined;
  if (field === undefined) return undefined;
  return (r, _, m) => {
    if (isNil(r)) throw new GoError(NIL_DEREFERENCE);
    // A getter returns the field's pointer itself, so it keeps the field's address.
    return new GoValue(m.results[0], readKey(r.v, field.json), false, r.v, field.json);
  };
}

/** The implementation of method `name` of type `owner` (the type the method is declared on, or promoted to). */
export function methodImpl(owner: GoType, name: string): MethodImpl | undefined {
  if (owner.name === 'v1.Time') {
    const own = META_TIME[name] ?? TIME[name];
    if (own !== undefined) return own;
  }
  if (owner.name === 'time.Time') return TIME[name];
  if (owner.name === 'v1.ObjectMeta') {
    // GetObjectMeta returns the metav1.Object interface holding the *ObjectMeta itself.
    if (name === 'GetObjectMeta') return (r) => new GoValue(typeNamed('*v1.ObjectMeta'), r.v ?? null);
    const get = getter(owner, name);
    if (get !== undefined) return get;
  }
  if (name === 'String') {
    return (r, _, m) => {
      const s = stringOf(owner, r);
      if (s === undefined) throw new UnsupportedString(owner.name);
      return result(m, s);
    };
  }
  if (name === 'DeepCopy') return deepCopy;
  if (name === 'OpenAPIModelName' && owner.kind === 'struct' && owner.modelName !== '') return (_r, _, m) => result(m, owner.modelName);
  if (name === 'IntValue' && owner.name === 'intstr.IntOrString') {
    return (r, _, m) => {
      if (isNil(r)) throw new GoError(NIL_DEREFERENCE);
      if (typeof r.v !== 'string') return result(m, typeof r.v === 'number' ? r.v : 0);
      const n = /^[+-]?\d+$/.test(r.v) ? Number(r.v) : 0;
      return result(m, Number.isSafeInteger(n) ? n : 0);
    };
  }
  return undefined;
}

/** Go would print a value through a generated String() method spire-reconciler does not reproduce. */
export class UnsupportedString extends Unsupported {
  constructor(type: string) {
    super(`spire-reconciler does not reproduce the String() method of ${type}`);
  }
}
