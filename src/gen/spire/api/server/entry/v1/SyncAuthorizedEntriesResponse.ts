// Original file: proto/spire/api/server/entry/v1/entry.proto

import type { EntryRevision as _spire_api_server_entry_v1_EntryRevision, EntryRevision__Output as _spire_api_server_entry_v1_EntryRevision__Output } from '../../../../../spire/api/server/entry/v1/EntryRevision.js';
import type { Entry as _spire_api_types_Entry, Entry__Output as _spire_api_types_Entry__Output } from '../../../../../spire/api/types/Entry.js';

export interface SyncAuthorizedEntriesResponse {
  'entry_revisions'?: (_spire_api_server_entry_v1_EntryRevision)[];
  'entries'?: (_spire_api_types_Entry)[];
  'more'?: (boolean);
}

export interface SyncAuthorizedEntriesResponse__Output {
  'entry_revisions': (_spire_api_server_entry_v1_EntryRevision__Output)[];
  'entries': (_spire_api_types_Entry__Output)[];
  'more': (boolean);
}
