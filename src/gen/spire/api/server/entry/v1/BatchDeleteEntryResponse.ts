// Original file: proto/spire/api/server/entry/v1/entry.proto

import type { Status as _spire_api_types_Status, Status__Output as _spire_api_types_Status__Output } from '../../../../../spire/api/types/Status.js';

export interface _spire_api_server_entry_v1_BatchDeleteEntryResponse_Result {
  'status'?: (_spire_api_types_Status | null);
  'id'?: (string);
}

export interface _spire_api_server_entry_v1_BatchDeleteEntryResponse_Result__Output {
  'status': (_spire_api_types_Status__Output | null);
  'id': (string);
}

export interface BatchDeleteEntryResponse {
  'results'?: (_spire_api_server_entry_v1_BatchDeleteEntryResponse_Result)[];
}

export interface BatchDeleteEntryResponse__Output {
  'results': (_spire_api_server_entry_v1_BatchDeleteEntryResponse_Result__Output)[];
}
