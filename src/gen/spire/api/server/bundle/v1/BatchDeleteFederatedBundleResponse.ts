// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type { Status as _spire_api_types_Status, Status__Output as _spire_api_types_Status__Output } from '../../../../../spire/api/types/Status.js';

export interface _spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse_Result {
  'status'?: (_spire_api_types_Status | null);
  'trust_domain'?: (string);
}

export interface _spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse_Result__Output {
  'status': (_spire_api_types_Status__Output | null);
  'trust_domain': (string);
}

export interface BatchDeleteFederatedBundleResponse {
  'results'?: (_spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse_Result)[];
}

export interface BatchDeleteFederatedBundleResponse__Output {
  'results': (_spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse_Result__Output)[];
}
