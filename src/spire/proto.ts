import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as EntryProto } from '../gen/entry.js';
import type { ProtoGrpcType as TrustDomainProto } from '../gen/trustdomain.js';
import type { ProtoGrpcType as BundleProto } from '../gen/bundle.js';
import type { ProtoGrpcType as SvidProto } from '../gen/svid.js';

/** The proto root, found relative to this module so it works from src/ (tsx) and dist/. */
export const PROTO_ROOT = fileURLToPath(new URL('../../proto', import.meta.url));

export const SERVICE_FILES = [
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

export type SpireGrpc = EntryProto & TrustDomainProto & BundleProto & SvidProto;

let grpcObject: SpireGrpc | undefined;

export function loadSpireGrpc(): SpireGrpc {
  grpcObject ??= grpc.loadPackageDefinition(loadPackageDefinition()) as unknown as SpireGrpc;
  return grpcObject;
}
