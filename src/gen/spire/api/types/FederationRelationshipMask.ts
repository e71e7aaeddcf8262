// Original file: proto/spire/api/types/federationrelationship.proto


export interface FederationRelationshipMask {
  'bundle_endpoint_url'?: (boolean);
  'bundle_endpoint_profile'?: (boolean);
  'trust_domain_bundle'?: (boolean);
}

export interface FederationRelationshipMask__Output {
  'bundle_endpoint_url': (boolean);
  'bundle_endpoint_profile': (boolean);
  'trust_domain_bundle': (boolean);
}
