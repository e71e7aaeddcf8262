// Original file: proto/spire/api/server/trustdomain/v1/trustdomain.proto

import type { FederationRelationship as _spire_api_types_FederationRelationship, FederationRelationship__Output as _spire_api_types_FederationRelationship__Output } from '../../../../../spire/api/types/FederationRelationship.js';

export interface ListFederationRelationshipsResponse {
  'federation_relationships'?: (_spire_api_types_FederationRelationship)[];
  'next_page_token'?: (string);
}

export interface ListFederationRelationshipsResponse__Output {
  'federation_relationships': (_spire_api_types_FederationRelationship__Output)[];
  'next_page_token': (string);
}
