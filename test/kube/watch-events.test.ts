import { describe, expect, it } from 'vitest';
import { LineSplitter, parseWatchEvent } from '../../src/kube/watch-events.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('a watch stream is split into lines as its bytes arrive', () => {
  it('keeps a line cut across chunks, and a multi-byte character cut across chunks, whole', () => {
    const lines = new LineSplitter();
    const all = bytes('{"type":"ADDED","object":{"metadata":{"name":"caf\u00e9"}}}\n{"type":"BOOKMARK"');
    const cut = all.indexOf(0xc3) + 1; // inside the two bytes of é
    expect(lines.push(all.slice(0, cut))).toEqual([]);
    expect(lines.push(all.slice(cut))).toEqual(['{"type":"ADDED","object":{"metadata":{"name":"café"}}}']);
    expect(lines.push(bytes(',"object":{"metadata":{"resourceVersion":"9"}}}\n\n'))).toEqual(['{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}}']);
    expect(lines.end()).toEqual([]);
  });

  it('hands over a last line the stream ended without a newline', () => {
    const lines = new LineSplitter();
    expect(lines.push(bytes('{"a":1}\n{"b":2}'))).toEqual(['{"a":1}']);
    expect(lines.end()).toEqual(['{"b":2}']);
  });
});

describe('a watch event line is read, or refused naming the watch and what is wrong', () => {
  it('reads the five event types', () => {
    expect(parseWatchEvent('{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"5"}}}', '/api/v1/pods')).toEqual({
      type: 'MODIFIED',
      object: { metadata: { name: 'a', resourceVersion: '5' } },
    });
    expect(parseWatchEvent('{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"7"}}}', 'w').type).toBe('BOOKMARK');
    expect(parseWatchEvent('{"type":"ERROR","object":{"kind":"Status","code":410}}', 'w').object).toEqual({ kind: 'Status', code: 410 });
  });

  it.each([
    ['not JSON', '{"type":', 'watch /api/v1/pods: an event that is not JSON'],
    ['an array', '[1]', 'watch /api/v1/pods: an event that is not an object'],
    ['an unknown type', '{"type":"SYNC","object":{}}', 'watch /api/v1/pods: an event whose type is "SYNC", not one of ADDED, MODIFIED, DELETED, BOOKMARK, ERROR'],
    ['no object', '{"type":"ADDED"}', 'watch /api/v1/pods: a ADDED event without an object'],
    ['no metadata', '{"type":"DELETED","object":{"kind":"Pod"}}', 'watch /api/v1/pods: a DELETED event whose object has no metadata'],
    ['no name', '{"type":"ADDED","object":{"metadata":{"namespace":"x"}}}', 'watch /api/v1/pods: a ADDED event whose object has no metadata.name'],
    ['a numeric resourceVersion', '{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":9}}}', 'watch /api/v1/pods: a BOOKMARK event whose metadata.resourceVersion is not a string'],
  ])('refuses %s', (_what, line, message) => {
    expect(() => parseWatchEvent(line, '/api/v1/pods')).toThrow(message);
  });
});
