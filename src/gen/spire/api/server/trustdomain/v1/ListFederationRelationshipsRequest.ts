// Original file: proto/spire/api/server/trustdomain/v1/trustdomain.proto

import type { FederationRelationshipMask as _spire_api_types_FederationRelationshipMask, FederationRelationshipMask__Output as _spire_api_types_FederationRelationshipMask__Output } from '../../../../../spire/api/types/FederationRelationshipMask.js';

export interface ListFederationRelationshipsRequest {
  'output_mask'?: (_spire_api_types_FederationRelationshipMask | null);
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface ListFederationRelationshipsRequest__Output {
  'output_mask': (_spire_api_types_FederationRelationshipMask__Output | null);
  'page_size': (number);
  'page_token': (string);
}
