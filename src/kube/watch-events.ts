/**
 * A watch stream's events: newline-delimited JSON, one `{type, object}` per
 * line, split from the bytes as they arrive (a chunk may end mid-line, or
 * carry many lines).
 */

import { errorMessage } from '../api/errors.js';

type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

const TYPES: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

export interface WatchEvent {
  type: WatchEventType;
  /** The object (a Status for ERROR). */
  object: { metadata?: { name?: string; namespace?: string; resourceVersion?: string } } & Record<string, unknown>;
}

/** Complete lines out of a byte stream, UTF-8 decoded across chunk edges. */
export class LineSplitter {
  private readonly decoder = new TextDecoder();
  private rest = '';

  /** The lines this chunk completes (without their newline); blank lines are left out. */
  push(chunk: Uint8Array): string[] {
    const text = this.rest + this.decoder.decode(chunk, { stream: true });
    const lines = text.split('\n');
    this.rest = lines.pop()!;
    return lines.filter((l) => l.trim() !== '');
  }

  /** What is left once the stream has ended: a last line without its newline, if any. */
  end(): string[] {
    const last = this.rest + this.decoder.decode();
    this.rest = '';
    return last.trim() === '' ? [] : [last];
  }
}

/** One line of a watch stream as an event, or an error naming the watch and what is wrong with the line. */
export function parseWatchEvent(line: string, watch: string): WatchEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    throw new Error(`watch ${watch}: an event that is not JSON (${errorMessage(err)}): ${excerpt(line)}`, { cause: err });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`watch ${watch}: an event that is not an object: ${excerpt(line)}`);
  const { type, object } = parsed as { type?: unknown; object?: unknown };
  if (typeof type !== 'string' || !TYPES.has(type)) throw new Error(`watch ${watch}: an event whose type is ${JSON.stringify(type)}, not one of ${[...TYPES].join(', ')}`);
  if (!object || typeof object !== 'object' || Array.isArray(object)) throw new Error(`watch ${watch}: a ${type} event without an object: ${excerpt(line)}`);
  const metadata = (object as { metadata?: unknown }).metadata;
  if (type !== 'ERROR') {
    if (!metadata || typeof metadata !== 'object') throw new Error(`watch ${watch}: a ${type} event whose object has no metadata: ${excerpt(line)}`);
    const { name, resourceVersion } = metadata as { name?: unknown; resourceVersion?: unknown };
    if (type !== 'BOOKMARK' && (typeof name !== 'string' || name === '')) throw new Error(`watch ${watch}: a ${type} event whose object has no metadata.name: ${excerpt(line)}`);
    if (resourceVersion !== undefined && typeof resourceVersion !== 'string') throw new Error(`watch ${watch}: a ${type} event whose metadata.resourceVersion is not a string: ${excerpt(line)}`);
  }
  return { type: type as WatchEventType, object: object as WatchEvent['object'] };
}

function excerpt(line: string): string {
  return line.length > 200 ? `${line.slice(0, 200)}...` : line;
}
