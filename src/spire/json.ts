import type { ServiceDefinition } from '@grpc/proto-loader';
import { loadPackageDefinition } from './proto.js';
import type { EntryOut } from './types.js';
import { errorMessage } from '../api/errors.js';

type Check = (v: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const isBool: Check = (v) => typeof v === 'boolean';
const isInt32: Check = (v) => Number.isInteger(v);
// protojson writes int64 as a decimal string; accept numbers too.
const isInt64: Check = (v) => Number.isInteger(v) || (typeof v === 'string' && /^-?[0-9]+$/.test(v));
const isStrings: Check = (v) => Array.isArray(v) && v.every(isString);
const isId: Check = (v) => typeof v === 'object' && v !== null && isString((v as Record<string, unknown>).trust_domain ?? '') && isString((v as Record<string, unknown>).path ?? '');
const isSelectors: Check = (v) => Array.isArray(v) && v.every((s) => typeof s === 'object' && s !== null && isString(s.type) && isString(s.value));

const ENTRY_FIELDS: Record<string, [Check, string]> = {
  id: [isString, 'a string'],
  spiffe_id: [isId, 'an object with string trust_domain and path'],
  parent_id: [isId, 'an object with string trust_domain and path'],
  selectors: [isSelectors, 'a list of {type, value} strings'],
  x509_svid_ttl: [isInt32, 'an integer'],
  jwt_svid_ttl: [isInt32, 'an integer'],
  federates_with: [isStrings, 'a list of strings'],
  dns_names: [isStrings, 'a list of strings'],
  admin: [isBool, 'true or false'],
  downstream: [isBool, 'true or false'],
  store_svid: [isBool, 'true or false'],
  hint: [isString, 'a string'],
  expires_at: [isInt64, 'an integer or a decimal string'],
  revision_number: [isInt64, 'an integer or a decimal string'],
  created_at: [isInt64, 'an integer or a decimal string'],
};

/**
 * The codec coerces what it cannot read (a TTL of "an hour" becomes 0), so
 * the shape is checked first. Unknown fields pass: newer SPIRE releases may
 * print fields this version does not know. Throws naming the field.
 */
export function checkEntryShape(e: unknown): void {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new Error('must be an object');
  for (const [field, value] of Object.entries(e)) {
    const check = ENTRY_FIELDS[field];
    if (check && value !== null && !check[0](value)) throw new Error(`${field}: must be ${check[1]}, got ${JSON.stringify(value)}`);
  }
}

/**
 * Reads entries in the JSON that `spire-server entry show -output json`
 * prints (protojson: snake_case names, int64 as strings, default values
 * omitted), by passing them through the wire codec, so they come out exactly
 * as ListEntries would return them. Throws with the offending entry's index.
 */
export function entriesFromJson(doc: unknown): EntryOut[] {
  if (typeof doc !== 'object' || doc === null || !Array.isArray((doc as { entries?: unknown }).entries)) {
    throw new Error('expected an object with an "entries" array, as `spire-server entry show -output json` prints');
  }
  const list = (loadPackageDefinition()['spire.api.server.entry.v1.Entry'] as ServiceDefinition).ListEntries!;
  const entries = (doc as { entries: unknown[] }).entries;
  return entries.map((e, i) => {
    try {
      checkEntryShape(e);
      const decoded = list.responseDeserialize(list.responseSerialize({ entries: [e] })) as { entries: EntryOut[] };
      return decoded.entries[0] as EntryOut;
    } catch (err) {
      throw new Error(`entries[${i}]: ${errorMessage(err)}`, { cause: err });
    }
  });
}
