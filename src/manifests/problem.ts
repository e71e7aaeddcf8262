import { printableName } from '../api/index.js';
import type { ManifestProblem } from './types.js';

/** `<file> doc <n>: <Kind>/<name>: <field>: <message>`, leaving out what is unknown. */
export function formatProblem(p: ManifestProblem): string {
  const parts: string[] = [p.document >= 0 ? `${p.file} doc ${p.document}` : p.file];
  if (p.kind !== undefined || p.name !== undefined) parts.push(`${p.kind ?? '?'}/${p.name === undefined ? '?' : printableName(p.name)}`);
  if (p.field) parts.push(p.field);
  parts.push(p.message);
  return parts.join(': ');
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Appends one path segment: array indexes as `[i]`, plain keys as `.key`, and
 * keys that would be ambiguous in dotted form (label keys such as
 * `app.kubernetes.io/name`) as `["key"]`.
 */
export function appendField(base: string | undefined, segment: string | number): string {
  if (typeof segment === 'number') return `${base ?? ''}[${segment}]`;
  if (!IDENTIFIER.test(segment)) return `${base ?? ''}[${JSON.stringify(segment)}]`;
  return base ? `${base}.${segment}` : segment;
}

/** Joins a prefix such as `items[3]` with a path inside that item. */
export function joinField(prefix: string | undefined, field: string | undefined): string | undefined {
  if (!prefix) return field;
  if (!field) return prefix;
  return field.startsWith('[') ? `${prefix}${field}` : `${prefix}.${field}`;
}
