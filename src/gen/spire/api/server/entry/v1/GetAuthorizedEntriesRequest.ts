// Original file: proto/spire/api/server/entry/v1/entry.proto

import type { EntryMask as _spire_api_types_EntryMask, EntryMask__Output as _spire_api_types_EntryMask__Output } from '../../../../../spire/api/types/EntryMask.js';

export interface GetAuthorizedEntriesRequest {
  'output_mask'?: (_spire_api_types_EntryMask | null);
}

export interface GetAuthorizedEntriesRequest__Output {
  'output_mask': (_spire_api_types_EntryMask__Output | null);
}
