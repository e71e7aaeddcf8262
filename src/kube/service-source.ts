import type { KubeConfig } from './connection.js';
import { isForbidden, type OptionalAccessReporter } from './forbidden.js';
import { KubeApiError, kubeRequest } from './rest.js';

/**
 * Where Services' pod targets (autoPopulateDNSNames) are read from:
 * EndpointSlices; core Endpoints, as upstream reads them, where the
 * EndpointSlice API is not served or may not be listed (the SPIRE helm
 * chart's ClusterRole grants Endpoints only); or nowhere, when neither may be.
 */
export type ServiceSource = 'endpointslices' | 'endpoints' | 'none';

/**
 * EndpointSlices if they are served and may be listed, else core Endpoints if they may be,
 * else none. Asked once at start with a one-item list: a permission granted later is seen
 * at the next start (the log and the metric say so meanwhile). `denied` says why the
 * source is not EndpointSlices when access was denied, for the ClusterSPIFFEIDs' status.
 */
export async function chooseServiceSource(
  kc: KubeConfig,
  log: { info(msg: string): void; warn(msg: string): void },
  onOptionalAccess?: OptionalAccessReporter,
): Promise<{ source: ServiceSource; denied?: string }> {
  const report = onOptionalAccess ?? (() => {});
  const denied: string[] = [];
  const probe = async (resource: string, path: string): Promise<'ok' | 'absent' | 'denied'> => {
    try {
      await kubeRequest(kc, 'GET', path, { query: { limit: '1' } });
      report(resource, undefined);
      return 'ok';
    } catch (err) {
      if (err instanceof KubeApiError && err.statusCode === 404) return 'absent';
      if (isForbidden(err)) {
        denied.push(resource);
        report(resource, { message: err.message });
        return 'denied';
      }
      // Unknown: take it as there; its informer reports and retries.
      return 'ok';
    }
  };
  const slices = await probe('endpointslices', '/apis/discovery.k8s.io/v1/endpointslices');
  if (slices === 'ok') return { source: 'endpointslices' };
  const endpoints = await probe('endpoints', '/api/v1/endpoints');
  const why = slices === 'absent' ? 'the EndpointSlice API is not served' : 'EndpointSlices may not be listed (403 Forbidden)';
  if (endpoints === 'ok') {
    log[slices === 'denied' ? 'warn' : 'info'](`${why}: Service DNS names (autoPopulateDNSNames) come from core Endpoints`);
    return { source: 'endpoints', denied: slices === 'denied' ? `${why}; Service DNS names come from core Endpoints` : undefined };
  }
  const message = `${why}, and core Endpoints ${endpoints === 'denied' ? 'may not be listed either (403 Forbidden)' : 'are not served'}: autoPopulateDNSNames adds no Service DNS names`;
  log.warn(message);
  return { source: 'none', denied: denied.length > 0 ? message : undefined };
}
