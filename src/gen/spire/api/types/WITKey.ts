// Original file: proto/spire/api/types/bundle.proto

import type { Long } from '@grpc/proto-loader';

export interface WITKey {
  'public_key'?: (Buffer | Uint8Array | string);
  'key_id'?: (string);
  'expires_at'?: (number | string | Long);
  'tainted'?: (boolean);
}

export interface WITKey__Output {
  'public_key': (Buffer);
  'key_id': (string);
  'expires_at': (string);
  'tainted': (boolean);
}
