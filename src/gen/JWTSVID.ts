// Original file: proto/spiffe/workload/workload.proto


export interface JWTSVID {
  'spiffe_id'?: (string);
  'svid'?: (string);
  'hint'?: (string);
}

export interface JWTSVID__Output {
  'spiffe_id': (string);
  'svid': (string);
  'hint': (string);
}
