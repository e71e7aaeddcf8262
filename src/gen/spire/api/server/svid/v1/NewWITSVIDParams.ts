// Original file: proto/spire/api/server/svid/v1/svid.proto


export interface NewWITSVIDParams {
  'entry_id'?: (string);
  'public_key'?: (Buffer | Uint8Array | string);
  'signing_algorithm'?: (string);
}

export interface NewWITSVIDParams__Output {
  'entry_id': (string);
  'public_key': (Buffer);
  'signing_algorithm': (string);
}
