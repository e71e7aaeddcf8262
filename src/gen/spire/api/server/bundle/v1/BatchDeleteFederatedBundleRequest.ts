// Original file: proto/spire/api/server/bundle/v1/bundle.proto


// Original file: proto/spire/api/server/bundle/v1/bundle.proto

export const _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest_Mode = {
  RESTRICT: 'RESTRICT',
  DELETE: 'DELETE',
  DISSOCIATE: 'DISSOCIATE',
} as const;

export type _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest_Mode =
  | 'RESTRICT'
  | 0
  | 'DELETE'
  | 1
  | 'DISSOCIATE'
  | 2

export type _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest_Mode__Output = typeof _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest_Mode[keyof typeof _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest_Mode]

export interface BatchDeleteFederatedBundleRequest {
  'trust_domains'?: (string)[];
  'mode'?: (_spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest_Mode);
}

export interface BatchDeleteFederatedBundleRequest__Output {
  'trust_domains': (string)[];
  'mode': (_spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest_Mode__Output);
}
