/**
 * How deep a parsed document may nest. Every Kubernetes object is far
 * shallower (a Pod with managedFields reaches about 15 levels); a document of
 * 10,000 nested objects made every recursive step after the parse (schema
 * validation, copying, printing) overflow the stack. Both walks here are
 * iterative, so they cannot overflow themselves.
 */
import { appendField } from './problem.js';

export const MAX_NESTING = 100;

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | undefined;
  key: string | number | undefined;
}

function pathOf(frame: Frame): string {
  const keys: (string | number)[] = [];
  for (let f: Frame | undefined = frame; f?.key !== undefined; f = f.parent) keys.push(f.key);
  let field: string | undefined;
  // The first levels are enough to find the place; a path of a hundred keys is not.
  for (const key of keys.reverse().slice(0, 8)) field = appendField(field, key);
  return keys.length > 8 ? `${field ?? ''}...` : (field ?? '');
}

/** The field where a JSON-like value nests deeper than `max`, and the message; undefined when it does not. */
export function nestingProblem(value: unknown, max = MAX_NESTING): { field: string; message: string } | undefined {
  const stack: Frame[] = [{ value, depth: 0, parent: undefined, key: undefined }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const v = frame.value;
    if (typeof v !== 'object' || v === null) continue;
    const depth = frame.depth + 1;
    if (depth > max) return { field: pathOf(frame), message: `nests deeper than ${max} levels; no Kubernetes object does` };
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push({ value: v[i], depth, parent: frame, key: i });
    else for (const key of Object.keys(v)) stack.push({ value: (v as Record<string, unknown>)[key], depth, parent: frame, key });
  }
  return undefined;
}
