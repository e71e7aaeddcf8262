// Original file: proto/spire/api/server/trustdomain/v1/trustdomain.proto

import type { FederationRelationshipMask as _spire_api_types_FederationRelationshipMask, FederationRelationshipMask__Output as _spire_api_types_FederationRelationshipMask__Output } from '../../../../../spire/api/types/FederationRelationshipMask.js';

export interface GetFederationRelationshipRequest {
  'trust_domain'?: (string);
  'output_mask'?: (_spire_api_types_FederationRelationshipMask | null);
}

export interface GetFederationRelationshipRequest__Output {
  'trust_domain': (string);
  'output_mask': (_spire_api_types_FederationRelationshipMask__Output | null);
}
