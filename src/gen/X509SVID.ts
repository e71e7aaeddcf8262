// Original file: proto/spiffe/workload/workload.proto


export interface X509SVID {
  'spiffe_id'?: (string);
  'x509_svid'?: (Buffer | Uint8Array | string);
  'x509_svid_key'?: (Buffer | Uint8Array | string);
  'bundle'?: (Buffer | Uint8Array | string);
  'hint'?: (string);
}

export interface X509SVID__Output {
  'spiffe_id': (string);
  'x509_svid': (Buffer);
  'x509_svid_key': (Buffer);
  'bundle': (Buffer);
  'hint': (string);
}
