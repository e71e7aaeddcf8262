// Original file: proto/spire/api/types/entry.proto


export interface EntryMask {
  'spiffe_id'?: (boolean);
  'parent_id'?: (boolean);
  'selectors'?: (boolean);
  'x509_svid_ttl'?: (boolean);
  'federates_with'?: (boolean);
  'admin'?: (boolean);
  'downstream'?: (boolean);
  'expires_at'?: (boolean);
  'dns_names'?: (boolean);
  'revision_number'?: (boolean);
  'store_svid'?: (boolean);
  'jwt_svid_ttl'?: (boolean);
  'hint'?: (boolean);
  'created_at'?: (boolean);
  'additional_attributes'?: (boolean);
}

export interface EntryMask__Output {
  'spiffe_id': (boolean);
  'parent_id': (boolean);
  'selectors': (boolean);
  'x509_svid_ttl': (boolean);
  'federates_with': (boolean);
  'admin': (boolean);
  'downstream': (boolean);
  'expires_at': (boolean);
  'dns_names': (boolean);
  'revision_number': (boolean);
  'store_svid': (boolean);
  'jwt_svid_ttl': (boolean);
  'hint': (boolean);
  'created_at': (boolean);
  'additional_attributes': (boolean);
}
