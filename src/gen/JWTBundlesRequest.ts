// Original file: proto/spiffe/workload/workload.proto


export interface JWTBundlesRequest {
}

export interface JWTBundlesRequest__Output {
}
