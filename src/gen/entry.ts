import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { BoolValue as _google_protobuf_BoolValue, BoolValue__Output as _google_protobuf_BoolValue__Output } from './google/protobuf/BoolValue.js';
import type { BytesValue as _google_protobuf_BytesValue, BytesValue__Output as _google_protobuf_BytesValue__Output } from './google/protobuf/BytesValue.js';
import type { DoubleValue as _google_protobuf_DoubleValue, DoubleValue__Output as _google_protobuf_DoubleValue__Output } from './google/protobuf/DoubleValue.js';
import type { FloatValue as _google_protobuf_FloatValue, FloatValue__Output as _google_protobuf_FloatValue__Output } from './google/protobuf/FloatValue.js';
import type { Int32Value as _google_protobuf_Int32Value, Int32Value__Output as _google_protobuf_Int32Value__Output } from './google/protobuf/Int32Value.js';
import type { Int64Value as _google_protobuf_Int64Value, Int64Value__Output as _google_protobuf_Int64Value__Output } from './google/protobuf/Int64Value.js';
import type { StringValue as _google_protobuf_StringValue, StringValue__Output as _google_protobuf_StringValue__Output } from './google/protobuf/StringValue.js';
import type { UInt32Value as _google_protobuf_UInt32Value, UInt32Value__Output as _google_protobuf_UInt32Value__Output } from './google/protobuf/UInt32Value.js';
import type { UInt64Value as _google_protobuf_UInt64Value, UInt64Value__Output as _google_protobuf_UInt64Value__Output } from './google/protobuf/UInt64Value.js';
import type { BatchCreateEntryRequest as _spire_api_server_entry_v1_BatchCreateEntryRequest, BatchCreateEntryRequest__Output as _spire_api_server_entry_v1_BatchCreateEntryRequest__Output } from './spire/api/server/entry/v1/BatchCreateEntryRequest.js';
import type { BatchCreateEntryResponse as _spire_api_server_entry_v1_BatchCreateEntryResponse, BatchCreateEntryResponse__Output as _spire_api_server_entry_v1_BatchCreateEntryResponse__Output } from './spire/api/server/entry/v1/BatchCreateEntryResponse.js';
import type { BatchDeleteEntryRequest as _spire_api_server_entry_v1_BatchDeleteEntryRequest, BatchDeleteEntryRequest__Output as _spire_api_server_entry_v1_BatchDeleteEntryRequest__Output } from './spire/api/server/entry/v1/BatchDeleteEntryRequest.js';
import type { BatchDeleteEntryResponse as _spire_api_server_entry_v1_BatchDeleteEntryResponse, BatchDeleteEntryResponse__Output as _spire_api_server_entry_v1_BatchDeleteEntryResponse__Output } from './spire/api/server/entry/v1/BatchDeleteEntryResponse.js';
import type { BatchUpdateEntryRequest as _spire_api_server_entry_v1_BatchUpdateEntryRequest, BatchUpdateEntryRequest__Output as _spire_api_server_entry_v1_BatchUpdateEntryRequest__Output } from './spire/api/server/entry/v1/BatchUpdateEntryRequest.js';
import type { BatchUpdateEntryResponse as _spire_api_server_entry_v1_BatchUpdateEntryResponse, BatchUpdateEntryResponse__Output as _spire_api_server_entry_v1_BatchUpdateEntryResponse__Output } from './spire/api/server/entry/v1/BatchUpdateEntryResponse.js';
import type { CountEntriesRequest as _spire_api_server_entry_v1_CountEntriesRequest, CountEntriesRequest__Output as _spire_api_server_entry_v1_CountEntriesRequest__Output } from './spire/api/server/entry/v1/CountEntriesRequest.js';
import type { CountEntriesResponse as _spire_api_server_entry_v1_CountEntriesResponse, CountEntriesResponse__Output as _spire_api_server_entry_v1_CountEntriesResponse__Output } from './spire/api/server/entry/v1/CountEntriesResponse.js';
import type { EntryClient as _spire_api_server_entry_v1_EntryClient, EntryDefinition as _spire_api_server_entry_v1_EntryDefinition } from './spire/api/server/entry/v1/Entry.js';
import type { EntryRevision as _spire_api_server_entry_v1_EntryRevision, EntryRevision__Output as _spire_api_server_entry_v1_EntryRevision__Output } from './spire/api/server/entry/v1/EntryRevision.js';
import type { GetAuthorizedEntriesRequest as _spire_api_server_entry_v1_GetAuthorizedEntriesRequest, GetAuthorizedEntriesRequest__Output as _spire_api_server_entry_v1_GetAuthorizedEntriesRequest__Output } from './spire/api/server/entry/v1/GetAuthorizedEntriesRequest.js';
import type { GetAuthorizedEntriesResponse as _spire_api_server_entry_v1_GetAuthorizedEntriesResponse, GetAuthorizedEntriesResponse__Output as _spire_api_server_entry_v1_GetAuthorizedEntriesResponse__Output } from './spire/api/server/entry/v1/GetAuthorizedEntriesResponse.js';
import type { GetEntryRequest as _spire_api_server_entry_v1_GetEntryRequest, GetEntryRequest__Output as _spire_api_server_entry_v1_GetEntryRequest__Output } from './spire/api/server/entry/v1/GetEntryRequest.js';
import type { ListEntriesRequest as _spire_api_server_entry_v1_ListEntriesRequest, ListEntriesRequest__Output as _spire_api_server_entry_v1_ListEntriesRequest__Output } from './spire/api/server/entry/v1/ListEntriesRequest.js';
import type { ListEntriesResponse as _spire_api_server_entry_v1_ListEntriesResponse, ListEntriesResponse__Output as _spire_api_server_entry_v1_ListEntriesResponse__Output } from './spire/api/server/entry/v1/ListEntriesResponse.js';
import type { SyncAuthorizedEntriesRequest as _spire_api_server_entry_v1_SyncAuthorizedEntriesRequest, SyncAuthorizedEntriesRequest__Output as _spire_api_server_entry_v1_SyncAuthorizedEntriesRequest__Output } from './spire/api/server/entry/v1/SyncAuthorizedEntriesRequest.js';
import type { SyncAuthorizedEntriesResponse as _spire_api_server_entry_v1_SyncAuthorizedEntriesResponse, SyncAuthorizedEntriesResponse__Output as _spire_api_server_entry_v1_SyncAuthorizedEntriesResponse__Output } from './spire/api/server/entry/v1/SyncAuthorizedEntriesResponse.js';
import type { Entry as _spire_api_types_Entry, Entry__Output as _spire_api_types_Entry__Output } from './spire/api/types/Entry.js';
import type { EntryMask as _spire_api_types_EntryMask, EntryMask__Output as _spire_api_types_EntryMask__Output } from './spire/api/types/EntryMask.js';
import type { FederatesWithMatch as _spire_api_types_FederatesWithMatch, FederatesWithMatch__Output as _spire_api_types_FederatesWithMatch__Output } from './spire/api/types/FederatesWithMatch.js';
import type { PermissionDeniedDetails as _spire_api_types_PermissionDeniedDetails, PermissionDeniedDetails__Output as _spire_api_types_PermissionDeniedDetails__Output } from './spire/api/types/PermissionDeniedDetails.js';
import type { SPIFFEID as _spire_api_types_SPIFFEID, SPIFFEID__Output as _spire_api_types_SPIFFEID__Output } from './spire/api/types/SPIFFEID.js';
import type { Selector as _spire_api_types_Selector, Selector__Output as _spire_api_types_Selector__Output } from './spire/api/types/Selector.js';
import type { SelectorMatch as _spire_api_types_SelectorMatch, SelectorMatch__Output as _spire_api_types_SelectorMatch__Output } from './spire/api/types/SelectorMatch.js';
import type { Status as _spire_api_types_Status, Status__Output as _spire_api_types_Status__Output } from './spire/api/types/Status.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  google: {
    protobuf: {
      BoolValue: MessageTypeDefinition<_google_protobuf_BoolValue, _google_protobuf_BoolValue__Output>
      BytesValue: MessageTypeDefinition<_google_protobuf_BytesValue, _google_protobuf_BytesValue__Output>
      DoubleValue: MessageTypeDefinition<_google_protobuf_DoubleValue, _google_protobuf_DoubleValue__Output>
      FloatValue: MessageTypeDefinition<_google_protobuf_FloatValue, _google_protobuf_FloatValue__Output>
      Int32Value: MessageTypeDefinition<_google_protobuf_Int32Value, _google_protobuf_Int32Value__Output>
      Int64Value: MessageTypeDefinition<_google_protobuf_Int64Value, _google_protobuf_Int64Value__Output>
      StringValue: MessageTypeDefinition<_google_protobuf_StringValue, _google_protobuf_StringValue__Output>
      UInt32Value: MessageTypeDefinition<_google_protobuf_UInt32Value, _google_protobuf_UInt32Value__Output>
      UInt64Value: MessageTypeDefinition<_google_protobuf_UInt64Value, _google_protobuf_UInt64Value__Output>
    }
  }
  spire: {
    api: {
      server: {
        entry: {
          v1: {
            BatchCreateEntryRequest: MessageTypeDefinition<_spire_api_server_entry_v1_BatchCreateEntryRequest, _spire_api_server_entry_v1_BatchCreateEntryRequest__Output>
            BatchCreateEntryResponse: MessageTypeDefinition<_spire_api_server_entry_v1_BatchCreateEntryResponse, _spire_api_server_entry_v1_BatchCreateEntryResponse__Output>
            BatchDeleteEntryRequest: MessageTypeDefinition<_spire_api_server_entry_v1_BatchDeleteEntryRequest, _spire_api_server_entry_v1_BatchDeleteEntryRequest__Output>
            BatchDeleteEntryResponse: MessageTypeDefinition<_spire_api_server_entry_v1_BatchDeleteEntryResponse, _spire_api_server_entry_v1_BatchDeleteEntryResponse__Output>
            BatchUpdateEntryRequest: MessageTypeDefinition<_spire_api_server_entry_v1_BatchUpdateEntryRequest, _spire_api_server_entry_v1_BatchUpdateEntryRequest__Output>
            BatchUpdateEntryResponse: MessageTypeDefinition<_spire_api_server_entry_v1_BatchUpdateEntryResponse, _spire_api_server_entry_v1_BatchUpdateEntryResponse__Output>
            CountEntriesRequest: MessageTypeDefinition<_spire_api_server_entry_v1_CountEntriesRequest, _spire_api_server_entry_v1_CountEntriesRequest__Output>
            CountEntriesResponse: MessageTypeDefinition<_spire_api_server_entry_v1_CountEntriesResponse, _spire_api_server_entry_v1_CountEntriesResponse__Output>
            Entry: SubtypeConstructor<typeof grpc.Client, _spire_api_server_entry_v1_EntryClient> & { service: _spire_api_server_entry_v1_EntryDefinition }
            EntryRevision: MessageTypeDefinition<_spire_api_server_entry_v1_EntryRevision, _spire_api_server_entry_v1_EntryRevision__Output>
            GetAuthorizedEntriesRequest: MessageTypeDefinition<_spire_api_server_entry_v1_GetAuthorizedEntriesRequest, _spire_api_server_entry_v1_GetAuthorizedEntriesRequest__Output>
            GetAuthorizedEntriesResponse: MessageTypeDefinition<_spire_api_server_entry_v1_GetAuthorizedEntriesResponse, _spire_api_server_entry_v1_GetAuthorizedEntriesResponse__Output>
            GetEntryRequest: MessageTypeDefinition<_spire_api_server_entry_v1_GetEntryRequest, _spire_api_server_entry_v1_GetEntryRequest__Output>
            ListEntriesRequest: MessageTypeDefinition<_spire_api_server_entry_v1_ListEntriesRequest, _spire_api_server_entry_v1_ListEntriesRequest__Output>
            ListEntriesResponse: MessageTypeDefinition<_spire_api_server_entry_v1_ListEntriesResponse, _spire_api_server_entry_v1_ListEntriesResponse__Output>
            SyncAuthorizedEntriesRequest: MessageTypeDefinition<_spire_api_server_entry_v1_SyncAuthorizedEntriesRequest, _spire_api_server_entry_v1_SyncAuthorizedEntriesRequest__Output>
            SyncAuthorizedEntriesResponse: MessageTypeDefinition<_spire_api_server_entry_v1_SyncAuthorizedEntriesResponse, _spire_api_server_entry_v1_SyncAuthorizedEntriesResponse__Output>
          }
        }
      }
      types: {
        Entry: MessageTypeDefinition<_spire_api_types_Entry, _spire_api_types_Entry__Output>
        EntryMask: MessageTypeDefinition<_spire_api_types_EntryMask, _spire_api_types_EntryMask__Output>
        FederatesWithMatch: MessageTypeDefinition<_spire_api_types_FederatesWithMatch, _spire_api_types_FederatesWithMatch__Output>
        PermissionDeniedDetails: MessageTypeDefinition<_spire_api_types_PermissionDeniedDetails, _spire_api_types_PermissionDeniedDetails__Output>
        SPIFFEID: MessageTypeDefinition<_spire_api_types_SPIFFEID, _spire_api_types_SPIFFEID__Output>
        Selector: MessageTypeDefinition<_spire_api_types_Selector, _spire_api_types_Selector__Output>
        SelectorMatch: MessageTypeDefinition<_spire_api_types_SelectorMatch, _spire_api_types_SelectorMatch__Output>
        Status: MessageTypeDefinition<_spire_api_types_Status, _spire_api_types_Status__Output>
      }
    }
  }
}

