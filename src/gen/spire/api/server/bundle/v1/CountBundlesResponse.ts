// Original file: proto/spire/api/server/bundle/v1/bundle.proto


export interface CountBundlesResponse {
  'count'?: (number);
}

export interface CountBundlesResponse__Output {
  'count': (number);
}
