// Original file: proto/spire/api/server/trustdomain/v1/trustdomain.proto

import type { Status as _spire_api_types_Status, Status__Output as _spire_api_types_Status__Output } from '../../../../../spire/api/types/Status.js';
import type { FederationRelationship as _spire_api_types_FederationRelationship, FederationRelationship__Output as _spire_api_types_FederationRelationship__Output } from '../../../../../spire/api/types/FederationRelationship.js';

export interface _spire_api_server_trustdomain_v1_BatchUpdateFederationRelationshipResponse_Result {
  'status'?: (_spire_api_types_Status | null);
  'federation_relationship'?: (_spire_api_types_FederationRelationship | null);
}

export interface _spire_api_server_trustdomain_v1_BatchUpdateFederationRelationshipResponse_Result__Output {
  'status': (_spire_api_types_Status__Output | null);
  'federation_relationship': (_spire_api_types_FederationRelationship__Output | null);
}

export interface BatchUpdateFederationRelationshipResponse {
  'results'?: (_spire_api_server_trustdomain_v1_BatchUpdateFederationRelationshipResponse_Result)[];
}

export interface BatchUpdateFederationRelationshipResponse__Output {
  'results': (_spire_api_server_trustdomain_v1_BatchUpdateFederationRelationshipResponse_Result__Output)[];
}
