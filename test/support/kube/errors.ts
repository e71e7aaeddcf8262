/**
 * Kubernetes `Status` errors. Every failure the fake answers carries one, with
 * the reason, message shape and HTTP code the real API server uses, because
 * client code branches on `code` and `reason` (409 Conflict vs AlreadyExists,
 * 410 Expired, ...).
 */

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: string;
  details?: StatusDetails;
  code: number;
}

/** Thrown by the store and handlers; the HTTP layer turns it into a Status response. */
export class KubeApiError extends Error {
  readonly status: KubeStatus;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'KubeApiError';
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      ...(details ? { details } : {}),
      code,
    };
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): string {
    return this.status.reason;
  }
}

/** What error messages call a resource: `pods`, `leases.coordination.k8s.io`. */
export interface ResourceName {
  group: string;
  plural: string;
}

export function qualifiedResource(r: ResourceName): string {
  return r.group ? `${r.plural}.${r.group}` : r.plural;
}

export const MODIFIED_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

export function notFound(r: ResourceName, name: string): KubeApiError {
  return new KubeApiError(404, 'NotFound', `${qualifiedResource(r)} "${name}" not found`, {
    name,
    group: r.group,
    kind: r.plural,
  });
}

/** A path the server does not serve at all (unknown group, version or resource). */
export function pathNotFound(): KubeApiError {
  return new KubeApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(r: ResourceName, name: string): KubeApiError {
  return new KubeApiError(409, 'AlreadyExists', `${qualifiedResource(r)} "${name}" already exists`, {
    name,
    group: r.group,
    kind: r.plural,
  });
}

export function conflict(r: ResourceName, name: string, why: string = MODIFIED_MESSAGE): KubeApiError {
  return new KubeApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(r)} "${name}": ${why}`, {
    name,
    group: r.group,
    kind: r.plural,
  });
}

/** 422 Invalid, message `Kind.group "name" is invalid: field: detail` as the API server formats it. */
export function invalid(kind: string, group: string, name: string, causes: StatusCause[]): KubeApiError {
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? '')));
  const detail = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return new KubeApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${detail}`, {
    name,
    group,
    kind,
    causes,
  });
}

export function badRequest(message: string): KubeApiError {
  return new KubeApiError(400, 'BadRequest', message);
}

export function expired(message: string): KubeApiError {
  return new KubeApiError(410, 'Expired', message);
}

export function unsupportedMediaType(accepted: readonly string[]): KubeApiError {
  return new KubeApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function methodNotAllowed(method: string): KubeApiError {
  return new KubeApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${method})`);
}

export function internalError(message: string): KubeApiError {
  return new KubeApiError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}

/** What the API server answers when asked for a resourceVersion it has not reached yet. */
export function tooLargeResourceVersion(requested: number, current: number): KubeApiError {
  return new KubeApiError(504, 'Timeout', `Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

/** The Status bodies for injected failures (faults.failNext). */
export function injectedFailure(code: 500 | 429 | 503): KubeApiError {
  switch (code) {
    case 429:
      return new KubeApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', {
        retryAfterSeconds: 1,
      });
    case 503:
      return new KubeApiError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
    default:
      return internalError('injected failure');
  }
}
