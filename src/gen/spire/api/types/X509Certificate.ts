// Original file: proto/spire/api/types/bundle.proto


export interface X509Certificate {
  'asn1'?: (Buffer | Uint8Array | string);
  'tainted'?: (boolean);
}

export interface X509Certificate__Output {
  'asn1': (Buffer);
  'tainted': (boolean);
}
