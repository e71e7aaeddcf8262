// Original file: proto/spire/api/types/spiffeid.proto


export interface SPIFFEID {
  'trust_domain'?: (string);
  'path'?: (string);
}

export interface SPIFFEID__Output {
  'trust_domain': (string);
  'path': (string);
}
