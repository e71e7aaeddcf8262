// Original file: proto/spire/api/server/entry/v1/entry.proto

import type { Entry as _spire_api_types_Entry, Entry__Output as _spire_api_types_Entry__Output } from '../../../../../spire/api/types/Entry.js';

export interface GetAuthorizedEntriesResponse {
  'entries'?: (_spire_api_types_Entry)[];
}

export interface GetAuthorizedEntriesResponse__Output {
  'entries': (_spire_api_types_Entry__Output)[];
}
