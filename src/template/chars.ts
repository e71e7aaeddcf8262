/**
 * Character classes as Go 1.26 decides them (Unicode 15.0.0, unicode.ts),
 * not as this Node's regular expressions would (a newer Unicode): what %q,
 * %#U and js escape, and which characters may form an identifier.
 */
import { DIGIT, LETTER, PRINT } from './unicode.js';

/** Whether cp lies in a table of sorted inclusive [lo, hi] pairs, flattened. */
function inTable(table: readonly number[], cp: number): boolean {
  let lo = 0;
  let hi = table.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < table[2 * mid]!) hi = mid - 1;
    else if (cp > table[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

/** unicode.IsPrint (and strconv.IsPrint): letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isPrintCode(cp: number): boolean {
  return cp < 0x80 ? cp >= 0x20 && cp < 0x7f : inTable(PRINT, cp);
}

export function isPrint(ch: string): boolean {
  return isPrintCode(ch.codePointAt(0) ?? 0);
}

/** unicode.IsLetter. */
export function isLetter(cp: number): boolean {
  return cp < 0x80 ? (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) : inTable(LETTER, cp);
}

/** unicode.IsDigit. */
export function isDigit(cp: number): boolean {
  return cp < 0x80 ? cp >= 0x30 && cp <= 0x39 : inTable(DIGIT, cp);
}
