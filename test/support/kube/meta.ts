/**
 * ObjectMeta rules the API server applies on every write: name and label
 * validation, generateName, generation tracking and managedFields.
 */
import type { StatusCause } from './errors.js';
import type { ResourceType } from './resources.js';
import { validKey, validValue } from './selectors.js';
import { isPlainObject, jsonEqual, timestamp, type JsonObject, type KubeObject, type ManagedFieldsEntry } from './types.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Custom resources only need a name usable as a path segment; namespaces must
 * be DNS labels; the built-in kinds served here use DNS subdomains.
 */
export function nameCauses(r: ResourceType, name: string): StatusCause[] {
  const invalid = (why: string): StatusCause[] => [
    { reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "${name}": ${why}` },
  ];
  if (r.custom) {
    if (name === '.' || name === '..') return invalid(`may not be '${name}'`);
    if (/[/%]/.test(name)) return invalid(`may not contain '/' or '%'`);
    return [];
  }
  if (r.kind === 'Namespace') {
    if (name.length > 63 || !DNS_LABEL.test(name)) {
      return invalid(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      );
    }
    return [];
  }
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    return invalid(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return [];
}

export function labelCauses(labels: unknown): StatusCause[] {
  if (labels === undefined) return [];
  if (!isPlainObject(labels)) return [{ reason: 'FieldValueTypeInvalid', field: 'metadata.labels', message: 'Invalid value: must be a map' }];
  const causes: StatusCause[] = [];
  for (const [k, v] of Object.entries(labels)) {
    if (!validKey(k)) causes.push({ reason: 'FieldValueInvalid', field: 'metadata.labels', message: `Invalid value: "${k}": name part must be a valid label key` });
    if (typeof v !== 'string' || !validValue(v)) {
      causes.push({ reason: 'FieldValueInvalid', field: `metadata.labels`, message: `Invalid value: "${String(v)}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'` });
    }
  }
  return causes;
}

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** The API server appends five random characters from an alphabet without vowels. */
export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)];
  return prefix + suffix;
}

/**
 * Kinds whose metadata.generation the API server maintains: every custom
 * resource, and the built-ins with a spec the server tracks (pods since 1.33,
 * CRDs, webhook configurations). Namespaces, nodes, services, leases and the
 * like have no generation on a real cluster either.
 */
export function tracksGeneration(r: ResourceType): boolean {
  return (
    r.custom ||
    ['Pod', 'EndpointSlice', 'CustomResourceDefinition', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'].includes(r.kind)
  );
}

function withoutMetaAndStatus(obj: KubeObject): JsonObject {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/** A change outside metadata and status: what bumps generation (the custom resource rule; for pods it is the spec). */
export function specChanged(before: KubeObject, after: KubeObject): boolean {
  return !jsonEqual(withoutMetaAndStatus(before), withoutMetaAndStatus(after));
}

/** Equal apart from resourceVersion and managedFields: such an update is a no-op and is not written. */
export function sameContent(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject): KubeObject => {
    const { resourceVersion: _rv, managedFields: _mf, ...meta } = o.metadata;
    return { ...o, metadata: meta };
  };
  return jsonEqual(strip(a), strip(b));
}

function fieldSet(value: unknown): JsonObject {
  const out: JsonObject = {};
  if (!isPlainObject(value)) return out;
  for (const [k, v] of Object.entries(value)) out[`f:${k}`] = isPlainObject(v) ? fieldSet(v) : {};
  return out;
}

/**
 * A minimal managedFields entry: the manager, the operation and the top two
 * levels of the fields written. Enough for consumers to see (and strip) the
 * field; it is not a faithful FieldsV1 set.
 */
function entryFor(
  r: ResourceType,
  obj: KubeObject,
  manager: string,
  operation: 'Apply' | 'Update',
  subresource: string | undefined,
): ManagedFieldsEntry {
  let fields: JsonObject;
  if (subresource === 'status') {
    fields = { 'f:status': fieldSet(obj.status) };
  } else {
    const { metadata, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
    fields = fieldSet(rest);
    if (r.statusSubresource) delete fields['f:status'];
    const metaFields: JsonObject = {};
    for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
      if (metadata[k] !== undefined) metaFields[`f:${k}`] = k === 'labels' || k === 'annotations' ? fieldSet(metadata[k]) : {};
    }
    if (Object.keys(metaFields).length > 0) fields['f:metadata'] = metaFields;
  }
  return {
    manager,
    operation,
    apiVersion: r.apiVersion,
    time: timestamp(),
    fieldsType: 'FieldsV1',
    fieldsV1: fields,
    ...(subresource ? { subresource } : {}),
  };
}

/** Records a write in metadata.managedFields, one entry per manager, operation and subresource. */
export function recordManager(
  r: ResourceType,
  obj: KubeObject,
  manager: string,
  operation: 'Apply' | 'Update',
  subresource?: string,
): void {
  const entry = entryFor(r, obj, manager, operation, subresource);
  const entries = (obj.metadata.managedFields ?? []).filter(
    (e) => !(e.manager === manager && e.operation === operation && e.subresource === subresource),
  );
  entries.push(entry);
  obj.metadata.managedFields = entries;
}
