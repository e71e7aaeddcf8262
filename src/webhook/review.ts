/**
 * admission.k8s.io/v1 AdmissionReview in, AdmissionReview out. Pure: the
 * HTTPS server and tests both call it, and nothing here touches the network.
 */
import { errorMessage, type FieldProblem, formatFieldProblems } from '../api/index.js';
import { checkObject } from './checks.js';
import { SPIRE_GROUP, type WebhookKind } from './types.js';

const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

interface AdmissionStatus {
  code: number;
  reason: 'Forbidden' | 'BadRequest';
  message: string;
}

interface AdmissionReviewResponse {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: 'AdmissionReview';
  response: { uid: string; allowed: boolean; status?: AdmissionStatus };
}

/** The review to answer and the HTTP status to answer it with. */
export interface ReviewOutcome {
  httpStatus: number;
  review: AdmissionReviewResponse;
}

const KINDS: readonly WebhookKind[] = ['ClusterSPIFFEID', 'ClusterStaticEntry', 'ClusterFederatedTrustDomain'];

type AnyObject = Record<string, unknown>;

const isObject = (v: unknown): v is AnyObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function answer(uid: string, allowed: boolean, status?: AdmissionStatus): AdmissionReviewResponse {
  return { apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response: { uid, allowed, status } };
}

/**
 * A review we cannot answer properly: HTTP 400, so the caller sees a failed
 * call rather than a verdict. A real API server never sends one; a hand-made
 * request (curl, a misconfigured proxy) gets told what is wrong with it.
 */
export function malformedReview(message: string, uid = ''): ReviewOutcome {
  return { httpStatus: 400, review: answer(uid, false, { code: 400, reason: 'BadRequest', message }) };
}

function denied(uid: string, code: 400 | 403, message: string): ReviewOutcome {
  return { httpStatus: 200, review: answer(uid, false, { code, reason: code === 403 ? 'Forbidden' : 'BadRequest', message }) };
}

function describeType(v: unknown): string {
  if (!isObject(v)) return v === null ? 'null' : typeof v;
  const av = typeof v.apiVersion === 'string' ? v.apiVersion : '<no apiVersion>';
  const k = typeof v.kind === 'string' ? v.kind : '<no kind>';
  return `${av} ${k}`;
}

/**
 * Evaluates one AdmissionReview. `endpointKind` is the kind the URL path
 * serves: a request for another kind means the ValidatingWebhookConfiguration
 * routes it wrongly, and is denied with a message that says so.
 */
export function evaluateReview(input: unknown, trustDomain: string, endpointKind?: WebhookKind): ReviewOutcome {
  if (!isObject(input) || input.apiVersion !== ADMISSION_API_VERSION || input.kind !== 'AdmissionReview') {
    return malformedReview(`expected an ${ADMISSION_API_VERSION} AdmissionReview, got ${describeType(input)}`);
  }
  const request = input.request;
  if (!isObject(request)) return malformedReview('AdmissionReview has no request');
  const uid = request.uid;
  if (typeof uid !== 'string' || uid === '') return malformedReview('AdmissionReview request has no uid');
  const operation = request.operation;
  // Nothing is left to check when an object goes away or a pod is connected to.
  if (operation === 'DELETE' || operation === 'CONNECT') return { httpStatus: 200, review: answer(uid, true) };
  if (operation !== 'CREATE' && operation !== 'UPDATE') {
    return malformedReview(`AdmissionReview request operation ${JSON.stringify(operation ?? null)} is not CREATE, UPDATE, DELETE or CONNECT`, uid);
  }
  const gvk = isObject(request.kind) ? request.kind : {};
  const kind = KINDS.find((k) => k === gvk.kind && gvk.group === SPIRE_GROUP);
  const named = `${typeof gvk.group === 'string' ? gvk.group : ''}/${typeof gvk.kind === 'string' ? gvk.kind : ''}`;
  if (!kind) return denied(uid, 400, `this webhook does not validate ${named}: check the rules of the ValidatingWebhookConfiguration`);
  if (endpointKind && kind !== endpointKind) {
    return denied(uid, 400, `this endpoint validates ${endpointKind}, not ${kind}: check the webhook paths of the ValidatingWebhookConfiguration`);
  }
  // On UPDATE the new object is what will be stored; the old one was checked when it was written.
  const object = request.object;
  if (!isObject(object)) return malformedReview(`AdmissionReview ${operation} request has no object`, uid);
  // Named as the reconcile names it in status and events, so one search finds both.
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  let problems: FieldProblem[];
  try {
    problems = checkObject(kind, object, trustDomain);
  } catch (err) {
    // Failing closed: an object the checks cannot read is not let through unchecked.
    return denied(uid, 400, formatFieldProblems(kind, name, [{ field: 'spec', message: `could not be checked: ${errorMessage(err)}` }]));
  }
  if (problems.length === 0) return { httpStatus: 200, review: answer(uid, true) };
  // Every problem in one message, so one `kubectl apply` shows them all.
  return denied(uid, 403, formatFieldProblems(kind, name, problems));
}
