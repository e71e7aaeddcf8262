// Original file: proto/spire/api/server/svid/v1/svid.proto

import type { X509SVID as _spire_api_types_X509SVID, X509SVID__Output as _spire_api_types_X509SVID__Output } from '../../../../../spire/api/types/X509SVID.js';

export interface MintX509SVIDResponse {
  'svid'?: (_spire_api_types_X509SVID | null);
}

export interface MintX509SVIDResponse__Output {
  'svid': (_spire_api_types_X509SVID__Output | null);
}
