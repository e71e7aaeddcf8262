// Original file: proto/spire/api/types/x509svid.proto

import type { SPIFFEID as _spire_api_types_SPIFFEID, SPIFFEID__Output as _spire_api_types_SPIFFEID__Output } from '../../../spire/api/types/SPIFFEID.js';
import type { Long } from '@grpc/proto-loader';

export interface X509SVID {
  'cert_chain'?: (Buffer | Uint8Array | string)[];
  'id'?: (_spire_api_types_SPIFFEID | null);
  'expires_at'?: (number | string | Long);
  'hint'?: (string);
}

export interface X509SVID__Output {
  'cert_chain': (Buffer)[];
  'id': (_spire_api_types_SPIFFEID__Output | null);
  'expires_at': (string);
  'hint': (string);
}
