// Original file: proto/spire/api/server/svid/v1/svid.proto


export interface NewDownstreamX509CAResponse {
  'ca_cert_chain'?: (Buffer | Uint8Array | string)[];
  'x509_authorities'?: (Buffer | Uint8Array | string)[];
}

export interface NewDownstreamX509CAResponse__Output {
  'ca_cert_chain': (Buffer)[];
  'x509_authorities': (Buffer)[];
}
