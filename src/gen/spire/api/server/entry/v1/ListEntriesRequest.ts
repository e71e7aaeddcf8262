// Original file: proto/spire/api/server/entry/v1/entry.proto

import type { EntryMask as _spire_api_types_EntryMask, EntryMask__Output as _spire_api_types_EntryMask__Output } from '../../../../../spire/api/types/EntryMask.js';
import type { SPIFFEID as _spire_api_types_SPIFFEID, SPIFFEID__Output as _spire_api_types_SPIFFEID__Output } from '../../../../../spire/api/types/SPIFFEID.js';
import type { SelectorMatch as _spire_api_types_SelectorMatch, SelectorMatch__Output as _spire_api_types_SelectorMatch__Output } from '../../../../../spire/api/types/SelectorMatch.js';
import type { FederatesWithMatch as _spire_api_types_FederatesWithMatch, FederatesWithMatch__Output as _spire_api_types_FederatesWithMatch__Output } from '../../../../../spire/api/types/FederatesWithMatch.js';
import type { StringValue as _google_protobuf_StringValue, StringValue__Output as _google_protobuf_StringValue__Output } from '../../../../../google/protobuf/StringValue.js';
import type { BoolValue as _google_protobuf_BoolValue, BoolValue__Output as _google_protobuf_BoolValue__Output } from '../../../../../google/protobuf/BoolValue.js';

export interface _spire_api_server_entry_v1_ListEntriesRequest_Filter {
  'by_spiffe_id'?: (_spire_api_types_SPIFFEID | null);
  'by_parent_id'?: (_spire_api_types_SPIFFEID | null);
  'by_selectors'?: (_spire_api_types_SelectorMatch | null);
  'by_federates_with'?: (_spire_api_types_FederatesWithMatch | null);
  'by_hint'?: (_google_protobuf_StringValue | null);
  'by_downstream'?: (_google_protobuf_BoolValue | null);
}

export interface _spire_api_server_entry_v1_ListEntriesRequest_Filter__Output {
  'by_spiffe_id': (_spire_api_types_SPIFFEID__Output | null);
  'by_parent_id': (_spire_api_types_SPIFFEID__Output | null);
  'by_selectors': (_spire_api_types_SelectorMatch__Output | null);
  'by_federates_with': (_spire_api_types_FederatesWithMatch__Output | null);
  'by_hint': (_google_protobuf_StringValue__Output | null);
  'by_downstream': (_google_protobuf_BoolValue__Output | null);
}

export interface ListEntriesRequest {
  'filter'?: (_spire_api_server_entry_v1_ListEntriesRequest_Filter | null);
  'output_mask'?: (_spire_api_types_EntryMask | null);
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface ListEntriesRequest__Output {
  'filter': (_spire_api_server_entry_v1_ListEntriesRequest_Filter__Output | null);
  'output_mask': (_spire_api_types_EntryMask__Output | null);
  'page_size': (number);
  'page_token': (string);
}
