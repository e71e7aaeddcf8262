// Original file: proto/spire/api/server/entry/v1/entry.proto

import type { Entry as _spire_api_types_Entry, Entry__Output as _spire_api_types_Entry__Output } from '../../../../../spire/api/types/Entry.js';
import type { EntryMask as _spire_api_types_EntryMask, EntryMask__Output as _spire_api_types_EntryMask__Output } from '../../../../../spire/api/types/EntryMask.js';

export interface BatchUpdateEntryRequest {
  'entries'?: (_spire_api_types_Entry)[];
  'input_mask'?: (_spire_api_types_EntryMask | null);
  'output_mask'?: (_spire_api_types_EntryMask | null);
}

export interface BatchUpdateEntryRequest__Output {
  'entries': (_spire_api_types_Entry__Output)[];
  'input_mask': (_spire_api_types_EntryMask__Output | null);
  'output_mask': (_spire_api_types_EntryMask__Output | null);
}
