import type { FieldProblem } from '../api/index.js';
import { nearestName } from '../api/suggest.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import type { SpireKind } from './kinds.js';
import { isPlainObject } from './lists.js';
import { appendField } from './problem.js';

/** The CRD folder, found relative to this module so it works from src/ (tsx) and dist/. */
export const CRDS_ROOT = fileURLToPath(new URL('../../crds', import.meta.url));

export const CRD_FILES: Record<SpireKind, string> = {
  ClusterSPIFFEID: 'spire.spiffe.io_clusterspiffeids.yaml',
  ClusterStaticEntry: 'spire.spiffe.io_clusterstaticentries.yaml',
  ClusterFederatedTrustDomain: 'spire.spiffe.io_clusterfederatedtrustdomains.yaml',
};

const VERSION = 'v1alpha1';

/** Structural-schema keywords of Kubernetes; they steer the API server, not validation. */
export const KUBERNETES_KEYWORDS = [
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
];

/** A field problem the CRD schema finds; `field` is a dotted path, e.g. `spec.dnsNameTemplates[1]`. */
interface SchemaIssue extends FieldProblem {
  /**
   * A field the schema does not declare. The API server prunes such fields
   * instead of rejecting the object, so it is a warning and the object stays.
   */
  unknownField: boolean;
}

/** The openAPIV3Schema of our CRD for a kind, read from crds/. */
export function readCRDSchema(kind: SpireKind): Record<string, unknown> {
  const crd: unknown = parse(readFileSync(`${CRDS_ROOT}/${CRD_FILES[kind]}`, 'utf8'));
  const versions = isPlainObject(crd) && isPlainObject(crd.spec) ? crd.spec.versions : undefined;
  const version = Array.isArray(versions)
    ? (versions as unknown[]).find((v) => isPlainObject(v) && v.name === VERSION)
    : undefined;
  const schema =
    isPlainObject(version) && isPlainObject(version.schema) ? version.schema.openAPIV3Schema : undefined;
  if (!isPlainObject(schema)) throw new Error(`${CRD_FILES[kind]}: no ${VERSION} openAPIV3Schema`);
  return schema;
}

/**
 * Marks, in a copy of the schema, every object whose unknown fields the API
 * server would prune: one with no `additionalProperties` and no
 * `x-kubernetes-preserve-unknown-fields`. There, `additionalProperties: false`
 * makes ajv name each unknown field. (A structural schema never uses
 * `additionalProperties: false` itself, so every such error is ours.) The
 * root's `metadata` is left open: the API server checks ObjectMeta itself.
 */
function withUnknownFieldChecks(schema: unknown, isRoot = true): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withUnknownFieldChecks(s, false));
  if (!isPlainObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isPlainObject(value)) {
      const props: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) {
        props[name] = isRoot && name === 'metadata' ? sub : withUnknownFieldChecks(sub, false);
      }
      out[key] = props;
    } else if (SUBSCHEMA_KEYWORDS.has(key)) {
      out[key] = withUnknownFieldChecks(value, false);
    } else {
      out[key] = value;
    }
  }
  const prunes =
    out.type === 'object' && out.additionalProperties === undefined && out['x-kubernetes-preserve-unknown-fields'] !== true;
  if (prunes) out.additionalProperties = false;
  return out;
}

const SUBSCHEMA_KEYWORDS = new Set(['items', 'additionalProperties', 'allOf', 'anyOf', 'oneOf', 'not']);

let ajv: Ajv | undefined;
const validators = new Map<SpireKind, ValidateFunction>();

/** Compiled once per kind, on first use. */
function validatorFor(kind: SpireKind): ValidateFunction {
  let validate = validators.get(kind);
  if (!validate) {
    if (!ajv) {
      // strict: a typo in our own CRD files fails loudly instead of validating nothing.
      // verbose: an error carries the schema it failed, whose properties name the fields an unknown one may have meant.
      ajv = new Ajv({ allErrors: true, strict: true, verbose: true });
      for (const keyword of KUBERNETES_KEYWORDS) ajv.addKeyword({ keyword });
    }
    validate = ajv.compile(withUnknownFieldChecks(readCRDSchema(kind)) as Record<string, unknown>);
    validators.set(kind, validate);
  }
  return validate;
}

/**
 * Checks an object of one of our kinds the way the API server admits it on
 * create, and changes it the same way: `status` is dropped (with a status
 * subresource, the API server ignores the status stanza of a create; and the
 * controller computes status, it never reads it), fields whose value is null
 * (a `podSelector:` with nothing after it) are dropped, since our schemas
 * declare nothing nullable, and unknown fields are pruned after validation.
 * Returns every issue; any issue that is not an unknown field rejects the
 * object.
 */
export function admitSpireObject(kind: SpireKind, obj: Record<string, unknown>): SchemaIssue[] {
  delete obj.status;
  dropNullFields(obj);
  const validate = validatorFor(kind);
  if (validate(obj)) return [];
  const errors = validate.errors ?? [];
  const issues = errors.map((e) => toIssue(e, obj));
  // Prune unknown fields, as the API server does, so that an object read from
  // a file means what it would mean once applied: `namespaceSelector:
  // {matchNames: [a]}` selects every namespace in both places.
  for (const e of errors) {
    if (e.keyword !== 'additionalProperties') continue;
    const parent = valueAt(obj, e.instancePath);
    if (isPlainObject(parent)) delete parent[String((e.params as Record<string, unknown>).additionalProperty)];
  }
  return issues;
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(root: unknown, pointer: string): unknown {
  let at = root;
  for (const segment of pointerSegments(pointer)) {
    at = Array.isArray(at) ? at[Number(segment)] : isPlainObject(at) ? at[segment] : undefined;
  }
  return at;
}

function dropNullFields(v: unknown): void {
  if (Array.isArray(v)) {
    for (const item of v) dropNullFields(item);
  } else if (isPlainObject(v)) {
    for (const [k, child] of Object.entries(v)) {
      if (child === null) delete v[k];
      else dropNullFields(child);
    }
  }
}

function toIssue(e: ErrorObject, obj: unknown): SchemaIssue {
  let field = pointerToField(e.instancePath, obj);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { field: appendField(field, String(params.missingProperty)), message: 'is required', unknownField: false };
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      field = appendField(field, name);
      const known = isPlainObject(e.parentSchema) && isPlainObject(e.parentSchema.properties) ? Object.keys(e.parentSchema.properties) : [];
      const near = nearestName(name, known);
      // As config keys are named (api/config.ts): a misspelt key often explains a missing one.
      return { field, message: near ? `unknown field, ignored (did you mean ${near}?)` : 'unknown field (ignored)', unknownField: true };
    }
    case 'enum': {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues.map(String) : [];
      return { field, message: `must be one of: ${allowed.join(', ')}`, unknownField: false };
    }
    default:
      return { field, message: e.message ?? e.keyword, unknownField: false };
  }
}

/**
 * `/spec/dnsNameTemplates/1` -> `spec.dnsNameTemplates[1]`. A segment is an
 * index only where the value at that point is an array (a map key may well be
 * "1").
 */
function pointerToField(pointer: string, root: unknown): string {
  let field = '';
  let at: unknown = root;
  for (const segment of pointerSegments(pointer)) {
    if (Array.isArray(at)) {
      field = appendField(field, Number(segment));
      at = at[Number(segment)];
    } else {
      field = appendField(field, segment);
      at = isPlainObject(at) ? at[segment] : undefined;
    }
  }
  return field;
}
