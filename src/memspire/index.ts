export { MemorySpireServer } from './server.js';
export type { CallRecord, DeletionRecord, MemorySpireServerOptions, SpireSeed } from './server.js';
export { FaultInjector } from './faults.js';
export type { DroppableField } from './entries.js';
