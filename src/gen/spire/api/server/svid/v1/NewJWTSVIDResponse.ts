// Original file: proto/spire/api/server/svid/v1/svid.proto

import type { JWTSVID as _spire_api_types_JWTSVID, JWTSVID__Output as _spire_api_types_JWTSVID__Output } from '../../../../../spire/api/types/JWTSVID.js';

export interface NewJWTSVIDResponse {
  'svid'?: (_spire_api_types_JWTSVID | null);
}

export interface NewJWTSVIDResponse__Output {
  'svid': (_spire_api_types_JWTSVID__Output | null);
}
