// Original file: proto/spire/api/server/svid/v1/svid.proto

import type { NewX509SVIDParams as _spire_api_server_svid_v1_NewX509SVIDParams, NewX509SVIDParams__Output as _spire_api_server_svid_v1_NewX509SVIDParams__Output } from '../../../../../spire/api/server/svid/v1/NewX509SVIDParams.js';

export interface BatchNewX509SVIDRequest {
  'params'?: (_spire_api_server_svid_v1_NewX509SVIDParams)[];
}

export interface BatchNewX509SVIDRequest__Output {
  'params': (_spire_api_server_svid_v1_NewX509SVIDParams__Output)[];
}
