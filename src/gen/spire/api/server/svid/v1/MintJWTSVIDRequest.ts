// Original file: proto/spire/api/server/svid/v1/svid.proto

import type { SPIFFEID as _spire_api_types_SPIFFEID, SPIFFEID__Output as _spire_api_types_SPIFFEID__Output } from '../../../../../spire/api/types/SPIFFEID.js';

export interface MintJWTSVIDRequest {
  'id'?: (_spire_api_types_SPIFFEID | null);
  'audience'?: (string)[];
  'ttl'?: (number);
}

export interface MintJWTSVIDRequest__Output {
  'id': (_spire_api_types_SPIFFEID__Output | null);
  'audience': (string)[];
  'ttl': (number);
}
