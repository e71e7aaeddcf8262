/**
 * The readers of the config file's values. A reader takes the value YAML
 * gave and the field's path, and returns the value checked, or undefined
 * after saying why in `problems`; every problem names its field, so a file is
 * reported in full at once.
 */
import { parseGoDuration } from './duration.js';
import { errorMessage } from './errors.js';
import { labelSetProblems } from './labels.js';
import { globLikeWarning, IgnoredNamespaces, IgnoreNamespacesError } from './namespaces.js';
import type { CachedNamespace } from './cache-scope.js';
import { nearestName } from './suggest.js';

export class Problems {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
}

export type Reader<T> = (value: unknown, field: string, problems: Problems) => T | undefined;

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'list' : typeof v);

export const text: Reader<string> = (v, field, p) => {
  if (typeof v === 'string') return v;
  // `field:` with no value: Go's YAML reads it as "", so it is unset, and reported once (as required, if it is).
  if (v === null) return undefined;
  p.errors.push(`${field}: must be a string, got ${kindOf(v)}`);
  return undefined;
};

export const trueOrFalse: Reader<boolean> = (v, field, p) => {
  if (typeof v === 'boolean') return v;
  p.errors.push(`${field}: must be true or false, got ${kindOf(v)}`);
  return undefined;
};

export const integer: Reader<number> = (v, field, p) => {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  p.errors.push(`${field}: must be an integer, got ${kindOf(v)}`);
  return undefined;
};

export function oneOf<const V extends readonly string[]>(values: V): Reader<V[number]> {
  return (v, field, p) => {
    if (typeof v === 'string' && values.includes(v)) return v;
    p.errors.push(`${field}: must be one of ${values.join(', ')}, got ${JSON.stringify(v)}`);
    return undefined;
  };
}

/** `""` as itself (unset, for settings whose empty value means "decide elsewhere"), anything else as `read` reads it. */
export function emptyOr<T>(read: Reader<T>): Reader<T | ''> {
  return (v, field, p) => (v === '' ? '' : read(v, field, p));
}

/** A string read in lowercase, so case does not matter. */
export function lowercase<T>(read: Reader<T>): Reader<T> {
  return (v, field, p) => read(typeof v === 'string' ? v.toLowerCase() : v, field, p);
}

/** A string that, when given, must be this one. */
export function exactly(expected: string): Reader<string> {
  return (v, field, p) => {
    const got = text(v, field, p);
    if (got === undefined || got === expected) return got;
    p.errors.push(`${field}: must be ${expected}, got "${got}"`);
    return undefined;
  };
}

/**
 * A Go duration string ("10s", "1m30s") or integer nanoseconds, as upstream
 * writes durations (its gcInterval takes nanoseconds only). Returns milliseconds.
 */
export const duration: Reader<number> = (v, field, p) => {
  if (typeof v === 'number' && Number.isInteger(v)) return v / 1e6;
  if (typeof v === 'string') {
    try {
      return parseGoDuration(v) / 1e6;
    } catch (err) {
      p.errors.push(`${field}: ${errorMessage(err)}`);
      return undefined;
    }
  }
  p.errors.push(`${field}: must be a duration ("10s", "1m30s") or integer nanoseconds, got ${kindOf(v)}`);
  return undefined;
};

export const textList: Reader<string[]> = (v, field, p) => {
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  p.errors.push(`${field}: must be a list of strings`);
  return undefined;
};

/**
 * ignoreNamespaces: Go regular expressions, compiled as upstream compiles
 * them; one that looks like a glob is warned about, saying what it matches.
 */
export const namespacePatterns: Reader<string[]> = (v, field, p) => {
  const patterns = textList(v, field, p);
  if (patterns === undefined) return undefined;
  patterns.forEach((pattern, i) => {
    const warning = globLikeWarning(pattern);
    if (warning) p.warnings.push(`${field}[${i}]: ${warning}`);
  });
  try {
    IgnoredNamespaces.compile(patterns);
  } catch (err) {
    if (!(err instanceof IgnoreNamespacesError)) throw err;
    for (const problem of err.problems) p.errors.push(`${field}[${problem.index}]: ${problem.message}`);
  }
  return patterns;
};

/** A map of label keys to values (a matchLabels), each checked as Kubernetes checks labels. */
export const labelSet: Reader<Record<string, string>> = (v, field, p) => {
  if (v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) {
    p.errors.push(`${field}: must be a mapping of label keys to values, got ${kindOf(v)}`);
    return undefined;
  }
  const problems = labelSetProblems(v as Record<string, unknown>);
  for (const problem of problems) p.errors.push(`${field}${problem.field}: ${problem.message}`);
  return problems.length > 0 ? undefined : (v as Record<string, string>);
};

/** A map of field paths to values (upstream's fieldSelectors). */
export const stringMap: Reader<Record<string, string>> = (v, field, p) => {
  if (v === null) return {};
  if (typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string')) return v as Record<string, string>;
  p.errors.push(`${field}: must be a mapping of strings to strings`);
  return undefined;
};

const namespaceSelectors = mapping({ labelSelectors: labelSet, fieldSelectors: stringMap });

/** `cacheNamespaces`: namespace names, each with optional label and field selectors (a null entry selects all). */
export const cacheNamespaces: Reader<CachedNamespace[]> = (v, field, p) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    p.errors.push(`${field}: must be a mapping of namespace names to {labelSelectors, fieldSelectors}, got ${kindOf(v)}`);
    return undefined;
  }
  const out: CachedNamespace[] = [];
  for (const [namespace, opts] of Object.entries(v)) {
    const read = (opts === null ? {} : namespaceSelectors(opts, `${field}.${namespace}`, p)) as { labelSelectors?: Record<string, string>; fieldSelectors?: Record<string, string> } | undefined;
    if (!read) continue;
    out.push({
      namespace,
      // An empty selector selects everything, as none does.
      labelSelector: read.labelSelectors && Object.keys(read.labelSelectors).length > 0 ? read.labelSelectors : undefined,
      fieldSelector: read.fieldSelectors && Object.keys(read.fieldSelectors).length > 0 ? read.fieldSelectors : undefined,
    });
  }
  return out;
};

/** Any value, unread (the document's metadata). */
export const anything: Reader<unknown> = (v) => v;

/**
 * A mapping whose keys each have a reader. An unknown key is a warning that
 * names the nearest known one, since it is most often a typo.
 */
export function mapping(fields: Readonly<Record<string, Reader<unknown>>>): Reader<Record<string, unknown>> {
  return (v, field, p) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      p.errors.push(field ? `${field}: must be a mapping, got ${kindOf(v)}` : `the document must be a mapping, got ${kindOf(v)}`);
      return undefined;
    }
    const out: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(v)) {
      const path = field ? `${field}.${k}` : k;
      const read = fields[k];
      if (!read) {
        const near = nearestName(k, Object.keys(fields));
        p.warnings.push(`${path}: unknown field, ignored (${near ? `did you mean ${near}?` : 'a typo?'})`);
        continue;
      }
      const got = read(val, path, p);
      if (got !== undefined) out[k] = got;
    }
    return out;
  };
}
