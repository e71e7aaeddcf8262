// Original file: proto/spire/api/server/svid/v1/svid.proto


export interface NewDownstreamX509CARequest {
  'csr'?: (Buffer | Uint8Array | string);
  'preferred_ttl'?: (number);
}

export interface NewDownstreamX509CARequest__Output {
  'csr': (Buffer);
  'preferred_ttl': (number);
}
