// Original file: proto/spire/api/server/trustdomain/v1/trustdomain.proto

import type { FederationRelationship as _spire_api_types_FederationRelationship, FederationRelationship__Output as _spire_api_types_FederationRelationship__Output } from '../../../../../spire/api/types/FederationRelationship.js';
import type { FederationRelationshipMask as _spire_api_types_FederationRelationshipMask, FederationRelationshipMask__Output as _spire_api_types_FederationRelationshipMask__Output } from '../../../../../spire/api/types/FederationRelationshipMask.js';

export interface BatchCreateFederationRelationshipRequest {
  'federation_relationships'?: (_spire_api_types_FederationRelationship)[];
  'output_mask'?: (_spire_api_types_FederationRelationshipMask | null);
}

export interface BatchCreateFederationRelationshipRequest__Output {
  'federation_relationships': (_spire_api_types_FederationRelationship__Output)[];
  'output_mask': (_spire_api_types_FederationRelationshipMask__Output | null);
}
