// Original file: proto/spire/api/server/entry/v1/entry.proto

import type { Long } from '@grpc/proto-loader';

export interface EntryRevision {
  'id'?: (string);
  'revision_number'?: (number | string | Long);
  'created_at'?: (number | string | Long);
}

export interface EntryRevision__Output {
  'id': (string);
  'revision_number': (string);
  'created_at': (string);
}
