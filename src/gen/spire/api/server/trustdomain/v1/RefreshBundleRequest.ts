// Original file: proto/spire/api/server/trustdomain/v1/trustdomain.proto


export interface RefreshBundleRequest {
  'trust_domain'?: (string);
}

export interface RefreshBundleRequest__Output {
  'trust_domain': (string);
}
