// Original file: proto/spire/api/server/svid/v1/svid.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { BatchNewWITSVIDRequest as _spire_api_server_svid_v1_BatchNewWITSVIDRequest, BatchNewWITSVIDRequest__Output as _spire_api_server_svid_v1_BatchNewWITSVIDRequest__Output } from '../../../../../spire/api/server/svid/v1/BatchNewWITSVIDRequest.js';
import type { BatchNewWITSVIDResponse as _spire_api_server_svid_v1_BatchNewWITSVIDResponse, BatchNewWITSVIDResponse__Output as _spire_api_server_svid_v1_BatchNewWITSVIDResponse__Output } from '../../../../../spire/api/server/svid/v1/BatchNewWITSVIDResponse.js';
import type { BatchNewX509SVIDRequest as _spire_api_server_svid_v1_BatchNewX509SVIDRequest, BatchNewX509SVIDRequest__Output as _spire_api_server_svid_v1_BatchNewX509SVIDRequest__Output } from '../../../../../spire/api/server/svid/v1/BatchNewX509SVIDRequest.js';
import type { BatchNewX509SVIDResponse as _spire_api_server_svid_v1_BatchNewX509SVIDResponse, BatchNewX509SVIDResponse__Output as _spire_api_server_svid_v1_BatchNewX509SVIDResponse__Output } from '../../../../../spire/api/server/svid/v1/BatchNewX509SVIDResponse.js';
import type { MintJWTSVIDRequest as _spire_api_server_svid_v1_MintJWTSVIDRequest, MintJWTSVIDRequest__Output as _spire_api_server_svid_v1_MintJWTSVIDRequest__Output } from '../../../../../spire/api/server/svid/v1/MintJWTSVIDRequest.js';
import type { MintJWTSVIDResponse as _spire_api_server_svid_v1_MintJWTSVIDResponse, MintJWTSVIDResponse__Output as _spire_api_server_svid_v1_MintJWTSVIDResponse__Output } from '../../../../../spire/api/server/svid/v1/MintJWTSVIDResponse.js';
import type { MintWITSVIDRequest as _spire_api_server_svid_v1_MintWITSVIDRequest, MintWITSVIDRequest__Output as _spire_api_server_svid_v1_MintWITSVIDRequest__Output } from '../../../../../spire/api/server/svid/v1/MintWITSVIDRequest.js';
import type { MintWITSVIDResponse as _spire_api_server_svid_v1_MintWITSVIDResponse, MintWITSVIDResponse__Output as _spire_api_server_svid_v1_MintWITSVIDResponse__Output } from '../../../../../spire/api/server/svid/v1/MintWITSVIDResponse.js';
import type { MintX509SVIDRequest as _spire_api_server_svid_v1_MintX509SVIDRequest, MintX509SVIDRequest__Output as _spire_api_server_svid_v1_MintX509SVIDRequest__Output } from '../../../../../spire/api/server/svid/v1/MintX509SVIDRequest.js';
import type { MintX509SVIDResponse as _spire_api_server_svid_v1_MintX509SVIDResponse, MintX509SVIDResponse__Output as _spire_api_server_svid_v1_MintX509SVIDResponse__Output } from '../../../../../spire/api/server/svid/v1/MintX509SVIDResponse.js';
import type { NewDownstreamX509CARequest as _spire_api_server_svid_v1_NewDownstreamX509CARequest, NewDownstreamX509CARequest__Output as _spire_api_server_svid_v1_NewDownstreamX509CARequest__Output } from '../../../../../spire/api/server/svid/v1/NewDownstreamX509CARequest.js';
import type { NewDownstreamX509CAResponse as _spire_api_server_svid_v1_NewDownstreamX509CAResponse, NewDownstreamX509CAResponse__Output as _spire_api_server_svid_v1_NewDownstreamX509CAResponse__Output } from '../../../../../spire/api/server/svid/v1/NewDownstreamX509CAResponse.js';
import type { NewJWTSVIDRequest as _spire_api_server_svid_v1_NewJWTSVIDRequest, NewJWTSVIDRequest__Output as _spire_api_server_svid_v1_NewJWTSVIDRequest__Output } from '../../../../../spire/api/server/svid/v1/NewJWTSVIDRequest.js';
import type { NewJWTSVIDResponse as _spire_api_server_svid_v1_NewJWTSVIDResponse, NewJWTSVIDResponse__Output as _spire_api_server_svid_v1_NewJWTSVIDResponse__Output } from '../../../../../spire/api/server/svid/v1/NewJWTSVIDResponse.js';

export interface SVIDClient extends grpc.Client {
  BatchNewWITSVID(argument: _spire_api_server_svid_v1_BatchNewWITSVIDRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  BatchNewWITSVID(argument: _spire_api_server_svid_v1_BatchNewWITSVIDRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  BatchNewWITSVID(argument: _spire_api_server_svid_v1_BatchNewWITSVIDRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  BatchNewWITSVID(argument: _spire_api_server_svid_v1_BatchNewWITSVIDRequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  batchNewWitsvid(argument: _spire_api_server_svid_v1_BatchNewWITSVIDRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  batchNewWitsvid(argument: _spire_api_server_svid_v1_BatchNewWITSVIDRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  batchNewWitsvid(argument: _spire_api_server_svid_v1_BatchNewWITSVIDRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  batchNewWitsvid(argument: _spire_api_server_svid_v1_BatchNewWITSVIDRequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  
  BatchNewX509SVID(argument: _spire_api_server_svid_v1_BatchNewX509SVIDRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  BatchNewX509SVID(argument: _spire_api_server_svid_v1_BatchNewX509SVIDRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  BatchNewX509SVID(argument: _spire_api_server_svid_v1_BatchNewX509SVIDRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  BatchNewX509SVID(argument: _spire_api_server_svid_v1_BatchNewX509SVIDRequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  batchNewX509Svid(argument: _spire_api_server_svid_v1_BatchNewX509SVIDRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  batchNewX509Svid(argument: _spire_api_server_svid_v1_BatchNewX509SVIDRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  batchNewX509Svid(argument: _spire_api_server_svid_v1_BatchNewX509SVIDRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  batchNewX509Svid(argument: _spire_api_server_svid_v1_BatchNewX509SVIDRequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_BatchNewX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  
  MintJWTSVID(argument: _spire_api_server_svid_v1_MintJWTSVIDRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  MintJWTSVID(argument: _spire_api_server_svid_v1_MintJWTSVIDRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  MintJWTSVID(argument: _spire_api_server_svid_v1_MintJWTSVIDRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  MintJWTSVID(argument: _spire_api_server_svid_v1_MintJWTSVIDRequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  mintJwtsvid(argument: _spire_api_server_svid_v1_MintJWTSVIDRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  mintJwtsvid(argument: _spire_api_server_svid_v1_MintJWTSVIDRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  mintJwtsvid(argument: _spire_api_server_svid_v1_MintJWTSVIDRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  mintJwtsvid(argument: _spire_api_server_svid_v1_MintJWTSVIDRequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  
  MintWITSVID(argument: _spire_api_server_svid_v1_MintWITSVIDRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  MintWITSVID(argument: _spire_api_server_svid_v1_MintWITSVIDRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  MintWITSVID(argument: _spire_api_server_svid_v1_MintWITSVIDRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  MintWITSVID(argument: _spire_api_server_svid_v1_MintWITSVIDRequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  mintWitsvid(argument: _spire_api_server_svid_v1_MintWITSVIDRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  mintWitsvid(argument: _spire_api_server_svid_v1_MintWITSVIDRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  mintWitsvid(argument: _spire_api_server_svid_v1_MintWITSVIDRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  mintWitsvid(argument: _spire_api_server_svid_v1_MintWITSVIDRequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintWITSVIDResponse__Output>): grpc.ClientUnaryCall;
  
  MintX509SVID(argument: _spire_api_server_svid_v1_MintX509SVIDRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  MintX509SVID(argument: _spire_api_server_svid_v1_MintX509SVIDRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  MintX509SVID(argument: _spire_api_server_svid_v1_MintX509SVIDRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  MintX509SVID(argument: _spire_api_server_svid_v1_MintX509SVIDRequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  mintX509Svid(argument: _spire_api_server_svid_v1_MintX509SVIDRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  mintX509Svid(argument: _spire_api_server_svid_v1_MintX509SVIDRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  mintX509Svid(argument: _spire_api_server_svid_v1_MintX509SVIDRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  mintX509Svid(argument: _spire_api_server_svid_v1_MintX509SVIDRequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_MintX509SVIDResponse__Output>): grpc.ClientUnaryCall;
  
  NewDownstreamX509CA(argument: _spire_api_server_svid_v1_NewDownstreamX509CARequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewDownstreamX509CAResponse__Output>): grpc.ClientUnaryCall;
  NewDownstreamX509CA(argument: _spire_api_server_svid_v1_NewDownstreamX509CARequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewDownstreamX509CAResponse__Output>): grpc.ClientUnaryCall;
  NewDownstreamX509CA(argument: _spire_api_server_svid_v1_NewDownstreamX509CARequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewDownstreamX509CAResponse__Output>): grpc.ClientUnaryCall;
  NewDownstreamX509CA(argument: _spire_api_server_svid_v1_NewDownstreamX509CARequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewDownstreamX509CAResponse__Output>): grpc.ClientUnaryCall;
  newDownstreamX509Ca(argument: _spire_api_server_svid_v1_NewDownstreamX509CARequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewDownstreamX509CAResponse__Output>): grpc.ClientUnaryCall;
  newDownstreamX509Ca(argument: _spire_api_server_svid_v1_NewDownstreamX509CARequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewDownstreamX509CAResponse__Output>): grpc.ClientUnaryCall;
  newDownstreamX509Ca(argument: _spire_api_server_svid_v1_NewDownstreamX509CARequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewDownstreamX509CAResponse__Output>): grpc.ClientUnaryCall;
  newDownstreamX509Ca(argument: _spire_api_server_svid_v1_NewDownstreamX509CARequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewDownstreamX509CAResponse__Output>): grpc.ClientUnaryCall;
  
  NewJWTSVID(argument: _spire_api_server_svid_v1_NewJWTSVIDRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  NewJWTSVID(argument: _spire_api_server_svid_v1_NewJWTSVIDRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  NewJWTSVID(argument: _spire_api_server_svid_v1_NewJWTSVIDRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  NewJWTSVID(argument: _spire_api_server_svid_v1_NewJWTSVIDRequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  newJwtsvid(argument: _spire_api_server_svid_v1_NewJWTSVIDRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  newJwtsvid(argument: _spire_api_server_svid_v1_NewJWTSVIDRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  newJwtsvid(argument: _spire_api_server_svid_v1_NewJWTSVIDRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  newJwtsvid(argument: _spire_api_server_svid_v1_NewJWTSVIDRequest, callback: grpc.requestCallback<_spire_api_server_svid_v1_NewJWTSVIDResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface SVIDHandlers extends grpc.UntypedServiceImplementation {
  BatchNewWITSVID: grpc.handleUnaryCall<_spire_api_server_svid_v1_BatchNewWITSVIDRequest__Output, _spire_api_server_svid_v1_BatchNewWITSVIDResponse>;
  
  BatchNewX509SVID: grpc.handleUnaryCall<_spire_api_server_svid_v1_BatchNewX509SVIDRequest__Output, _spire_api_server_svid_v1_BatchNewX509SVIDResponse>;
  
  MintJWTSVID: grpc.handleUnaryCall<_spire_api_server_svid_v1_MintJWTSVIDRequest__Output, _spire_api_server_svid_v1_MintJWTSVIDResponse>;
  
  MintWITSVID: grpc.handleUnaryCall<_spire_api_server_svid_v1_MintWITSVIDRequest__Output, _spire_api_server_svid_v1_MintWITSVIDResponse>;
  
  MintX509SVID: grpc.handleUnaryCall<_spire_api_server_svid_v1_MintX509SVIDRequest__Output, _spire_api_server_svid_v1_MintX509SVIDResponse>;
  
  NewDownstreamX509CA: grpc.handleUnaryCall<_spire_api_server_svid_v1_NewDownstreamX509CARequest__Output, _spire_api_server_svid_v1_NewDownstreamX509CAResponse>;
  
  NewJWTSVID: grpc.handleUnaryCall<_spire_api_server_svid_v1_NewJWTSVIDRequest__Output, _spire_api_server_svid_v1_NewJWTSVIDResponse>;
  
}

export interface SVIDDefinition extends grpc.ServiceDefinition {
  BatchNewWITSVID: MethodDefinition<_spire_api_server_svid_v1_BatchNewWITSVIDRequest, _spire_api_server_svid_v1_BatchNewWITSVIDResponse, _spire_api_server_svid_v1_BatchNewWITSVIDRequest__Output, _spire_api_server_svid_v1_BatchNewWITSVIDResponse__Output>
  BatchNewX509SVID: MethodDefinition<_spire_api_server_svid_v1_BatchNewX509SVIDRequest, _spire_api_server_svid_v1_BatchNewX509SVIDResponse, _spire_api_server_svid_v1_BatchNewX509SVIDRequest__Output, _spire_api_server_svid_v1_BatchNewX509SVIDResponse__Output>
  MintJWTSVID: MethodDefinition<_spire_api_server_svid_v1_MintJWTSVIDRequest, _spire_api_server_svid_v1_MintJWTSVIDResponse, _spire_api_server_svid_v1_MintJWTSVIDRequest__Output, _spire_api_server_svid_v1_MintJWTSVIDResponse__Output>
  MintWITSVID: MethodDefinition<_spire_api_server_svid_v1_MintWITSVIDRequest, _spire_api_server_svid_v1_MintWITSVIDResponse, _spire_api_server_svid_v1_MintWITSVIDRequest__Output, _spire_api_server_svid_v1_MintWITSVIDResponse__Output>
  MintX509SVID: MethodDefinition<_spire_api_server_svid_v1_MintX509SVIDRequest, _spire_api_server_svid_v1_MintX509SVIDResponse, _spire_api_server_svid_v1_MintX509SVIDRequest__Output, _spire_api_server_svid_v1_MintX509SVIDResponse__Output>
  NewDownstreamX509CA: MethodDefinition<_spire_api_server_svid_v1_NewDownstreamX509CARequest, _spire_api_server_svid_v1_NewDownstreamX509CAResponse, _spire_api_server_svid_v1_NewDownstreamX509CARequest__Output, _spire_api_server_svid_v1_NewDownstreamX509CAResponse__Output>
  NewJWTSVID: MethodDefinition<_spire_api_server_svid_v1_NewJWTSVIDRequest, _spire_api_server_svid_v1_NewJWTSVIDResponse, _spire_api_server_svid_v1_NewJWTSVIDRequest__Output, _spire_api_server_svid_v1_NewJWTSVIDResponse__Output>
}
