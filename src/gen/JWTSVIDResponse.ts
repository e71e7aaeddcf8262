// Original file: proto/spiffe/workload/workload.proto

import type { JWTSVID as _JWTSVID, JWTSVID__Output as _JWTSVID__Output } from './JWTSVID.js';

export interface JWTSVIDResponse {
  'svids'?: (_JWTSVID)[];
}

export interface JWTSVIDResponse__Output {
  'svids': (_JWTSVID__Output)[];
}
