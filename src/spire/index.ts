export { SpireClient, DEFAULT_BATCH_SIZES } from './client.js';
export type {
  BatchSizes,
  DeleteEntryResult,
  DeleteRelationshipResult,
  EntryItemResult,
  ListOptions,
  MintedX509Svid,
  RelationshipItemResult,
  SpireClientOptions,
  WriteGate,
} from './client.js';
export type { BatchOutcome, ItemStatus } from './batch.js';
export { rpcOutcome, type RpcOutcome, SpireConnectError, SpireRpcError } from './errors.js';
export { DEFAULT_SOCKET, parseSocket } from './target.js';
export type { SpireTcpTransport } from './transport.js';
export { checkEntryShape, entriesFromJson } from './json.js';
export type * from './types.js';
export type { RpcObserver } from './rpc.js';
