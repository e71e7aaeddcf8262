// Original file: proto/spire/api/server/entry/v1/entry.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { BatchCreateEntryRequest as _spire_api_server_entry_v1_BatchCreateEntryRequest, BatchCreateEntryRequest__Output as _spire_api_server_entry_v1_BatchCreateEntryRequest__Output } from '../../../../../spire/api/server/entry/v1/BatchCreateEntryRequest.js';
import type { BatchCreateEntryResponse as _spire_api_server_entry_v1_BatchCreateEntryResponse, BatchCreateEntryResponse__Output as _spire_api_server_entry_v1_BatchCreateEntryResponse__Output } from '../../../../../spire/api/server/entry/v1/BatchCreateEntryResponse.js';
import type { BatchDeleteEntryRequest as _spire_api_server_entry_v1_BatchDeleteEntryRequest, BatchDeleteEntryRequest__Output as _spire_api_server_entry_v1_BatchDeleteEntryRequest__Output } from '../../../../../spire/api/server/entry/v1/BatchDeleteEntryRequest.js';
import type { BatchDeleteEntryResponse as _spire_api_server_entry_v1_BatchDeleteEntryResponse, BatchDeleteEntryResponse__Output as _spire_api_server_entry_v1_BatchDeleteEntryResponse__Output } from '../../../../../spire/api/server/entry/v1/BatchDeleteEntryResponse.js';
import type { BatchUpdateEntryRequest as _spire_api_server_entry_v1_BatchUpdateEntryRequest, BatchUpdateEntryRequest__Output as _spire_api_server_entry_v1_BatchUpdateEntryRequest__Output } from '../../../../../spire/api/server/entry/v1/BatchUpdateEntryRequest.js';
import type { BatchUpdateEntryResponse as _spire_api_server_entry_v1_BatchUpdateEntryResponse, BatchUpdateEntryResponse__Output as _spire_api_server_entry_v1_BatchUpdateEntryResponse__Output } from '../../../../../spire/api/server/entry/v1/BatchUpdateEntryResponse.js';
import type { CountEntriesRequest as _spire_api_server_entry_v1_CountEntriesRequest, CountEntriesRequest__Output as _spire_api_server_entry_v1_CountEntriesRequest__Output } from '../../../../../spire/api/server/entry/v1/CountEntriesRequest.js';
import type { CountEntriesResponse as _spire_api_server_entry_v1_CountEntriesResponse, CountEntriesResponse__Output as _spire_api_server_entry_v1_CountEntriesResponse__Output } from '../../../../../spire/api/server/entry/v1/CountEntriesResponse.js';
import type { Entry as _spire_api_types_Entry, Entry__Output as _spire_api_types_Entry__Output } from '../../../../../spire/api/types/Entry.js';
import type { GetAuthorizedEntriesRequest as _spire_api_server_entry_v1_GetAuthorizedEntriesRequest, GetAuthorizedEntriesRequest__Output as _spire_api_server_entry_v1_GetAuthorizedEntriesRequest__Output } from '../../../../../spire/api/server/entry/v1/GetAuthorizedEntriesRequest.js';
import type { GetAuthorizedEntriesResponse as _spire_api_server_entry_v1_GetAuthorizedEntriesResponse, GetAuthorizedEntriesResponse__Output as _spire_api_server_entry_v1_GetAuthorizedEntriesResponse__Output } from '../../../../../spire/api/server/entry/v1/GetAuthorizedEntriesResponse.js';
import type { GetEntryRequest as _spire_api_server_entry_v1_GetEntryRequest, GetEntryRequest__Output as _spire_api_server_entry_v1_GetEntryRequest__Output } from '../../../../../spire/api/server/entry/v1/GetEntryRequest.js';
import type { ListEntriesRequest as _spire_api_server_entry_v1_ListEntriesRequest, ListEntriesRequest__Output as _spire_api_server_entry_v1_ListEntriesRequest__Output } from '../../../../../spire/api/server/entry/v1/ListEntriesRequest.js';
import type { ListEntriesResponse as _spire_api_server_entry_v1_ListEntriesResponse, ListEntriesResponse__Output as _spire_api_server_entry_v1_ListEntriesResponse__Output } from '../../../../../spire/api/server/entry/v1/ListEntriesResponse.js';
import type { SyncAuthorizedEntriesRequest as _spire_api_server_entry_v1_SyncAuthorizedEntriesRequest, SyncAuthorizedEntriesRequest__Output as _spire_api_server_entry_v1_SyncAuthorizedEntriesRequest__Output } from '../../../../../spire/api/server/entry/v1/SyncAuthorizedEntriesRequest.js';
import type { SyncAuthorizedEntriesResponse as _spire_api_server_entry_v1_SyncAuthorizedEntriesResponse, SyncAuthorizedEntriesResponse__Output as _spire_api_server_entry_v1_SyncAuthorizedEntriesResponse__Output } from '../../../../../spire/api/server/entry/v1/SyncAuthorizedEntriesResponse.js';

export interface EntryClient extends grpc.Client {
  BatchCreateEntry(argument: _spire_api_server_entry_v1_BatchCreateEntryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchCreateEntryResponse__Output>): grpc.ClientUnaryCall;
  BatchCreateEntry(argument: _spire_api_server_entry_v1_BatchCreateEntryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchCreateEntryResponse__Output>): grpc.ClientUnaryCall;
  BatchCreateEntry(argument: _spire_api_server_entry_v1_BatchCreateEntryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchCreateEntryResponse__Output>): grpc.ClientUnaryCall;
  BatchCreateEntry(argument: _spire_api_server_entry_v1_BatchCreateEntryRequest, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchCreateEntryResponse__Output>): grpc.ClientUnaryCall;
  batchCreateEntry(argument: _spire_api_server_entry_v1_BatchCreateEntryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchCreateEntryResponse__Output>): grpc.ClientUnaryCall;
  batchCreateEntry(argument: _spire_api_server_entry_v1_BatchCreateEntryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchCreateEntryResponse__Output>): grpc.ClientUnaryCall;
  batchCreateEntry(argument: _spire_api_server_entry_v1_BatchCreateEntryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchCreateEntryResponse__Output>): grpc.ClientUnaryCall;
  batchCreateEntry(argument: _spire_api_server_entry_v1_BatchCreateEntryRequest, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchCreateEntryResponse__Output>): grpc.ClientUnaryCall;
  
  BatchDeleteEntry(argument: _spire_api_server_entry_v1_BatchDeleteEntryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchDeleteEntryResponse__Output>): grpc.ClientUnaryCall;
  BatchDeleteEntry(argument: _spire_api_server_entry_v1_BatchDeleteEntryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchDeleteEntryResponse__Output>): grpc.ClientUnaryCall;
  BatchDeleteEntry(argument: _spire_api_server_entry_v1_BatchDeleteEntryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchDeleteEntryResponse__Output>): grpc.ClientUnaryCall;
  BatchDeleteEntry(argument: _spire_api_server_entry_v1_BatchDeleteEntryRequest, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchDeleteEntryResponse__Output>): grpc.ClientUnaryCall;
  batchDeleteEntry(argument: _spire_api_server_entry_v1_BatchDeleteEntryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchDeleteEntryResponse__Output>): grpc.ClientUnaryCall;
  batchDeleteEntry(argument: _spire_api_server_entry_v1_BatchDeleteEntryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchDeleteEntryResponse__Output>): grpc.ClientUnaryCall;
  batchDeleteEntry(argument: _spire_api_server_entry_v1_BatchDeleteEntryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchDeleteEntryResponse__Output>): grpc.ClientUnaryCall;
  batchDeleteEntry(argument: _spire_api_server_entry_v1_BatchDeleteEntryRequest, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchDeleteEntryResponse__Output>): grpc.ClientUnaryCall;
  
  BatchUpdateEntry(argument: _spire_api_server_entry_v1_BatchUpdateEntryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchUpdateEntryResponse__Output>): grpc.ClientUnaryCall;
  BatchUpdateEntry(argument: _spire_api_server_entry_v1_BatchUpdateEntryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchUpdateEntryResponse__Output>): grpc.ClientUnaryCall;
  BatchUpdateEntry(argument: _spire_api_server_entry_v1_BatchUpdateEntryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchUpdateEntryResponse__Output>): grpc.ClientUnaryCall;
  BatchUpdateEntry(argument: _spire_api_server_entry_v1_BatchUpdateEntryRequest, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchUpdateEntryResponse__Output>): grpc.ClientUnaryCall;
  batchUpdateEntry(argument: _spire_api_server_entry_v1_BatchUpdateEntryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchUpdateEntryResponse__Output>): grpc.ClientUnaryCall;
  batchUpdateEntry(argument: _spire_api_server_entry_v1_BatchUpdateEntryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchUpdateEntryResponse__Output>): grpc.ClientUnaryCall;
  batchUpdateEntry(argument: _spire_api_server_entry_v1_BatchUpdateEntryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchUpdateEntryResponse__Output>): grpc.ClientUnaryCall;
  batchUpdateEntry(argument: _spire_api_server_entry_v1_BatchUpdateEntryRequest, callback: grpc.requestCallback<_spire_api_server_entry_v1_BatchUpdateEntryResponse__Output>): grpc.ClientUnaryCall;
  
  CountEntries(argument: _spire_api_server_entry_v1_CountEntriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_CountEntriesResponse__Output>): grpc.ClientUnaryCall;
  CountEntries(argument: _spire_api_server_entry_v1_CountEntriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_entry_v1_CountEntriesResponse__Output>): grpc.ClientUnaryCall;
  CountEntries(argument: _spire_api_server_entry_v1_CountEntriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_CountEntriesResponse__Output>): grpc.ClientUnaryCall;
  CountEntries(argument: _spire_api_server_entry_v1_CountEntriesRequest, callback: grpc.requestCallback<_spire_api_server_entry_v1_CountEntriesResponse__Output>): grpc.ClientUnaryCall;
  countEntries(argument: _spire_api_server_entry_v1_CountEntriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_CountEntriesResponse__Output>): grpc.ClientUnaryCall;
  countEntries(argument: _spire_api_server_entry_v1_CountEntriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_entry_v1_CountEntriesResponse__Output>): grpc.ClientUnaryCall;
  countEntries(argument: _spire_api_server_entry_v1_CountEntriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_CountEntriesResponse__Output>): grpc.ClientUnaryCall;
  countEntries(argument: _spire_api_server_entry_v1_CountEntriesRequest, callback: grpc.requestCallback<_spire_api_server_entry_v1_CountEntriesResponse__Output>): grpc.ClientUnaryCall;
  
  GetAuthorizedEntries(argument: _spire_api_server_entry_v1_GetAuthorizedEntriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_GetAuthorizedEntriesResponse__Output>): grpc.ClientUnaryCall;
  GetAuthorizedEntries(argument: _spire_api_server_entry_v1_GetAuthorizedEntriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_entry_v1_GetAuthorizedEntriesResponse__Output>): grpc.ClientUnaryCall;
  GetAuthorizedEntries(argument: _spire_api_server_entry_v1_GetAuthorizedEntriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_GetAuthorizedEntriesResponse__Output>): grpc.ClientUnaryCall;
  GetAuthorizedEntries(argument: _spire_api_server_entry_v1_GetAuthorizedEntriesRequest, callback: grpc.requestCallback<_spire_api_server_entry_v1_GetAuthorizedEntriesResponse__Output>): grpc.ClientUnaryCall;
  getAuthorizedEntries(argument: _spire_api_server_entry_v1_GetAuthorizedEntriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_GetAuthorizedEntriesResponse__Output>): grpc.ClientUnaryCall;
  getAuthorizedEntries(argument: _spire_api_server_entry_v1_GetAuthorizedEntriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_entry_v1_GetAuthorizedEntriesResponse__Output>): grpc.ClientUnaryCall;
  getAuthorizedEntries(argument: _spire_api_server_entry_v1_GetAuthorizedEntriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_GetAuthorizedEntriesResponse__Output>): grpc.ClientUnaryCall;
  getAuthorizedEntries(argument: _spire_api_server_entry_v1_GetAuthorizedEntriesRequest, callback: grpc.requestCallback<_spire_api_server_entry_v1_GetAuthorizedEntriesResponse__Output>): grpc.ClientUnaryCall;
  
  GetEntry(argument: _spire_api_server_entry_v1_GetEntryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Entry__Output>): grpc.ClientUnaryCall;
  GetEntry(argument: _spire_api_server_entry_v1_GetEntryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_types_Entry__Output>): grpc.ClientUnaryCall;
  GetEntry(argument: _spire_api_server_entry_v1_GetEntryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Entry__Output>): grpc.ClientUnaryCall;
  GetEntry(argument: _spire_api_server_entry_v1_GetEntryRequest, callback: grpc.requestCallback<_spire_api_types_Entry__Output>): grpc.ClientUnaryCall;
  getEntry(argument: _spire_api_server_entry_v1_GetEntryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Entry__Output>): grpc.ClientUnaryCall;
  getEntry(argument: _spire_api_server_entry_v1_GetEntryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_types_Entry__Output>): grpc.ClientUnaryCall;
  getEntry(argument: _spire_api_server_entry_v1_GetEntryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_types_Entry__Output>): grpc.ClientUnaryCall;
  getEntry(argument: _spire_api_server_entry_v1_GetEntryRequest, callback: grpc.requestCallback<_spire_api_types_Entry__Output>): grpc.ClientUnaryCall;
  
  ListEntries(argument: _spire_api_server_entry_v1_ListEntriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  ListEntries(argument: _spire_api_server_entry_v1_ListEntriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_entry_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  ListEntries(argument: _spire_api_server_entry_v1_ListEntriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  ListEntries(argument: _spire_api_server_entry_v1_ListEntriesRequest, callback: grpc.requestCallback<_spire_api_server_entry_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  listEntries(argument: _spire_api_server_entry_v1_ListEntriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  listEntries(argument: _spire_api_server_entry_v1_ListEntriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_spire_api_server_entry_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  listEntries(argument: _spire_api_server_entry_v1_ListEntriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_spire_api_server_entry_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  listEntries(argument: _spire_api_server_entry_v1_ListEntriesRequest, callback: grpc.requestCallback<_spire_api_server_entry_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  
  SyncAuthorizedEntries(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_spire_api_server_entry_v1_SyncAuthorizedEntriesRequest, _spire_api_server_entry_v1_SyncAuthorizedEntriesResponse__Output>;
  SyncAuthorizedEntries(options?: grpc.CallOptions): grpc.ClientDuplexStream<_spire_api_server_entry_v1_SyncAuthorizedEntriesRequest, _spire_api_server_entry_v1_SyncAuthorizedEntriesResponse__Output>;
  syncAuthorizedEntries(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_spire_api_server_entry_v1_SyncAuthorizedEntriesRequest, _spire_api_server_entry_v1_SyncAuthorizedEntriesResponse__Output>;
  syncAuthorizedEntries(options?: grpc.CallOptions): grpc.ClientDuplexStream<_spire_api_server_entry_v1_SyncAuthorizedEntriesRequest, _spire_api_server_entry_v1_SyncAuthorizedEntriesResponse__Output>;
  
}

export interface EntryHandlers extends grpc.UntypedServiceImplementation {
  BatchCreateEntry: grpc.handleUnaryCall<_spire_api_server_entry_v1_BatchCreateEntryRequest__Output, _spire_api_server_entry_v1_BatchCreateEntryResponse>;
  
  BatchDeleteEntry: grpc.handleUnaryCall<_spire_api_server_entry_v1_BatchDeleteEntryRequest__Output, _spire_api_server_entry_v1_BatchDeleteEntryResponse>;
  
  BatchUpdateEntry: grpc.handleUnaryCall<_spire_api_server_entry_v1_BatchUpdateEntryRequest__Output, _spire_api_server_entry_v1_BatchUpdateEntryResponse>;
  
  CountEntries: grpc.handleUnaryCall<_spire_api_server_entry_v1_CountEntriesRequest__Output, _spire_api_server_entry_v1_CountEntriesResponse>;
  
  GetAuthorizedEntries: grpc.handleUnaryCall<_spire_api_server_entry_v1_GetAuthorizedEntriesRequest__Output, _spire_api_server_entry_v1_GetAuthorizedEntriesResponse>;
  
  GetEntry: grpc.handleUnaryCall<_spire_api_server_entry_v1_GetEntryRequest__Output, _spire_api_types_Entry>;
  
  ListEntries: grpc.handleUnaryCall<_spire_api_server_entry_v1_ListEntriesRequest__Output, _spire_api_server_entry_v1_ListEntriesResponse>;
  
  SyncAuthorizedEntries: grpc.handleBidiStreamingCall<_spire_api_server_entry_v1_SyncAuthorizedEntriesRequest__Output, _spire_api_server_entry_v1_SyncAuthorizedEntriesResponse>;
  
}

export interface EntryDefinition extends grpc.ServiceDefinition {
  BatchCreateEntry: MethodDefinition<_spire_api_server_entry_v1_BatchCreateEntryRequest, _spire_api_server_entry_v1_BatchCreateEntryResponse, _spire_api_server_entry_v1_BatchCreateEntryRequest__Output, _spire_api_server_entry_v1_BatchCreateEntryResponse__Output>
  BatchDeleteEntry: MethodDefinition<_spire_api_server_entry_v1_BatchDeleteEntryRequest, _spire_api_server_entry_v1_BatchDeleteEntryResponse, _spire_api_server_entry_v1_BatchDeleteEntryRequest__Output, _spire_api_server_entry_v1_BatchDeleteEntryResponse__Output>
  BatchUpdateEntry: MethodDefinition<_spire_api_server_entry_v1_BatchUpdateEntryRequest, _spire_api_server_entry_v1_BatchUpdateEntryResponse, _spire_api_server_entry_v1_BatchUpdateEntryRequest__Output, _spire_api_server_entry_v1_BatchUpdateEntryResponse__Output>
  CountEntries: MethodDefinition<_spire_api_server_entry_v1_CountEntriesRequest, _spire_api_server_entry_v1_CountEntriesResponse, _spire_api_server_entry_v1_CountEntriesRequest__Output, _spire_api_server_entry_v1_CountEntriesResponse__Output>
  GetAuthorizedEntries: MethodDefinition<_spire_api_server_entry_v1_GetAuthorizedEntriesRequest, _spire_api_server_entry_v1_GetAuthorizedEntriesResponse, _spire_api_server_entry_v1_GetAuthorizedEntriesRequest__Output, _spire_api_server_entry_v1_GetAuthorizedEntriesResponse__Output>
  GetEntry: MethodDefinition<_spire_api_server_entry_v1_GetEntryRequest, _spire_api_types_Entry, _spire_api_server_entry_v1_GetEntryRequest__Output, _spire_api_types_Entry__Output>
  ListEntries: MethodDefinition<_spire_api_server_entry_v1_ListEntriesRequest, _spire_api_server_entry_v1_ListEntriesResponse, _spire_api_server_entry_v1_ListEntriesRequest__Output, _spire_api_server_entry_v1_ListEntriesResponse__Output>
  SyncAuthorizedEntries: MethodDefinition<_spire_api_server_entry_v1_SyncAuthorizedEntriesRequest, _spire_api_server_entry_v1_SyncAuthorizedEntriesResponse, _spire_api_server_entry_v1_SyncAuthorizedEntriesRequest__Output, _spire_api_server_entry_v1_SyncAuthorizedEntriesResponse__Output>
}
