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
  /** Where the server is, in words for errors: the socket path, or "host:port (SPIFFE mTLS)". */
  where: string;
  /** Why the server may not answer, asked when a call fails UNAVAILABLE or DEADLINE_EXCEEDED. */
  diagnose?: () => string | undefined;
  deadlineMs: number;
  /**
   * Queue calls while the channel reconnects instead of failing fast, so a
   * SPIRE restart costs latency, not errors. Always bounded by the deadline.
   */
  waitForReady: boolean;
  /** Told about every finished call, e.g. to record latency by method and code. */
  observe?: RpcObserver;
  /** Given every call's promise as it starts (a connection counts its calls in flight). */
  track?: <R>(call: Promise<R>) => Promise<R>;
}

/** `rpc` is "Service.Method"; `code` the gRPC code name ("OK" on success). */
export type RpcObserver = (rpc: string, code: string, seconds: number) => void;

type RawUnary = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: unknown) => void) => void;

/** One unary call with the settings' metadata and deadline; its error wrapped and the observer told. */
function call<R>(rpc: string, settings: RpcSettings, start: (md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: R) => void) => void): Promise<R> {
  const promise = new Promise<R>((resolve, reject) => {
    const md = new grpc.Metadata({ waitForReady: settings.waitForReady });
    const started = performance.now();
    start(md, { deadline: Date.now() + settings.deadlineMs }, (err, res) => {
      const error = err ? new SpireRpcError(rpc, settings.where, err, settings.diagnose) : undefined;
      settings.observe?.(rpc, error?.codeName ?? 'OK', (performance.now() - started) / 1000);
      if (error) reject(error);
      else resolve(res as R);
    });
  });
  return settings.track ? settings.track(promise) : promise;
}

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
        fn = (req: unknown) => call(rpc, settings, (md, opts, cb) => method.call(client, req, md, opts, cb));
        cache.set(name, fn);
      }
      return fn;
    },
  });
}

/**
 * A unary method whose response is decoded by `decode`, and which gives up
 * every reference grpc-js has to it. grpc-js's objects for a call outlive it
 * until a full collection, and are often in the old space already by then:
 * what they point at survives the young collections and is promoted too.
 * So the decoded response goes through a box that is emptied on receipt
 * (see listEntriesDecoder for why ListEntries is read so).
 */
export function releasedUnary<Req, Res>(
  client: grpc.Client,
  name: string,
  method: Pick<MethodDefinition<Req, unknown>, 'path' | 'requestSerialize'>,
  decode: (bytes: Buffer) => Res,
  settings: RpcSettings,
): (req: Req) => Promise<Res> {
  const rpc = `${settings.service}.${name}`;
  const deserialize = (bytes: Buffer): { res: Res | undefined } => ({ res: decode(bytes) });
  return async (req) => {
    const box = await call<{ res: Res | undefined }>(rpc, settings, (md, opts, cb) => client.makeUnaryRequest(method.path, method.requestSerialize, deserialize, req, md, opts, cb));
    const res = box.res as Res;
    box.res = undefined;
    return res;
  };
}
