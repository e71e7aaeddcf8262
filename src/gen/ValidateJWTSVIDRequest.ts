// Original file: proto/spiffe/workload/workload.proto


export interface ValidateJWTSVIDRequest {
  'audience'?: (string);
  'svid'?: (string);
}

export interface ValidateJWTSVIDRequest__Output {
  'audience': (string);
  'svid': (string);
}
