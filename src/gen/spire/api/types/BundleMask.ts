// Original file: proto/spire/api/types/bundle.proto


export interface BundleMask {
  'x509_authorities'?: (boolean);
  'jwt_authorities'?: (boolean);
  'refresh_hint'?: (boolean);
  'sequence_number'?: (boolean);
  'wit_authorities'?: (boolean);
}

export interface BundleMask__Output {
  'x509_authorities': (boolean);
  'jwt_authorities': (boolean);
  'refresh_hint': (boolean);
  'sequence_number': (boolean);
  'wit_authorities': (boolean);
}
