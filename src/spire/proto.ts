import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as EntryProto } from '../gen/entry.js';
import type { ProtoGrpcType as TrustDomainProto } from '../gen/trustdomain.js';
import type { ProtoGrpcType as BundleProto } from '../gen/bundle.js';
import type { ProtoGrpcType as SvidProto } from '../gen/svid.js';
import type { ListEntriesResponse__Output as ListEntriesResponseOut } from '../gen/spire/api/server/entry/v1/ListEntriesResponse.js';

/** The proto root, found relative to this module so it works from src/ (tsx) and dist/. */
const PROTO_ROOT = fileURLToPath(new URL('../../proto', import.meta.url));

const SERVICE_FILES = [
  'spire/api/server/entry/v1/entry.proto',
  'spire/api/server/trustdomain/v1/trustdomain.proto',
  'spire/api/server/bundle/v1/bundle.proto',
  'spire/api/server/svid/v1/svid.proto',
] as const;

/**
 * Loader options. They must equal the flags of `npm run gen:proto`, or the
 * generated types would describe objects the runtime never produces.
 * longs: String keeps int64 exact; defaults fills scalars so callers never see
 * undefined for proto3 fields; oneofs names the member that is set.
 */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
};

let cached: protoLoader.PackageDefinition | undefined;

export function loadPackageDefinition(): protoLoader.PackageDefinition {
  cached ??= protoLoader.loadSync([...SERVICE_FILES], LOADER_OPTIONS);
  return cached;
}

type SpireGrpc = EntryProto & TrustDomainProto & BundleProto & SvidProto;

let grpcObject: SpireGrpc | undefined;

export function loadSpireGrpc(): SpireGrpc {
  grpcObject ??= grpc.loadPackageDefinition(loadPackageDefinition()) as unknown as SpireGrpc;
  return grpcObject;
}

let listDecoder: ((bytes: Buffer) => ListEntriesResponseOut) | undefined;

/**
 * Decodes ListEntries responses with code of its own. Decoded by the code
 * that also decodes write responses (which a pass keeps until it ends), the
 * entries of every page were allocated where V8 had learnt to put those:
 * straight in the old space, garbage only a full collection frees. So this
 * decoder is loaded apart (its own protobufjs types, so its own generated
 * code and allocation sites), with the same options: it returns what the
 * shared one would.
 */
export function listEntriesDecoder(): (bytes: Buffer) => ListEntriesResponseOut {
  if (!listDecoder) {
    const entry = protoLoader.loadSync(SERVICE_FILES[0], LOADER_OPTIONS)['spire.api.server.entry.v1.Entry'] as protoLoader.ServiceDefinition;
    listDecoder = entry.ListEntries!.responseDeserialize as (bytes: Buffer) => ListEntriesResponseOut;
  }
  return listDecoder;
}
