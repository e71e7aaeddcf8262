// Original file: proto/spire/api/server/svid/v1/svid.proto

import type { Status as _spire_api_types_Status, Status__Output as _spire_api_types_Status__Output } from '../../../../../spire/api/types/Status.js';
import type { WITSVID as _spire_api_types_WITSVID, WITSVID__Output as _spire_api_types_WITSVID__Output } from '../../../../../spire/api/types/WITSVID.js';

export interface _spire_api_server_svid_v1_BatchNewWITSVIDResponse_Result {
  'status'?: (_spire_api_types_Status | null);
  'svid'?: (_spire_api_types_WITSVID | null);
}

export interface _spire_api_server_svid_v1_BatchNewWITSVIDResponse_Result__Output {
  'status': (_spire_api_types_Status__Output | null);
  'svid': (_spire_api_types_WITSVID__Output | null);
}

export interface BatchNewWITSVIDResponse {
  'results'?: (_spire_api_server_svid_v1_BatchNewWITSVIDResponse_Result)[];
}

export interface BatchNewWITSVIDResponse__Output {
  'results': (_spire_api_server_svid_v1_BatchNewWITSVIDResponse_Result__Output)[];
}
