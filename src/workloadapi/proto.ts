import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as WorkloadProto } from '../gen/workload.js';
// The flags of `npm run gen:proto`, which the generated types describe, and our proto root: one for every proto of ours.
import { LOADER_OPTIONS } from '../spire/proto.js';

export const WORKLOAD_PROTO = 'spiffe/workload/workload.proto';

/**
 * The metadata every Workload API call carries. A SPIRE agent answers a call
 * without it INVALID_ARGUMENT ("security header missing from request"): the
 * header proves the call was made on purpose, not by a browser or proxy
 * tricked into it.
 */
export const SECURITY_HEADER = 'workload.spiffe.io';

let definition: protoLoader.PackageDefinition | undefined;

export function loadWorkloadDefinition(): protoLoader.PackageDefinition {
  definition ??= protoLoader.loadSync(WORKLOAD_PROTO, LOADER_OPTIONS);
  return definition;
}

let grpcObject: WorkloadProto | undefined;

export function loadWorkloadGrpc(): WorkloadProto {
  grpcObject ??= grpc.loadPackageDefinition(loadWorkloadDefinition()) as unknown as WorkloadProto;
  return grpcObject;
}

/** A fresh metadata object with the security header set. */
export function workloadMetadata(): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set(SECURITY_HEADER, 'true');
  return md;
}
