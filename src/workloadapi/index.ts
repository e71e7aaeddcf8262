export { X509Source, type X509SourceOptions } from './source.js';
export type { X509Context } from './context.js';
export { type WorkloadApiProblem } from './problems.js';
export { workloadApiSocket } from './socket.js';
export { spiffeTransport } from './credentials.js';
