export { MemorySpireServer } from './server.js';
export type { MemorySpireServerOptions, SpireSeed } from './server.js';
export { MemoryWorkloadApi } from './workload-api.js';
export type { MemoryWorkloadApiOptions } from './workload-api.js';
