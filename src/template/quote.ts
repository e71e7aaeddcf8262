/**
 * Go's strconv quoting rules, needed for string literals in templates, for
 * printf's %q and for the quoted fragments inside Go's error messages.
 */

import { fromBytes, hasRawBytes } from './bytes.js';
import { isPrint } from './chars.js';

export { isPrint };

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

function escapeRune(ch: string, quote: string, asciiOnly: boolean): string {
  if (ch === quote || ch === '\\') return `\\${ch}`;
  const cp = ch.codePointAt(0) ?? 0;
  // A byte that is not UTF-8 (see bytes.ts) is shown as Go shows it.
  if (cp >= 0xdc80 && cp <= 0xdcff) return `\\x${(cp - 0xdc00).toString(16)}`;
  if (asciiOnly ? cp < 0x80 && isPrint(ch) : isPrint(ch)) return ch;
  const simple = SIMPLE_ESCAPES[ch];
  if (simple !== undefined) return simple;
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp >= 0xd800 && cp <= 0xdfff) return '\\ufffd'; // a lone surrogate is not valid UTF-8
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\U${cp.toString(16).padStart(8, '0')}`;
}

/** strconv.Quote (or QuoteToASCII). */
export function quote(s: string, asciiOnly = false): string {
  let out = '"';
  for (const ch of s) out += escapeRune(ch, '"', asciiOnly);
  return `${out}"`;
}

/** strconv.QuoteRune (or QuoteRuneToASCII). */
export function quoteRune(cp: number, asciiOnly = false): string {
  const valid = cp >= 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
  return `'${escapeRune(String.fromCodePoint(valid ? cp : 0xfffd), "'", asciiOnly)}'`;
}

/** strconv.CanBackquote: whether %#q may use a raw string. */
export function canBackquote(s: string): boolean {
  for (const ch of s) {
    if (ch === '`' || ch === '\ufeff' || hasRawBytes(ch)) return false;
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x20 && ch !== '\t') return false;
    if (cp === 0x7f) return false;
  }
  return true;
}

const HEX = /^[0-9a-fA-F]$/;

/**
 * Decodes the body of a Go interpreted string or rune literal. Escapes can
 * produce single bytes (\xNN, \NNN), so the result is assembled as UTF-8 and
 * decoded at the end, as Go would print those bytes.
 * Returns undefined for malformed escapes (Go: "invalid syntax").
 */
function unquoteBody(body: string, quoteChar: '"' | "'"): string | undefined {
  const bytes: number[] = [];
  const pushUtf8 = (cp: number): void => {
    for (const b of Buffer.from(String.fromCodePoint(cp), 'utf8')) bytes.push(b);
  };
  for (let i = 0; i < body.length; ) {
    const ch = String.fromCodePoint(body.codePointAt(i) ?? 0);
    i += ch.length;
    if (ch === quoteChar) return undefined;
    if (ch !== '\\') {
      pushUtf8(ch.codePointAt(0) ?? 0);
      continue;
    }
    const e = body[i++];
    switch (e) {
      case 'a': bytes.push(7); break;
      case 'b': bytes.push(8); break;
      case 'f': bytes.push(12); break;
      case 'n': bytes.push(10); break;
      case 'r': bytes.push(13); break;
      case 't': bytes.push(9); break;
      case 'v': bytes.push(11); break;
      case '\\': bytes.push(92); break;
      case '"':
      case "'":
        if (e !== quoteChar) return undefined;
        bytes.push(e.charCodeAt(0));
        break;
      case 'x': {
        const hex = body.slice(i, i + 2);
        if (hex.length !== 2 || ![...hex].every((c) => HEX.test(c))) return undefined;
        bytes.push(parseInt(hex, 16));
        i += 2;
        break;
      }
      case 'u':
      case 'U': {
        const n = e === 'u' ? 4 : 8;
        const hex = body.slice(i, i + n);
        if (hex.length !== n || ![...hex].every((c) => HEX.test(c))) return undefined;
        const cp = parseInt(hex, 16);
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return undefined;
        pushUtf8(cp);
        i += n;
        break;
      }
      default: {
        if (e === undefined || e < '0' || e > '7') return undefined;
        const oct = body.slice(i - 1, i + 2);
        if (!/^[0-7]{3}$/.test(oct)) return undefined;
        const v = parseInt(oct, 8);
        if (v > 255) return undefined;
        bytes.push(v);
        i += 2;
      }
    }
  }
  return fromBytes(Buffer.from(bytes));
}

/** The value of a rune literal's body (between the quotes), or undefined if malformed. */
export function unquoteRune(body: string): number | undefined {
  const first = body.codePointAt(0);
  if (first === undefined) return undefined;
  if (first !== 0x5c) return String.fromCodePoint(first).length === body.length && first !== 0x27 ? first : undefined;
  const e = body[1];
  const simple: Readonly<Record<string, number>> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, "'": 39 };
  if (e !== undefined && simple[e] !== undefined && body.length === 2) return simple[e];
  const hex = /^\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))$/.exec(body);
  if (hex !== null) {
    const cp = parseInt(hex[1] ?? hex[2] ?? hex[3] ?? '', 16);
    return cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? undefined : cp;
  }
  const oct = /^\\([0-7]{3})$/.exec(body);
  if (oct !== null) {
    const v = parseInt(oct[1] ?? '', 8);
    return v > 255 ? undefined : v;
  }
  return undefined;
}

/** strconv.Unquote for the two string literal forms the lexer produces. */
export function unquoteString(literal: string): string | undefined {
  if (literal.startsWith('`')) {
    // Raw strings: carriage returns are discarded, as in Go source.
    return literal.slice(1, -1).replaceAll('\r', '');
  }
  return unquoteBody(literal.slice(1, -1), '"');
}
