// Original file: proto/spire/api/types/witsvid.proto

import type { SPIFFEID as _spire_api_types_SPIFFEID, SPIFFEID__Output as _spire_api_types_SPIFFEID__Output } from '../../../spire/api/types/SPIFFEID.js';
import type { Long } from '@grpc/proto-loader';

export interface WITSVID {
  'token'?: (string);
  'id'?: (_spire_api_types_SPIFFEID | null);
  'expires_at'?: (number | string | Long);
  'issued_at'?: (number | string | Long);
  'hint'?: (string);
}

export interface WITSVID__Output {
  'token': (string);
  'id': (_spire_api_types_SPIFFEID__Output | null);
  'expires_at': (string);
  'issued_at': (string);
  'hint': (string);
}
