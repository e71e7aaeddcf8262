/**
 * An in-process Kubernetes API server for tests, spoken to by
 * @kubernetes/client-node unmodified. See server.ts for the entry point.
 */
export { FakeKubeApiServer, type FakeKubeApiServerOptions, type RequestRecord } from './server.js';
export type { Faults, FailureMatch } from './faults.js';
export { KubeApiError, type KubeStatus, type StatusCause } from './errors.js';
export type { KubeObject, ObjectMeta, ManagedFieldsEntry, StoredObject } from './types.js';
