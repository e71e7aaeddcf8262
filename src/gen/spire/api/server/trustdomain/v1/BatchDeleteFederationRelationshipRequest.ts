// Original file: proto/spire/api/server/trustdomain/v1/trustdomain.proto


export interface BatchDeleteFederationRelationshipRequest {
  'trust_domains'?: (string)[];
}

export interface BatchDeleteFederationRelationshipRequest__Output {
  'trust_domains': (string)[];
}
