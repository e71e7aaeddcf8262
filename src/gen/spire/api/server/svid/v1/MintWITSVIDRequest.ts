// Original file: proto/spire/api/server/svid/v1/svid.proto

import type { SPIFFEID as _spire_api_types_SPIFFEID, SPIFFEID__Output as _spire_api_types_SPIFFEID__Output } from '../../../../../spire/api/types/SPIFFEID.js';

export interface MintWITSVIDRequest {
  'id'?: (_spire_api_types_SPIFFEID | null);
  'public_key'?: (Buffer | Uint8Array | string);
  'ttl'?: (number);
  'signing_algorithm'?: (string);
}

export interface MintWITSVIDRequest__Output {
  'id': (_spire_api_types_SPIFFEID__Output | null);
  'public_key': (Buffer);
  'ttl': (number);
  'signing_algorithm': (string);
}
