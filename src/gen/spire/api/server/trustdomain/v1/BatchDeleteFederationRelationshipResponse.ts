// Original file: proto/spire/api/server/trustdomain/v1/trustdomain.proto

import type { Status as _spire_api_types_Status, Status__Output as _spire_api_types_Status__Output } from '../../../../../spire/api/types/Status.js';

export interface _spire_api_server_trustdomain_v1_BatchDeleteFederationRelationshipResponse_Result {
  'status'?: (_spire_api_types_Status | null);
  'trust_domain'?: (string);
}

export interface _spire_api_server_trustdomain_v1_BatchDeleteFederationRelationshipResponse_Result__Output {
  'status': (_spire_api_types_Status__Output | null);
  'trust_domain': (string);
}

export interface BatchDeleteFederationRelationshipResponse {
  'results'?: (_spire_api_server_trustdomain_v1_BatchDeleteFederationRelationshipResponse_Result)[];
}

export interface BatchDeleteFederationRelationshipResponse__Output {
  'results': (_spire_api_server_trustdomain_v1_BatchDeleteFederationRelationshipResponse_Result__Output)[];
}
