// Original file: proto/spiffe/workload/workload.proto


export interface X509SVIDRequest {
}

export interface X509SVIDRequest__Output {
}
