// Original file: proto/spire/api/server/svid/v1/svid.proto


export interface NewJWTSVIDRequest {
  'entry_id'?: (string);
  'audience'?: (string)[];
}

export interface NewJWTSVIDRequest__Output {
  'entry_id': (string);
  'audience': (string)[];
}
