// Original file: proto/spire/api/types/federationrelationship.proto


export interface HTTPSSPIFFEProfile {
  'endpoint_spiffe_id'?: (string);
}

export interface HTTPSSPIFFEProfile__Output {
  'endpoint_spiffe_id': (string);
}
