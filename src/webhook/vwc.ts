/** The ValidatingWebhookConfiguration this controller serves: read, and what the certificate needs from it. */
import type { KubeConfig } from '../kube/connection.js';
import { KubeApiError, kubeRequest } from '../kube/rest.js';

interface WebhookClientConfig {
  service?: { name?: string; namespace?: string; path?: string; port?: number };
  url?: string;
  /** base64 of PEM bytes (a []byte field in Go). */
  caBundle?: string;
}

interface ValidatingWebhook {
  name: string;
  clientConfig?: WebhookClientConfig;
}

export interface ValidatingWebhookConfiguration {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; resourceVersion?: string };
  webhooks?: ValidatingWebhook[];
}

const VWC_COLLECTION = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

export function vwcPath(name: string): string {
  return `${VWC_COLLECTION}/${encodeURIComponent(name)}`;
}

/** The configuration, or undefined when it does not exist (yet). */
export async function getWebhookConfiguration(kc: KubeConfig, name: string): Promise<ValidatingWebhookConfiguration | undefined> {
  try {
    return await kubeRequest<ValidatingWebhookConfiguration>(kc, 'GET', vwcPath(name));
  } catch (err) {
    if (err instanceof KubeApiError && err.statusCode === 404) return undefined;
    throw err;
  }
}

/**
 * The names the API server dials: `<service>.<namespace>.svc` of every webhook
 * that goes through a Service, sorted and de-duplicated (as upstream), so that
 * the same configuration always gives the same list and a change is visible.
 */
export function serviceDnsNames(vwc: ValidatingWebhookConfiguration): string[] {
  const names = new Set<string>();
  for (const w of vwc.webhooks ?? []) {
    const svc = w.clientConfig?.service;
    if (svc?.name && svc.namespace) names.add(`${svc.name}.${svc.namespace}.svc`);
  }
  return [...names].sort();
}
