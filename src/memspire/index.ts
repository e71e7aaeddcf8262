export { MemorySpireServer } from './server.js';
export type { CallRecord, DeletionRecord, MemorySpireServerOptions, SpireSeed } from './server.js';
export { FaultInjector } from './faults.js';
export type { DroppableField } from './entries.js';
export { MemoryWorkloadApi } from './workload-api.js';
export type { MemoryWorkloadApiOptions, WorkloadApiMode } from './workload-api.js';
export type { Caller, IssuedSvid } from './tls.js';
export type { MemorySpireTcpOptions } from './server.js';
