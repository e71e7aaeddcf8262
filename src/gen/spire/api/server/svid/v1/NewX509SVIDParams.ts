// Original file: proto/spire/api/server/svid/v1/svid.proto


export interface NewX509SVIDParams {
  'entry_id'?: (string);
  'csr'?: (Buffer | Uint8Array | string);
}

export interface NewX509SVIDParams__Output {
  'entry_id': (string);
  'csr': (Buffer);
}
