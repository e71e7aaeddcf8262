/**
 * Go strings are bytes; JavaScript strings are UTF-16 and cannot hold bytes
 * that are not UTF-8. A template can make such bytes (`slice` in the middle of
 * a character, `"\xff"`), and Go goes on computing with them: `len` counts
 * them, `printf "%q"` shows them as \xff, two halves joined make the
 * character again.
 *
 * So a byte that is not part of valid UTF-8 is held as the lone surrogate
 * U+DC80 + byte (U+DC80 to U+DCFF), which valid text never contains: the
 * Kubernetes API sends valid UTF-8 only. These functions convert between the
 * two views exactly; whatever needs Go's bytes (len, index, slice, %x, %q,
 * urlquery, ordering, the output) goes through them.
 */

import { isUtf8 } from 'node:buffer';

const ESCAPED = /[\udc80-\udcff]/;

/** Whether s holds any byte that is not UTF-8. */
export function hasRawBytes(s: string): boolean {
  return ESCAPED.test(s);
}

/** The Go bytes of a string. */
export function toBytes(s: string): Buffer {
  if (!hasRawBytes(s)) return Buffer.from(s, 'utf8');
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xdc80 && cp <= 0xdcff) out.push(cp - 0xdc00);
    else for (const b of Buffer.from(ch, 'utf8')) out.push(b);
  }
  return Buffer.from(out);
}

/** Length of the UTF-8 sequence a lead byte starts, and the range its second byte must be in (Go's utf8 acceptance ranges). */
function sequence(b0: number): [len: number, lo: number, hi: number] {
  if (b0 >= 0xc2 && b0 <= 0xdf) return [2, 0x80, 0xbf];
  if (b0 === 0xe0) return [3, 0xa0, 0xbf];
  if (b0 === 0xed) return [3, 0x80, 0x9f];
  if (b0 >= 0xe1 && b0 <= 0xef) return [3, 0x80, 0xbf];
  if (b0 === 0xf0) return [4, 0x90, 0xbf];
  if (b0 === 0xf4) return [4, 0x80, 0x8f];
  if (b0 >= 0xf1 && b0 <= 0xf3) return [4, 0x80, 0xbf];
  return [0, 0, 0];
}

/** A string from Go bytes: valid UTF-8 decoded, each other byte kept as its escape (as Go's DecodeRune steps one byte). */
export function fromBytes(b: Uint8Array): string {
  const buf = Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (isUtf8(buf)) return buf.toString('utf8');
  let out = '';
  let i = 0;
  while (i < buf.length) {
    const b0 = buf[i]!;
    if (b0 < 0x80) {
      out += String.fromCharCode(b0);
      i++;
      continue;
    }
    const [len, lo, hi] = sequence(b0);
    let ok = len > 0 && i + len <= buf.length && buf[i + 1]! >= lo && buf[i + 1]! <= hi;
    for (let k = 2; ok && k < len; k++) ok = buf[i + k]! >= 0x80 && buf[i + k]! <= 0xbf;
    if (ok) {
      out += buf.subarray(i, i + len).toString('utf8');
      i += len;
    } else {
      out += String.fromCharCode(0xdc00 + b0);
      i++;
    }
  }
  return out;
}

/** Bytes joined from pieces can form characters again: re-read them. */
export function normalize(s: string): string {
  return hasRawBytes(s) ? fromBytes(toBytes(s)) : s;
}

/** Length in bytes, which is what Go's len and index see. */
export function byteLength(s: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) return hasRawBytes(s) ? toBytes(s).length : Buffer.byteLength(s, 'utf8');
  }
  return s.length;
}

/** Go's string comparison: bytewise. */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(toBytes(a), toBytes(b));
}
