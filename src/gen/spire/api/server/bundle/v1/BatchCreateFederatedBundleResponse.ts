// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type { Status as _spire_api_types_Status, Status__Output as _spire_api_types_Status__Output } from '../../../../../spire/api/types/Status.js';
import type { Bundle as _spire_api_types_Bundle, Bundle__Output as _spire_api_types_Bundle__Output } from '../../../../../spire/api/types/Bundle.js';

export interface _spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse_Result {
  'status'?: (_spire_api_types_Status | null);
  'bundle'?: (_spire_api_types_Bundle | null);
}

export interface _spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse_Result__Output {
  'status': (_spire_api_types_Status__Output | null);
  'bundle': (_spire_api_types_Bundle__Output | null);
}

export interface BatchCreateFederatedBundleResponse {
  'results'?: (_spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse_Result)[];
}

export interface BatchCreateFederatedBundleResponse__Output {
  'results': (_spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse_Result__Output)[];
}
