export { SpireClient } from './client.js';
export { rpcOutcome, SpireConnectError, SpireRpcError } from './errors.js';
export { parseSocket } from './target.js';
export { checkEntryShape, entriesFromJson } from './json.js';
export type * from './types.js';
export type { RpcObserver } from './rpc.js';
