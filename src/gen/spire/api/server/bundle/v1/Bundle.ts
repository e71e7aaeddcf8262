// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AppendBundleRequest as _spire_api_server_bundle_v1_AppendBundleRequest, AppendBundleRequest__Output as _spire_api_server_bundle_v1_AppendBundleRequest__Output } from '../../../../../spire/api/server/bundle/v1/AppendBundleRequest.js';
import type { BatchCreateFederatedBundleRequest as _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest, BatchCreateFederatedBundleRequest__Output as _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest__Output } from '../../../../../spire/api/server/bundle/v1/BatchCreateFederatedBundleRequest.js';
import type { BatchCreateFederatedBundleResponse as _spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse, BatchCreateFederatedBundleResponse__Output as _spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse__Output } from '../../../../../spire/api/server/bundle/v1/BatchCreateFederatedBundleResponse.js';
import type { BatchDeleteFederatedBundleRequest as _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest, BatchDeleteFederatedBundleRequest__Output as _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest__Output } from '../../../../../spire/api/server/bundle/v1/BatchDeleteFederatedBundleRequest.js';
import type { BatchDeleteFederatedBundleResponse as _spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse, BatchDeleteFederatedBundleResponse__Output as _spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse__Output } from '../../../../../spire/api/server/bundle/v1/BatchDeleteFederatedBundleResponse.js';
import type { BatchSetFederatedBundleRequest as _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest, BatchSetFederatedBundleRequest__Output as _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest__Output } from '../../../../../spire/api/server/bundle/v1/BatchSetFederatedBundleRequest.js';
import type { BatchSetFederatedBundleResponse as _spire_api_server_bundle_v1_BatchSetFederatedBundleResponse, BatchSetFederatedBundleResponse__Output as _spire_api_server_bundle_v1_BatchSetFederatedBundleResponse__Output } from '../../../../../spire/api/server/bundle/v1/BatchSetFederatedBundleResponse.js';
import type { BatchUpdateFederatedBundleRequest as _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest, BatchUpdateFederatedBundleRequest__Output as _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest__Output } from '../../../../../spire/api/server/bundle/v1/BatchUpdateFederatedBundleRequest.js';
import type { BatchUpdateFederatedBundleResponse as _spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse, BatchUpdateFederatedBundleResponse__Output as _spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse__Output } from '../../../../../spire/api/server/bundle/v1/BatchUpdateFederatedBundleResponse.js';
import type { Bundle as _spire_api_types_Bundle, Bundle__Output as _spire_api_types_Bundle__Output } from '../../../../../spire/api/types/Bundle.js';
import type { CountBundlesRequest as _spire_api_server_bundle_v1_CountBundlesRequest, CountBundlesRequest__Output as _spire_api_server_bundle_v1_CountBundlesRequest__Output } from '../../../../../spire/api/server/bundle/v1/CountBundlesRequest.js';
import type { CountBundlesResponse as _spire_api_server_bundle_v1_CountBundlesResponse, CountBundlesResponse__Output as _spire_api_server_bundle_v1_CountBundlesResponse__Output } from '../../../../../spire/api/server/bundle/v1/CountBundlesResponse.js';
import type { GetBundleRequest as _spire_api_server_bundle_v1_GetBundleRequest, GetBundleRequest__Output as _spire_api_server_bundle_v1_GetBundleRequest__Output } from '../../../../../spire/api/server/bundle/v1/GetBundleRequest.js';
import type { GetFederatedBundleRequest as _spire_api_server_bundle_v1_GetFederatedBundleRequest, GetFederatedBundleRequest__Output as _spire_api_server_bundle_v1_GetFederatedBundleRequest__Output } from '../../../../../spire/api/server/bundle/v1/GetFederatedBundleRequest.js';
import type { ListFederatedBundlesRequest as _spire_api_server_bundle_v1_ListFederatedBundlesRequest, ListFederatedBundlesRequest__Output as _spire_api_server_bundle_v1_ListFederatedBundlesRequest__Output } from '../../../../../spire/api/server/bundle/v1/ListFederatedBundlesRequest.js';
import type { ListFederatedBundlesResponse as _spire_api_server_bundle_v1_ListFederatedBundlesResponse, ListFederatedBundlesResponse__Output as _spire_api_server_bundle_v1_ListFederatedBundlesResponse__Output } from '../../../../../spire/api/server/bundle/v1/ListFederatedBundlesResponse.js';
import type { PublishJWTAuthorityRequest as _spire_api_server_bundle_v1_PublishJWTAuthorityRequest, PublishJWTAuthorityRequest__Output as _spire_api_server_bundle_v1_PublishJWTAuthorityRequest__Output } from '../../../../../spire/api/server/bundle/v1/PublishJWTAuthorityRequest.js';
import type { PublishJWTAuthorityResponse as _spire_api_server_bundle_v1_PublishJWTAuthorityResponse, PublishJWTAuthorityResponse__Output as _spire_api_server_bundle_v1_PublishJWTAuthorityResponse__Output } from '../../../../../spire/api/server/bundle/v1/PublishJWTAuthorityResponse.js';
import type { PublishWITAuthorityRequest as _spire_api_server_bundle_v1_PublishWITAuthorityRequest, PublishWITAuthorityRequest__Output as _spire_api_server_bundle_v1_PublishWITAuthorityRequest__Output } from '../../../../../spire/api/server/bundle/v1/PublishWITAuthorityRequest.js';
import type { PublishWITAuthorityResponse as _spire_api_server_bundle_v1_PublishWITAuthorityResponse, PublishWITAuthorityResponse__Output as _spire_api_server_bundle_v1_PublishWITAuthorityResponse__Output } from '../../../../../spire/api/server/bundle/v1/PublishWITAuthorityResponse.js';

export interface BundleClient extends grpc.Client {
  AppendBundle(argument: _spire_api_server_bundle_v1_AppendBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  AppendBundle(argument: _spire_api_server_bundle_v1_AppendBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  AppendBundle(argument: _spire_api_server_bundle_v1_AppendBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  AppendBundle(argument: _spire_api_server_bundle_v1_AppendBundleRequest, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  appendBundle(argument: _spire_api_server_bundle_v1_AppendBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  appendBundle(argument: _spire_api_server_bundle_v1_AppendBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  appendBundle(argument: _spire_api_server_bundle_v1_AppendBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  appendBundle(argument: _spire_api_server_bundle_v1_AppendBundleRequest, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  
  BatchCreateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  BatchCreateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  BatchCreateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  BatchCreateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchCreateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchCreateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchCreateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchCreateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  
  BatchDeleteFederatedBundle(argument: _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  BatchDeleteFederatedBundle(argument: _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  BatchDeleteFederatedBundle(argument: _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  BatchDeleteFederatedBundle(argument: _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchDeleteFederatedBundle(argument: _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchDeleteFederatedBundle(argument: _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchDeleteFederatedBundle(argument: _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchDeleteFederatedBundle(argument: _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  
  BatchSetFederatedBundle(argument: _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchSetFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  BatchSetFederatedBundle(argument: _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchSetFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  BatchSetFederatedBundle(argument: _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchSetFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  BatchSetFederatedBundle(argument: _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchSetFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchSetFederatedBundle(argument: _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchSetFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchSetFederatedBundle(argument: _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchSetFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchSetFederatedBundle(argument: _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchSetFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchSetFederatedBundle(argument: _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchSetFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  
  BatchUpdateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  BatchUpdateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  BatchUpdateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  BatchUpdateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchUpdateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchUpdateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchUpdateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  batchUpdateFederatedBundle(argument: _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse__Output>): grpc.ClientUnaryCall;
  
  CountBundles(argument: _spire_api_server_bundle_v1_CountBundlesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_CountBundlesResponse__Output>): grpc.ClientUnaryCall;
  CountBundles(argument: _spire_api_server_bundle_v1_CountBundlesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_CountBundlesResponse__Output>): grpc.ClientUnaryCall;
  CountBundles(argument: _spire_api_server_bundle_v1_CountBundlesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_CountBundlesResponse__Output>): grpc.ClientUnaryCall;
  CountBundles(argument: _spire_api_server_bundle_v1_CountBundlesRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_CountBundlesResponse__Output>): grpc.ClientUnaryCall;
  countBundles(argument: _spire_api_server_bundle_v1_CountBundlesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_CountBundlesResponse__Output>): grpc.ClientUnaryCall;
  countBundles(argument: _spire_api_server_bundle_v1_CountBundlesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_CountBundlesResponse__Output>): grpc.ClientUnaryCall;
  countBundles(argument: _spire_api_server_bundle_v1_CountBundlesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_CountBundlesResponse__Output>): grpc.ClientUnaryCall;
  countBundles(argument: _spire_api_server_bundle_v1_CountBundlesRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_CountBundlesResponse__Output>): grpc.ClientUnaryCall;
  
  GetBundle(argument: _spire_api_server_bundle_v1_GetBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  GetBundle(argument: _spire_api_server_bundle_v1_GetBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  GetBundle(argument: _spire_api_server_bundle_v1_GetBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  GetBundle(argument: _spire_api_server_bundle_v1_GetBundleRequest, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  getBundle(argument: _spire_api_server_bundle_v1_GetBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  getBundle(argument: _spire_api_server_bundle_v1_GetBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  getBundle(argument: _spire_api_server_bundle_v1_GetBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  getBundle(argument: _spire_api_server_bundle_v1_GetBundleRequest, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  
  GetFederatedBundle(argument: _spire_api_server_bundle_v1_GetFederatedBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  GetFederatedBundle(argument: _spire_api_server_bundle_v1_GetFederatedBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  GetFederatedBundle(argument: _spire_api_server_bundle_v1_GetFederatedBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  GetFederatedBundle(argument: _spire_api_server_bundle_v1_GetFederatedBundleRequest, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  getFederatedBundle(argument: _spire_api_server_bundle_v1_GetFederatedBundleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  getFederatedBundle(argument: _spire_api_server_bundle_v1_GetFederatedBundleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  getFederatedBundle(argument: _spire_api_server_bundle_v1_GetFederatedBundleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  getFederatedBundle(argument: _spire_api_server_bundle_v1_GetFederatedBundleRequest, callback: grpc.requestCallback<_spire_api_types_Bundle__Output>): grpc.ClientUnaryCall;
  
  ListFederatedBundles(argument: _spire_api_server_bundle_v1_ListFederatedBundlesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_ListFederatedBundlesResponse__Output>): grpc.ClientUnaryCall;
  ListFederatedBundles(argument: _spire_api_server_bundle_v1_ListFederatedBundlesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_ListFederatedBundlesResponse__Output>): grpc.ClientUnaryCall;
  ListFederatedBundles(argument: _spire_api_server_bundle_v1_ListFederatedBundlesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_ListFederatedBundlesResponse__Output>): grpc.ClientUnaryCall;
  ListFederatedBundles(argument: _spire_api_server_bundle_v1_ListFederatedBundlesRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_ListFederatedBundlesResponse__Output>): grpc.ClientUnaryCall;
  listFederatedBundles(argument: _spire_api_server_bundle_v1_ListFederatedBundlesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_ListFederatedBundlesResponse__Output>): grpc.ClientUnaryCall;
  listFederatedBundles(argument: _spire_api_server_bundle_v1_ListFederatedBundlesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_ListFederatedBundlesResponse__Output>): grpc.ClientUnaryCall;
  listFederatedBundles(argument: _spire_api_server_bundle_v1_ListFederatedBundlesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_ListFederatedBundlesResponse__Output>): grpc.ClientUnaryCall;
  listFederatedBundles(argument: _spire_api_server_bundle_v1_ListFederatedBundlesRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_ListFederatedBundlesResponse__Output>): grpc.ClientUnaryCall;
  
  PublishJWTAuthority(argument: _spire_api_server_bundle_v1_PublishJWTAuthorityRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishJWTAuthorityResponse__Output>): grpc.ClientUnaryCall;
  PublishJWTAuthority(argument: _spire_api_server_bundle_v1_PublishJWTAuthorityRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishJWTAuthorityResponse__Output>): grpc.ClientUnaryCall;
  PublishJWTAuthority(argument: _spire_api_server_bundle_v1_PublishJWTAuthorityRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishJWTAuthorityResponse__Output>): grpc.ClientUnaryCall;
  PublishJWTAuthority(argument: _spire_api_server_bundle_v1_PublishJWTAuthorityRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishJWTAuthorityResponse__Output>): grpc.ClientUnaryCall;
  publishJwtAuthority(argument: _spire_api_server_bundle_v1_PublishJWTAuthorityRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishJWTAuthorityResponse__Output>): grpc.ClientUnaryCall;
  publishJwtAuthority(argument: _spire_api_server_bundle_v1_PublishJWTAuthorityRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishJWTAuthorityResponse__Output>): grpc.ClientUnaryCall;
  publishJwtAuthority(argument: _spire_api_server_bundle_v1_PublishJWTAuthorityRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishJWTAuthorityResponse__Output>): grpc.ClientUnaryCall;
  publishJwtAuthority(argument: _spire_api_server_bundle_v1_PublishJWTAuthorityRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishJWTAuthorityResponse__Output>): grpc.ClientUnaryCall;
  
  PublishWITAuthority(argument: _spire_api_server_bundle_v1_PublishWITAuthorityRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishWITAuthorityResponse__Output>): grpc.ClientUnaryCall;
  PublishWITAuthority(argument: _spire_api_server_bundle_v1_PublishWITAuthorityRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishWITAuthorityResponse__Output>): grpc.ClientUnaryCall;
  PublishWITAuthority(argument: _spire_api_server_bundle_v1_PublishWITAuthorityRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishWITAuthorityResponse__Output>): grpc.ClientUnaryCall;
  PublishWITAuthority(argument: _spire_api_server_bundle_v1_PublishWITAuthorityRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishWITAuthorityResponse__Output>): grpc.ClientUnaryCall;
  publishWitAuthority(argument: _spire_api_server_bundle_v1_PublishWITAuthorityRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishWITAuthorityResponse__Output>): grpc.ClientUnaryCall;
  publishWitAuthority(argument: _spire_api_server_bundle_v1_PublishWITAuthorityRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishWITAuthorityResponse__Output>): grpc.ClientUnaryCall;
  publishWitAuthority(argument: _spire_api_server_bundle_v1_PublishWITAuthorityRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishWITAuthorityResponse__Output>): grpc.ClientUnaryCall;
  publishWitAuthority(argument: _spire_api_server_bundle_v1_PublishWITAuthorityRequest, callback: grpc.requestCallback<_spire_api_server_bundle_v1_PublishWITAuthorityResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface BundleHandlers extends grpc.UntypedServiceImplementation {
  AppendBundle: grpc.handleUnaryCall<_spire_api_server_bundle_v1_AppendBundleRequest__Output, _spire_api_types_Bundle>;
  
  BatchCreateFederatedBundle: grpc.handleUnaryCall<_spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest__Output, _spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse>;
  
  BatchDeleteFederatedBundle: grpc.handleUnaryCall<_spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest__Output, _spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse>;
  
  BatchSetFederatedBundle: grpc.handleUnaryCall<_spire_api_server_bundle_v1_BatchSetFederatedBundleRequest__Output, _spire_api_server_bundle_v1_BatchSetFederatedBundleResponse>;
  
  BatchUpdateFederatedBundle: grpc.handleUnaryCall<_spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest__Output, _spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse>;
  
  CountBundles: grpc.handleUnaryCall<_spire_api_server_bundle_v1_CountBundlesRequest__Output, _spire_api_server_bundle_v1_CountBundlesResponse>;
  
  GetBundle: grpc.handleUnaryCall<_spire_api_server_bundle_v1_GetBundleRequest__Output, _spire_api_types_Bundle>;
  
  GetFederatedBundle: grpc.handleUnaryCall<_spire_api_server_bundle_v1_GetFederatedBundleRequest__Output, _spire_api_types_Bundle>;
  
  ListFederatedBundles: grpc.handleUnaryCall<_spire_api_server_bundle_v1_ListFederatedBundlesRequest__Output, _spire_api_server_bundle_v1_ListFederatedBundlesResponse>;
  
  PublishJWTAuthority: grpc.handleUnaryCall<_spire_api_server_bundle_v1_PublishJWTAuthorityRequest__Output, _spire_api_server_bundle_v1_PublishJWTAuthorityResponse>;
  
  PublishWITAuthority: grpc.handleUnaryCall<_spire_api_server_bundle_v1_PublishWITAuthorityRequest__Output, _spire_api_server_bundle_v1_PublishWITAuthorityResponse>;
  
}

export interface BundleDefinition extends grpc.ServiceDefinition {
  AppendBundle: MethodDefinition<_spire_api_server_bundle_v1_AppendBundleRequest, _spire_api_types_Bundle, _spire_api_server_bundle_v1_AppendBundleRequest__Output, _spire_api_types_Bundle__Output>
  BatchCreateFederatedBundle: MethodDefinition<_spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest, _spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse, _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest__Output, _spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse__Output>
  BatchDeleteFederatedBundle: MethodDefinition<_spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest, _spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse, _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest__Output, _spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse__Output>
  BatchSetFederatedBundle: MethodDefinition<_spire_api_server_bundle_v1_BatchSetFederatedBundleRequest, _spire_api_server_bundle_v1_BatchSetFederatedBundleResponse, _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest__Output, _spire_api_server_bundle_v1_BatchSetFederatedBundleResponse__Output>
  BatchUpdateFederatedBundle: MethodDefinition<_spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest, _spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse, _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest__Output, _spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse__Output>
  CountBundles: MethodDefinition<_spire_api_server_bundle_v1_CountBundlesRequest, _spire_api_server_bundle_v1_CountBundlesResponse, _spire_api_server_bundle_v1_CountBundlesRequest__Output, _spire_api_server_bundle_v1_CountBundlesResponse__Output>
  GetBundle: MethodDefinition<_spire_api_server_bundle_v1_GetBundleRequest, _spire_api_types_Bundle, _spire_api_server_bundle_v1_GetBundleRequest__Output, _spire_api_types_Bundle__Output>
  GetFederatedBundle: MethodDefinition<_spire_api_server_bundle_v1_GetFederatedBundleRequest, _spire_api_types_Bundle, _spire_api_server_bundle_v1_GetFederatedBundleRequest__Output, _spire_api_types_Bundle__Output>
  ListFederatedBundles: MethodDefinition<_spire_api_server_bundle_v1_ListFederatedBundlesRequest, _spire_api_server_bundle_v1_ListFederatedBundlesResponse, _spire_api_server_bundle_v1_ListFederatedBundlesRequest__Output, _spire_api_server_bundle_v1_ListFederatedBundlesResponse__Output>
  PublishJWTAuthority: MethodDefinition<_spire_api_server_bundle_v1_PublishJWTAuthorityRequest, _spire_api_server_bundle_v1_PublishJWTAuthorityResponse, _spire_api_server_bundle_v1_PublishJWTAuthorityRequest__Output, _spire_api_server_bundle_v1_PublishJWTAuthorityResponse__Output>
  PublishWITAuthority: MethodDefinition<_spire_api_server_bundle_v1_PublishWITAuthorityRequest, _spire_api_server_bundle_v1_PublishWITAuthorityResponse, _spire_api_server_bundle_v1_PublishWITAuthorityRequest__Output, _spire_api_server_bundle_v1_PublishWITAuthorityResponse__Output>
}
