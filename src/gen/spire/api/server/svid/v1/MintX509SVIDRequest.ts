// Original file: proto/spire/api/server/svid/v1/svid.proto


export interface MintX509SVIDRequest {
  'csr'?: (Buffer | Uint8Array | string);
  'ttl'?: (number);
}

export interface MintX509SVIDRequest__Output {
  'csr': (Buffer);
  'ttl': (number);
}
