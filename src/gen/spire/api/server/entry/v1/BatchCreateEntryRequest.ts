// Original file: proto/spire/api/server/entry/v1/entry.proto

import type { Entry as _spire_api_types_Entry, Entry__Output as _spire_api_types_Entry__Output } from '../../../../../spire/api/types/Entry.js';
import type { EntryMask as _spire_api_types_EntryMask, EntryMask__Output as _spire_api_types_EntryMask__Output } from '../../../../../spire/api/types/EntryMask.js';

export interface BatchCreateEntryRequest {
  'entries'?: (_spire_api_types_Entry)[];
  'output_mask'?: (_spire_api_types_EntryMask | null);
}

export interface BatchCreateEntryRequest__Output {
  'entries': (_spire_api_types_Entry__Output)[];
  'output_mask': (_spire_api_types_EntryMask__Output | null);
}
