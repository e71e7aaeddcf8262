/**
 * What the API server does with a custom resource's openAPIV3Schema: prune
 * fields the schema does not declare (silently, so a controller writing an
 * undeclared status field loses it on a real cluster too) and reject objects
 * that break the schema with 422 Invalid.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { StatusCause } from './errors.js';
import { isPlainObject, type JsonObject } from './types.js';
import { KUBERNETES_KEYWORDS } from '../../../src/manifests/crd-schema.js';

/** ObjectMeta's fields; anything else under metadata is dropped on decode, for every resource. */
const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

export function pruneMetadata(meta: JsonObject): void {
  for (const k of Object.keys(meta)) if (!OBJECT_META_FIELDS.has(k)) delete meta[k];
}

function pruneValue(value: unknown, schema: JsonObject): void {
  if (Array.isArray(value)) {
    if (isPlainObject(schema.items)) for (const item of value) pruneValue(item, schema.items);
    return;
  }
  if (!isPlainObject(value)) return;
  const props = isPlainObject(schema.properties) ? schema.properties : undefined;
  const additional = schema.additionalProperties;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const key of Object.keys(value)) {
    const sub = props?.[key];
    if (isPlainObject(sub)) pruneValue(value[key], sub);
    else if (isPlainObject(additional)) pruneValue(value[key], additional);
    else if (!preserve && additional !== true) delete value[key];
  }
}

function dottedPath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');
}

function render(v: unknown): string {
  return typeof v === 'string' ? `"${v}"` : JSON.stringify(v);
}

/** ajv's errors, worded like the API server's field errors. */
function toCause(e: ErrorObject, root: unknown): StatusCause {
  const path = dottedPath(e.instancePath);
  const value = e.instancePath
    .split('/')
    .slice(1)
    .reduce<unknown>((cur, seg) => (isPlainObject(cur) || Array.isArray(cur) ? (cur as Record<string, unknown>)[seg] : undefined), root);
  switch (e.keyword) {
    case 'required': {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      return { reason: 'FieldValueRequired', message: 'Required value', field: path ? `${path}.${missing}` : missing };
    }
    case 'type': {
      const want = (e.params as { type: string }).type;
      const got = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
      return {
        reason: 'FieldValueTypeInvalid',
        message: `Invalid value: "${got}": ${path} in body must be of type ${want}: "${got}"`,
        field: path,
      };
    }
    case 'enum': {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map(render).join(', ');
      return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${render(value)}: supported values: ${allowed}`, field: path };
    }
    case 'pattern':
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${render(value)}: ${path} in body should match '${(e.params as { pattern: string }).pattern}'`,
        field: path,
      };
    default:
      return { reason: 'FieldValueInvalid', message: `Invalid value: ${render(value)}: ${path} in body ${e.message ?? 'is invalid'}`, field: path };
  }
}

export class CrdSchema {
  private readonly validateFn: ValidateFunction;

  constructor(private readonly schema: JsonObject) {
    // Kubernetes' own keywords steer the API server, not validation; formats
    // such as int32 are not ajv's, and the API server only checks a few.
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    for (const keyword of KUBERNETES_KEYWORDS) ajv.addKeyword(keyword);
    this.validateFn = ajv.compile(schema);
  }

  /** Drops undeclared fields in place, keeping apiVersion, kind and ObjectMeta's fields. */
  prune(obj: JsonObject): void {
    const props = isPlainObject(this.schema.properties) ? this.schema.properties : {};
    for (const key of Object.keys(obj)) {
      if (key === 'apiVersion' || key === 'kind') continue;
      if (key === 'metadata') {
        if (isPlainObject(obj.metadata)) pruneMetadata(obj.metadata);
        continue;
      }
      const sub = props[key];
      if (isPlainObject(sub)) pruneValue(obj[key], sub);
      else if (this.schema['x-kubernetes-preserve-unknown-fields'] !== true) delete obj[key];
    }
  }

  /** Schema violations as Status causes; empty when the object is valid. */
  validate(obj: JsonObject): StatusCause[] {
    if (this.validateFn(obj)) return [];
    return (this.validateFn.errors ?? []).map((e) => toCause(e, obj));
  }
}
