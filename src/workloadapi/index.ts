export { X509Source, type X509SourceOptions } from './source.js';
export type { Authority, X509Context, X509Svid } from './context.js';
export { WORKLOAD_API_CAUSES, type WorkloadApiCause, type WorkloadApiProblem } from './problems.js';
export { ENDPOINT_ENV, workloadApiSocket } from './socket.js';
export { parseServerAddress, spiffeMtlsCredentials, type SpiffeMtlsCredentials, type SpiffeTcpTransport, spiffeTransport } from './credentials.js';
