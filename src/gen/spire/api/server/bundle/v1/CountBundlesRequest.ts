// Original file: proto/spire/api/server/bundle/v1/bundle.proto


export interface CountBundlesRequest {
}

export interface CountBundlesRequest__Output {
}
