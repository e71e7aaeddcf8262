/**
 * What the webhook checks per kind. The field checks are the very functions
 * the reconcile and `validate` use, so a rejection here reads exactly like
 * the failure a reconcile would have reported for the same object later.
 */
import type { ClusterFederatedTrustDomain, ClusterSPIFFEID, ClusterStaticEntry } from '../api/index.js';
import { parseClusterSPIFFEID, renderStaticEntry } from '../entries/index.js';
import { validateFederatedTrustDomain } from '../federation/validate.js';
import type { WebhookKind } from './types.js';

export interface Problem {
  field: string;
  message: string;
}

type AnyObject = Record<string, unknown>;

/**
 * The trust domain a SPIFFE ID template names literally: the text between
 * `spiffe://` and the first `/` (or the end), when the template starts with
 * `spiffe://` and that text holds no template action. Undefined when the trust
 * domain is computed (`spiffe://{{ .TrustDomain }}/...`) or the template does
 * not start with a literal scheme (e.g. inside `{{ if }}` branches): then only
 * rendering can tell, and the reconcile reports it per pod.
 */
export function literalTrustDomain(template: string): string | undefined {
  const scheme = 'spiffe://';
  if (!template.startsWith(scheme)) return undefined;
  const rest = template.slice(scheme.length);
  const slash = rest.indexOf('/');
  const td = slash === -1 ? rest : rest.slice(0, slash);
  return td.includes('{{') ? undefined : td;
}

/** The reconciler only ever creates IDs in its own trust domain, so a template fixed to another can never produce an entry. */
export function checkClusterSPIFFEID(obj: ClusterSPIFFEID, trustDomain: string): Problem[] {
  const result = parseClusterSPIFFEID(obj);
  const problems: Problem[] = 'errors' in result ? [...result.errors] : [];
  const template = obj.spec?.spiffeIDTemplate;
  const td = typeof template === 'string' ? literalTrustDomain(template) : undefined;
  if (td !== undefined && td !== trustDomain) {
    // Listed with the template's other problems, so the message reads in field order.
    const at = problems.filter((p) => p.field === 'spec.spiffeIDTemplate').length;
    problems.splice(at, 0, { field: 'spec.spiffeIDTemplate', message: `trust domain "${td}" is not the configured trust domain "${trustDomain}"` });
  }
  return problems;
}

export function checkClusterStaticEntry(obj: ClusterStaticEntry, trustDomain: string): Problem[] {
  const result = renderStaticEntry(obj, trustDomain);
  return 'errors' in result ? [...result.errors] : [];
}

export function checkClusterFederatedTrustDomain(obj: ClusterFederatedTrustDomain): Problem[] {
  return validateFederatedTrustDomain(obj.spec ?? {});
}

/**
 * Runs the checks of `kind` on an object as the API server sent it. The
 * object passed the CRD's schema already; metadata is filled in because the
 * shared parsers read the name and UID for their reports.
 */
export function checkObject(kind: WebhookKind, object: AnyObject, trustDomain: string): Problem[] {
  const metadata = typeof object.metadata === 'object' && object.metadata !== null ? object.metadata : { name: '' };
  const obj = { ...object, metadata };
  switch (kind) {
    case 'ClusterSPIFFEID':
      return checkClusterSPIFFEID(obj as unknown as ClusterSPIFFEID, trustDomain);
    case 'ClusterStaticEntry':
      return checkClusterStaticEntry(obj as unknown as ClusterStaticEntry, trustDomain);
    case 'ClusterFederatedTrustDomain':
      return checkClusterFederatedTrustDomain(obj as unknown as ClusterFederatedTrustDomain);
  }
}
