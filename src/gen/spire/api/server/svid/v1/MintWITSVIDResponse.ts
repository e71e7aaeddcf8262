// Original file: proto/spire/api/server/svid/v1/svid.proto

import type { WITSVID as _spire_api_types_WITSVID, WITSVID__Output as _spire_api_types_WITSVID__Output } from '../../../../../spire/api/types/WITSVID.js';

export interface MintWITSVIDResponse {
  'svid'?: (_spire_api_types_WITSVID | null);
}

export interface MintWITSVIDResponse__Output {
  'svid': (_spire_api_types_WITSVID__Output | null);
}
