// Original file: proto/spire/api/server/svid/v1/svid.proto

import type { Status as _spire_api_types_Status, Status__Output as _spire_api_types_Status__Output } from '../../../../../spire/api/types/Status.js';
import type { X509SVID as _spire_api_types_X509SVID, X509SVID__Output as _spire_api_types_X509SVID__Output } from '../../../../../spire/api/types/X509SVID.js';

export interface _spire_api_server_svid_v1_BatchNewX509SVIDResponse_Result {
  'status'?: (_spire_api_types_Status | null);
  'svid'?: (_spire_api_types_X509SVID | null);
}

export interface _spire_api_server_svid_v1_BatchNewX509SVIDResponse_Result__Output {
  'status': (_spire_api_types_Status__Output | null);
  'svid': (_spire_api_types_X509SVID__Output | null);
}

export interface BatchNewX509SVIDResponse {
  'results'?: (_spire_api_server_svid_v1_BatchNewX509SVIDResponse_Result)[];
}

export interface BatchNewX509SVIDResponse__Output {
  'results': (_spire_api_server_svid_v1_BatchNewX509SVIDResponse_Result__Output)[];
}
