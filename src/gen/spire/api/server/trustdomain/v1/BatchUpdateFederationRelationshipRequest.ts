// Original file: proto/spire/api/server/trustdomain/v1/trustdomain.proto

import type { FederationRelationship as _spire_api_types_FederationRelationship, FederationRelationship__Output as _spire_api_types_FederationRelationship__Output } from '../../../../../spire/api/types/FederationRelationship.js';
import type { FederationRelationshipMask as _spire_api_types_FederationRelationshipMask, FederationRelationshipMask__Output as _spire_api_types_FederationRelationshipMask__Output } from '../../../../../spire/api/types/FederationRelationshipMask.js';

export interface BatchUpdateFederationRelationshipRequest {
  'federation_relationships'?: (_spire_api_types_FederationRelationship)[];
  'input_mask'?: (_spire_api_types_FederationRelationshipMask | null);
  'output_mask'?: (_spire_api_types_FederationRelationshipMask | null);
}

export interface BatchUpdateFederationRelationshipRequest__Output {
  'federation_relationships': (_spire_api_types_FederationRelationship__Output)[];
  'input_mask': (_spire_api_types_FederationRelationshipMask__Output | null);
  'output_mask': (_spire_api_types_FederationRelationshipMask__Output | null);
}
