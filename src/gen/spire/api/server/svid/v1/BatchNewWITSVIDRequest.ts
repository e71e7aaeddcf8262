// Original file: proto/spire/api/server/svid/v1/svid.proto

import type { NewWITSVIDParams as _spire_api_server_svid_v1_NewWITSVIDParams, NewWITSVIDParams__Output as _spire_api_server_svid_v1_NewWITSVIDParams__Output } from '../../../../../spire/api/server/svid/v1/NewWITSVIDParams.js';

export interface BatchNewWITSVIDRequest {
  'params'?: (_spire_api_server_svid_v1_NewWITSVIDParams)[];
}

export interface BatchNewWITSVIDRequest__Output {
  'params': (_spire_api_server_svid_v1_NewWITSVIDParams__Output)[];
}
