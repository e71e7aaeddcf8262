import { KubeApiError } from './rest.js';

/**
 * Access the controller can do without, denied (403) or granted again.
 * A denial is a warning, a metric and, where an object's result depends on
 * it, a status condition; never a readiness failure: the controller runs
 * as the SPIRE server pod's sidecar, and its readiness is that pod's.
 */
export type OptionalAccessReporter = (resource: string, denied: { message: string } | undefined) => void;

export function isForbidden(err: unknown): err is KubeApiError {
  return err instanceof KubeApiError && err.statusCode === 403;
}
