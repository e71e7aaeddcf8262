/**
 * The rules a SPIRE server applies to an entry (docs/spire-semantics.md §2.2
 * and §2.3: its API layer, its datastore, and the int32 fields of its
 * protocol), checked on our side before anything is sent, so that an object
 * `validate` and the webhook admit renders to entries SPIRE accepts. The
 * in-memory server applies the same rules from the server's side (the SPIFFE
 * ID and DNS name rules are shared through src/spiffe/).
 *
 * Each function returns the reason, worded for the field it names, or
 * undefined. Where SPIRE has its own wording it is kept.
 */
import { durationToSeconds } from '../api/index.js';
import { dnsNameRefusal } from '../spiffe/index.js';
import type { EntrySpec, Selector } from './model.js';

/** SPIRE's API layer refuses a longer hint (A9). */
const MAX_HINT_BYTES = 1024;
/** x509_svid_ttl and jwt_svid_ttl are int32 on the wire: a larger value wraps, and SPIRE then refuses a negative TTL. */
const MAX_TTL_SECONDS = 2 ** 31 - 1;

/**
 * A TTL field as SPIRE will take it: whole seconds (truncated, as upstream
 * sends them), between 0 and MAX_TTL_SECONDS. Throws with the reason.
 */
export function ttlSeconds(input: string | undefined): number {
  const seconds = durationToSeconds(input);
  if (seconds < 0) throw new Error(`"${input}" is negative; SPIRE refuses a negative TTL`);
  if (seconds > MAX_TTL_SECONDS) {
    throw new Error(`"${input}" is ${seconds} seconds; SPIRE takes at most ${MAX_TTL_SECONDS} (a 32-bit integer: a larger value wraps around and SPIRE refuses the entry)`);
  }
  // -0.5s truncates to -0, which SPIRE receives as 0 (its default TTL).
  return seconds === 0 ? 0 : seconds;
}

export const NUL_RULE = 'contains a NUL character, which SPIRE cannot store (PostgreSQL refuses it)';

/** SPIRE's PostgreSQL datastore cannot store a NUL character in any text column. */
function nulProblem(value: string): string | undefined {
  return value.includes('\u0000') ? NUL_RULE : undefined;
}

export function hintProblem(hint: string): string | undefined {
  const bytes = Buffer.byteLength(hint, 'utf8');
  if (bytes > MAX_HINT_BYTES) return `is ${bytes} bytes; SPIRE takes at most ${MAX_HINT_BYTES}`;
  return nulProblem(hint);
}

/** Characters a DNS name may hold (with a leading `*.`): what every SPIRE release accepts. */
export const DNS_CHARS = /^[A-Za-z0-9._*-]*$/;

/** What dnsNameRefused says of a name: the whole message, and the rule it breaks worded without the name. */
interface DnsNameRefused {
  message: string;
  rule: string;
}

const DNS_CHARS_RULE = 'letters, digits, "-", "_" and "." only';

/**
 * SPIRE's DNS name rules (x509util.ValidateLabel), with SPIRE's reason on one
 * line; and beyond them, no character outside letters, digits, `-`, `_` and
 * `.`. Current SPIRE releases (built with Go 1.26 or older) let controls,
 * spaces and punctuation through; releases built with newer Go refuse them
 * (docs/spire-semantics.md §1.6), and no certificate should carry them.
 */
export function dnsNameRefused(name: string): DnsNameRefused | undefined {
  const quoted = JSON.stringify(name);
  const spire = dnsNameRefusal(name);
  if (spire !== undefined) {
    if (spire.label === undefined) return { message: `invalid DNS name ${quoted}: ${spire.cause}`, rule: spire.cause };
    const rule = `${spire.cause}: idna: invalid label`;
    return { message: `invalid DNS name ${quoted}: ${rule} "${spire.label}"`, rule };
  }
  if (!DNS_CHARS.test(name)) {
    const bad = [...name].find((c) => !DNS_CHARS.test(c))!;
    return { message: `invalid DNS name ${quoted}: character ${JSON.stringify(bad)} is not allowed (${DNS_CHARS_RULE})`, rule: `a character is not allowed (${DNS_CHARS_RULE})` };
  }
  return undefined;
}

/** dnsNameRefused's message alone. */
export function dnsNameCheck(name: string): string | undefined {
  return dnsNameRefused(name)?.message;
}

const formatSelector = (s: Selector): string => `${s.type}:${s.value}`;

/** A selector SPIRE would refuse beyond what parseSelector checks. */
export function selectorValueProblem(s: Selector): string | undefined {
  const nul = nulProblem(s.type) ?? nulProblem(s.value);
  return nul === undefined ? undefined : `selector ${JSON.stringify(formatSelector(s))} ${nul}`;
}

/** The text of the first selector listed twice, or undefined. */
export function selectorListedTwice(selectors: readonly Selector[]): string | undefined {
  const seen = new Set<string>();
  for (const s of selectors) {
    const text = formatSelector(s);
    if (seen.has(text)) return text;
    seen.add(text);
  }
  return undefined;
}

export const DUPLICATE_SELECTOR_RULE = 'SPIRE refuses an entry that lists a selector twice';

/** SPIRE stores selectors in a table keyed by entry, type and value: the same selector twice fails the create. */
export function duplicateSelector(selectors: readonly Selector[]): string | undefined {
  const text = selectorListedTwice(selectors);
  return text === undefined ? undefined : `duplicate selector ${JSON.stringify(text)}: ${DUPLICATE_SELECTOR_RULE}`;
}

/** D2: SPIRE refuses storeSVID on an entry whose selectors are of more than one type. */
export function storeSvidProblem(storeSvid: boolean, selectors: readonly Selector[]): string | undefined {
  if (!storeSvid || new Set(selectors.map((s) => s.type)).size <= 1) return undefined;
  return 'storeSVID needs selectors of one type, as SPIRE requires (these have several)';
}

/**
 * SPIRE takes entries in calls of up to 200 (src/spire/client.ts), and a gRPC
 * server refuses a message over 4 MiB by default: one entry over 20 KiB could
 * make the whole call fail, every entry in it with it. Real entries are a few
 * hundred bytes; 16 KiB leaves room for hundreds of DNS names.
 */
export const MAX_ENTRY_BYTES = 16 * 1024;

/** The bytes an entry's strings take on the wire, near enough (each field's framing counted as 8 bytes). */
export function entryBytes(spec: EntrySpec): number {
  let n = Buffer.byteLength(spec.spiffeId) + Buffer.byteLength(spec.parentId) + Buffer.byteLength(spec.hint) + 64;
  for (const s of spec.selectors) n += Buffer.byteLength(s.type) + Buffer.byteLength(s.value) + 8;
  for (const d of spec.dnsNames) n += d.length + 8;
  for (const f of spec.federatesWith) n += f.length + 8;
  return n;
}

/** Why an entry of this many bytes is not sent, worded without the size. */
export const ENTRY_SIZE_RULE = `over the limit of ${MAX_ENTRY_BYTES} bytes (entries go to SPIRE 200 to a call, and a call over 4 MiB fails whole)`;

export function entrySizeProblem(spec: EntrySpec): string | undefined {
  const bytes = entryBytes(spec);
  if (bytes <= MAX_ENTRY_BYTES) return undefined;
  return `the entry would be ${bytes} bytes, ${ENTRY_SIZE_RULE}`;
}
