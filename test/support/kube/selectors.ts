/**
 * Label and field selectors with the API server's grammar and semantics.
 * A malformed selector is a 400 BadRequest, as on a real cluster, so a
 * controller that builds a bad selector fails here too.
 */
import { badRequest } from './errors.js';
import { isPlainObject, type KubeObject } from './types.js';

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;
export type FieldMatcher = (obj: KubeObject) => boolean;

type Op = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

interface Requirement {
  key: string;
  op: Op;
  values: string[];
}

type Token =
  | { t: 'ident'; v: string }
  | { t: '!' | '=' | '==' | '!=' | '(' | ')' | ',' | 'in' | 'notin' | '<' | '>' }
  | { t: 'end' };

const SPECIAL = new Set(['(', ')', ',', '=', '!', '<', '>']);

function lex(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')' || c === ',' || c === '<' || c === '>') {
      out.push({ t: c });
      i++;
    } else if (c === '!') {
      if (s[i + 1] === '=') {
        out.push({ t: '!=' });
        i += 2;
      } else {
        out.push({ t: '!' });
        i++;
      }
    } else if (c === '=') {
      if (s[i + 1] === '=') {
        out.push({ t: '==' });
        i += 2;
      } else {
        out.push({ t: '=' });
        i++;
      }
    } else {
      let j = i;
      while (j < s.length && !SPECIAL.has(s[j]!) && !/\s/.test(s[j]!)) j++;
      const word = s.slice(i, j);
      out.push(word === 'in' || word === 'notin' ? { t: word } : { t: 'ident', v: word });
      i = j;
    }
  }
  out.push({ t: 'end' });
  return out;
}

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A label key: an optional DNS subdomain prefix and `/`, then a name of at most 63 characters. */
export function validKey(key: string): boolean {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) return false;
  return name.length > 0 && name.length <= 63 && NAME.test(name);
}

/** A label value: empty, or a name of at most 63 characters. */
export function validValue(v: string): boolean {
  return v === '' || (v.length <= 63 && NAME.test(v));
}

function parseError(selector: string, why: string): Error {
  return badRequest(`unable to parse requirement: ${why} (selector "${selector}")`);
}

function parseRequirements(selector: string): Requirement[] {
  const toks = lex(selector);
  let p = 0;
  const peek = (): Token => toks[p]!;
  const next = (): Token => toks[p++]!;
  const ident = (what: string): string => {
    const tok = next();
    if (tok.t !== 'ident') throw parseError(selector, `expected ${what}, found ${tok.t}`);
    return tok.v;
  };
  const reqs: Requirement[] = [];
  if (peek().t === 'end') return reqs;
  for (;;) {
    let req: Requirement;
    if (peek().t === '!') {
      next();
      req = { key: ident('a label key after !'), op: '!', values: [] };
    } else {
      const key = ident('a label key');
      const op = next();
      switch (op.t) {
        case 'end':
        case ',':
          p--;
          req = { key, op: 'exists', values: [] };
          break;
        case '=':
        case '==':
        case '!=': {
          // `a=` selects the empty value; the next token is then a separator.
          const v = peek().t === 'ident' ? ident('a value') : '';
          req = { key, op: op.t === '!=' ? '!=' : '=', values: [v] };
          break;
        }
        case 'in':
        case 'notin': {
          if (next().t !== '(') throw parseError(selector, `expected ( after ${op.t}`);
          const values: string[] = [];
          if (peek().t !== ')') {
            for (;;) {
              values.push(peek().t === 'ident' ? ident('a value') : '');
              const sep = next();
              if (sep.t === ')') break;
              if (sep.t !== ',') throw parseError(selector, `expected , or ) in a value set`);
            }
          } else {
            next();
          }
          if (values.length === 0) throw parseError(selector, `for 'in', 'notin' operators, values set can't be empty`);
          req = { key, op: op.t, values };
          break;
        }
        case '<':
        case '>': {
          const v = ident('an integer');
          if (!/^-?\d+$/.test(v)) throw parseError(selector, `for 'Gt', 'Lt' operators, the value must be an integer`);
          req = { key, op: op.t === '>' ? 'gt' : 'lt', values: [v] };
          break;
        }
        default:
          throw parseError(selector, `found '${op.t}', expected: in, notin, =, ==, !=, gt, lt`);
      }
    }
    if (!validKey(req.key)) throw parseError(selector, `invalid label key "${req.key}"`);
    if (req.op !== 'gt' && req.op !== 'lt') {
      for (const v of req.values) {
        if (!validValue(v)) throw parseError(selector, `invalid label value: "${v}"`);
      }
    }
    reqs.push(req);
    const sep = next();
    if (sep.t === 'end') return reqs;
    if (sep.t !== ',') throw parseError(selector, `found '${sep.t === 'ident' ? sep.v : sep.t}', expected: ',' or 'end of string'`);
  }
}

function matches(req: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = labels[req.key];
  switch (req.op) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case '=':
    case 'in':
      return has && req.values.includes(value!);
    case '!=':
    case 'notin':
      // As in Kubernetes: an object without the label matches `!=` and `notin`.
      return !has || !req.values.includes(value!);
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value!)) return false;
      const a = Number(value);
      const b = Number(req.values[0]);
      return req.op === 'gt' ? a > b : a < b;
    }
  }
}

/** Parses a labelSelector query value; undefined or empty selects everything. */
export function parseLabelSelector(selector: string | undefined): LabelMatcher | undefined {
  if (selector === undefined || selector.trim() === '') return undefined;
  const reqs = parseRequirements(selector);
  return (labels) => reqs.every((r) => matches(r, labels ?? {}));
}

/** Field selector terms split on unescaped commas; `\,` `\=` `\\` escape. */
function splitUnescaped(s: string, sep: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
    } else if (c === sep) {
      parts.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  parts.push(cur);
  return parts;
}

function unescapeValue(v: string, selector: string): string {
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c === '\\') {
      const n = v[i + 1];
      if (n !== '\\' && n !== ',' && n !== '=') throw badRequest(`invalid field selector: invalid escape sequence in "${selector}"`);
      out += n;
      i++;
    } else if (c === ',' || c === '=') {
      throw badRequest(`invalid field selector: unescaped "${c}" in "${selector}"`);
    } else {
      out += c;
    }
  }
  return out;
}

function splitTerm(term: string): [string, '=' | '!=', string] | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    if (term.startsWith('!=', i)) return [term.slice(0, i), '!=', term.slice(i + 2)];
    if (term.startsWith('==', i)) return [term.slice(0, i), '=', term.slice(i + 2)];
    if (term[i] === '=') return [term.slice(0, i), '=', term.slice(i + 1)];
  }
  return undefined;
}

/** The string a field selector compares against: missing fields are "", booleans "true"/"false". */
export function fieldValue(obj: KubeObject, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!isPlainObject(cur)) return '';
    cur = cur[part];
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'object' ? JSON.stringify(cur) : String(cur as string | number | boolean);
}

/**
 * Parses a fieldSelector; `supported` lists the field labels this resource
 * accepts (the API server rejects any other label with 400).
 */
export function parseFieldSelector(selector: string | undefined, supported: readonly string[]): FieldMatcher | undefined {
  if (selector === undefined || selector.trim() === '') return undefined;
  const terms = splitUnescaped(selector, ',').map((term) => {
    const split = splitTerm(term);
    if (!split) throw badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const [field, op, raw] = split;
    const name = field.trim();
    if (!supported.includes(name)) throw badRequest(`field label not supported: ${name}`);
    return { name, op, value: unescapeValue(raw, selector) };
  });
  return (obj) => terms.every((t) => (fieldValue(obj, t.name) === t.value) === (t.op === '='));
}
