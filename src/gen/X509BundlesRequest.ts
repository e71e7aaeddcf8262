// Original file: proto/spiffe/workload/workload.proto


export interface X509BundlesRequest {
}

export interface X509BundlesRequest__Output {
}
