/**
 * What reading a document costs in heap, estimated before it is read, so that
 * a huge one is refused with its size instead of exhausting the heap. The
 * cost model, for Node 24: the yaml library holds about 1.3 KB per
 * line while it reads a document (its token tree and its syntax tree), and a
 * long line about 4 bytes per byte; JSON.parse at most 32 bytes per value (an
 * array of empty objects; a `kubectl get -o json` list takes about 1.5 bytes
 * per byte of JSON).
 */
import { getHeapStatistics } from 'node:v8';

const YAML_BYTES_PER_LINE = 1300;
const YAML_BYTES_PER_BYTE = 4;
const JSON_BYTES_PER_VALUE = 32;

/** V8's young generation, which heap_size_limit counts: three semi-spaces of 64 MiB by default for Node 24 on 64-bit. */
const YOUNG_GENERATION = 192 * 1024 * 1024;

/**
 * The heap one document may take while it is read: half of what the old
 * generation has left (its limit is --max-old-space-size; V8 reports it with
 * the young generation added). About 70 MiB for the CLI under deploy/'s
 * --max-old-space-size=192, about 2 GiB with Node's default heap on a
 * machine with 16 GiB or more.
 */
export function documentBudget(): number {
  const { heap_size_limit: limit, used_heap_size: used } = getHeapStatistics();
  const old = Math.max(limit - YOUNG_GENERATION, limit / 4);
  return Math.max(0, Math.floor((old - used) / 2));
}

export function yamlCost(text: string): number {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return lines * YAML_BYTES_PER_LINE + Buffer.byteLength(text, 'utf8') * YAML_BYTES_PER_BYTE;
}

/**
 * How many values a JSON text holds, near enough: every `{`, `[`, `,`, `:` and
 * string outside strings. One pass, no allocation; on bytes or a string, so a
 * request body can be judged before it is even decoded.
 */
export function jsonValueCount(text: string | Uint8Array): number {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i]!;
  let n = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
      n++;
    } else if (c === 0x7b || c === 0x5b || c === 0x2c || c === 0x3a) {
      n++;
    }
  }
  return n;
}

export function jsonCost(text: string): number {
  return jsonValueCount(text) * JSON_BYTES_PER_VALUE + Buffer.byteLength(text, 'utf8');
}

export const MiB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
