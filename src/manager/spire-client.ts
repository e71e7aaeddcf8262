import type { ControllerConfig } from '../api/index.js';
import { type RpcObserver, SpireClient } from '../spire/index.js';

/** The SPIRE client a config describes: socket, per-call deadline and largest response. */
export function spireClientFor(config: ControllerConfig, observe?: RpcObserver): SpireClient {
  return new SpireClient({
    socket: config.spireServerSocketPath,
    rpcTimeoutMs: config.spireRpcTimeoutMs,
    ...(config.grpcMaxCallRecvMsgSize > 0 ? { maxReceiveMessageBytes: config.grpcMaxCallRecvMsgSize } : {}),
    ...(observe ? { observe } : {}),
  });
}
