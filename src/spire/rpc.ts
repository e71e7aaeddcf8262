import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import type { MethodDefinition } from '@grpc/proto-loader';
import { SpireRpcError } from './errors.js';

/** A service's unary methods as promise-returning functions, typed from the generated definitions. */
export type UnaryApi<D> = {
  // Generated definitions extend grpc.ServiceDefinition's string index; keep only the named methods.
  [K in keyof D as string extends K ? never : number extends K ? never : K]: D[K] extends MethodDefinition<infer Req, infer _Res, infer _ReqOut, infer ResOut>
    ? (req: Req) => Promise<ResOut>
    : never;
};

export interface RpcSettings {
  /** Short service name used in errors, e.g. "Entry". */
  service: string;
  socketPath: string;
  deadlineMs: number;
  /**
   * Queue calls while the channel reconnects instead of failing fast, so a
   * SPIRE restart costs latency, not errors. Always bounded by the deadline.
   */
  waitForReady: boolean;
  /** Told about every finished call, e.g. to record latency by method and code. */
  observe?: RpcObserver;
}

/** `rpc` is "Service.Method"; `code` the gRPC code name ("OK" on success). */
export type RpcObserver = (rpc: string, code: string, seconds: number) => void;

type RawUnary = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: unknown) => void) => void;

export function unaryApi<D>(client: grpc.Client, settings: RpcSettings): UnaryApi<D> {
  const cache = new Map<string, (req: unknown) => Promise<unknown>>();
  return new Proxy({} as UnaryApi<D>, {
    get(_target, name) {
      if (typeof name !== 'string') return undefined;
      let fn = cache.get(name);
      if (!fn) {
        const method = (client as unknown as Record<string, RawUnary>)[name];
        if (typeof method !== 'function') throw new Error(`SPIRE ${settings.service} has no method ${name}`);
        const rpc = `${settings.service}.${name}`;
        fn = (req: unknown) =>
          new Promise((resolve, reject) => {
            const md = new grpc.Metadata({ waitForReady: settings.waitForReady });
            const started = performance.now();
            method.call(client, req, md, { deadline: Date.now() + settings.deadlineMs }, (err, res) => {
              const error = err ? new SpireRpcError(rpc, settings.socketPath, err) : undefined;
              settings.observe?.(rpc, error?.codeName ?? 'OK', (performance.now() - started) / 1000);
              if (error) reject(error);
              else resolve(res);
            });
          });
        cache.set(name, fn);
      }
      return fn;
    },
  });
}
