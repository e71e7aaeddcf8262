// Original file: proto/spire/api/server/entry/v1/entry.proto

import type { Status as _spire_api_types_Status, Status__Output as _spire_api_types_Status__Output } from '../../../../../spire/api/types/Status.js';
import type { Entry as _spire_api_types_Entry, Entry__Output as _spire_api_types_Entry__Output } from '../../../../../spire/api/types/Entry.js';

export interface _spire_api_server_entry_v1_BatchCreateEntryResponse_Result {
  'status'?: (_spire_api_types_Status | null);
  'entry'?: (_spire_api_types_Entry | null);
}

export interface _spire_api_server_entry_v1_BatchCreateEntryResponse_Result__Output {
  'status': (_spire_api_types_Status__Output | null);
  'entry': (_spire_api_types_Entry__Output | null);
}

export interface BatchCreateEntryResponse {
  'results'?: (_spire_api_server_entry_v1_BatchCreateEntryResponse_Result)[];
}

export interface BatchCreateEntryResponse__Output {
  'results': (_spire_api_server_entry_v1_BatchCreateEntryResponse_Result__Output)[];
}
