import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { Empty as _google_protobuf_Empty, Empty__Output as _google_protobuf_Empty__Output } from './google/protobuf/Empty.js';
import type { BatchCreateFederationRelationshipRequest as _spire_api_server_trustdomain_v1_BatchCreateFederationRelationshipRequest, BatchCreateFederationRelationshipRequest__Output as _spire_api_server_trustdomain_v1_BatchCreateFederationRelationshipRequest__Output } from './spire/api/server/trustdomain/v1/BatchCreateFederationRelationshipRequest.js';
import type { BatchCreateFederationRelationshipResponse as _spire_api_server_trustdomain_v1_BatchCreateFederationRelationshipResponse, BatchCreateFederationRelationshipResponse__Output as _spire_api_server_trustdomain_v1_BatchCreateFederationRelationshipResponse__Output } from './spire/api/server/trustdomain/v1/BatchCreateFederationRelationshipResponse.js';
import type { BatchDeleteFederationRelationshipRequest as _spire_api_server_trustdomain_v1_BatchDeleteFederationRelationshipRequest, BatchDeleteFederationRelationshipRequest__Output as _spire_api_server_trustdomain_v1_BatchDeleteFederationRelationshipRequest__Output } from './spire/api/server/trustdomain/v1/BatchDeleteFederationRelationshipRequest.js';
import type { BatchDeleteFederationRelationshipResponse as _spire_api_server_trustdomain_v1_BatchDeleteFederationRelationshipResponse, BatchDeleteFederationRelationshipResponse__Output as _spire_api_server_trustdomain_v1_BatchDeleteFederationRelationshipResponse__Output } from './spire/api/server/trustdomain/v1/BatchDeleteFederationRelationshipResponse.js';
import type { BatchUpdateFederationRelationshipRequest as _spire_api_server_trustdomain_v1_BatchUpdateFederationRelationshipRequest, BatchUpdateFederationRelationshipRequest__Output as _spire_api_server_trustdomain_v1_BatchUpdateFederationRelationshipRequest__Output } from './spire/api/server/trustdomain/v1/BatchUpdateFederationRelationshipRequest.js';
import type { BatchUpdateFederationRelationshipResponse as _spire_api_server_trustdomain_v1_BatchUpdateFederationRelationshipResponse, BatchUpdateFederationRelationshipResponse__Output as _spire_api_server_trustdomain_v1_BatchUpdateFederationRelationshipResponse__Output } from './spire/api/server/trustdomain/v1/BatchUpdateFederationRelationshipResponse.js';
import type { GetFederationRelationshipRequest as _spire_api_server_trustdomain_v1_GetFederationRelationshipRequest, GetFederationRelationshipRequest__Output as _spire_api_server_trustdomain_v1_GetFederationRelationshipRequest__Output } from './spire/api/server/trustdomain/v1/GetFederationRelationshipRequest.js';
import type { ListFederationRelationshipsRequest as _spire_api_server_trustdomain_v1_ListFederationRelationshipsRequest, ListFederationRelationshipsRequest__Output as _spire_api_server_trustdomain_v1_ListFederationRelationshipsRequest__Output } from './spire/api/server/trustdomain/v1/ListFederationRelationshipsRequest.js';
import type { ListFederationRelationshipsResponse as _spire_api_server_trustdomain_v1_ListFederationRelationshipsResponse, ListFederationRelationshipsResponse__Output as _spire_api_server_trustdomain_v1_ListFederationRelationshipsResponse__Output } from './spire/api/server/trustdomain/v1/ListFederationRelationshipsResponse.js';
import type { RefreshBundleRequest as _spire_api_server_trustdomain_v1_RefreshBundleRequest, RefreshBundleRequest__Output as _spire_api_server_trustdomain_v1_RefreshBundleRequest__Output } from './spire/api/server/trustdomain/v1/RefreshBundleRequest.js';
import type { TrustDomainClient as _spire_api_server_trustdomain_v1_TrustDomainClient, TrustDomainDefinition as _spire_api_server_trustdomain_v1_TrustDomainDefinition } from './spire/api/server/trustdomain/v1/TrustDomain.js';
import type { Bundle as _spire_api_types_Bundle, Bundle__Output as _spire_api_types_Bundle__Output } from './spire/api/types/Bundle.js';
import type { BundleMask as _spire_api_types_BundleMask, BundleMask__Output as _spire_api_types_BundleMask__Output } from './spire/api/types/BundleMask.js';
import type { FederationRelationship as _spire_api_types_FederationRelationship, FederationRelationship__Output as _spire_api_types_FederationRelationship__Output } from './spire/api/types/FederationRelationship.js';
import type { FederationRelationshipMask as _spire_api_types_FederationRelationshipMask, FederationRelationshipMask__Output as _spire_api_types_FederationRelationshipMask__Output } from './spire/api/types/FederationRelationshipMask.js';
import type { HTTPSSPIFFEProfile as _spire_api_types_HTTPSSPIFFEProfile, HTTPSSPIFFEProfile__Output as _spire_api_types_HTTPSSPIFFEProfile__Output } from './spire/api/types/HTTPSSPIFFEProfile.js';
import type { HTTPSWebProfile as _spire_api_types_HTTPSWebProfile, HTTPSWebProfile__Output as _spire_api_types_HTTPSWebProfile__Output } from './spire/api/types/HTTPSWebProfile.js';
import type { JWTKey as _spire_api_types_JWTKey, JWTKey__Output as _spire_api_types_JWTKey__Output } from './spire/api/types/JWTKey.js';
import type { PermissionDeniedDetails as _spire_api_types_PermissionDeniedDetails, PermissionDeniedDetails__Output as _spire_api_types_PermissionDeniedDetails__Output } from './spire/api/types/PermissionDeniedDetails.js';
import type { Status as _spire_api_types_Status, Status__Output as _spire_api_types_Status__Output } from './spire/api/types/Status.js';
import type { WITKey as _spire_api_types_WITKey, WITKey__Output as _spire_api_types_WITKey__Output } from './spire/api/types/WITKey.js';
import type { X509Certificate as _spire_api_types_X509Certificate, X509Certificate__Output as _spire_api_types_X509Certificate__Output } from './spire/api/types/X509Certificate.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  google: {
    protobuf: {
      Empty: MessageTypeDefinition<_google_protobuf_Empty, _google_protobuf_Empty__Output>
    }
  }
  spire: {
    api: {
      server: {
        trustdomain: {
          v1: {
            BatchCreateFederationRelationshipRequest: MessageTypeDefinition<_spire_api_server_trustdomain_v1_BatchCreateFederationRelationshipRequest, _spire_api_server_trustdomain_v1_BatchCreateFederationRelationshipRequest__Output>
            BatchCreateFederationRelationshipResponse: MessageTypeDefinition<_spire_api_server_trustdomain_v1_BatchCreateFederationRelationshipResponse, _spire_api_server_trustdomain_v1_BatchCreateFederationRelationshipResponse__Output>
            BatchDeleteFederationRelationshipRequest: MessageTypeDefinition<_spire_api_server_trustdomain_v1_BatchDeleteFederationRelationshipRequest, _spire_api_server_trustdomain_v1_BatchDeleteFederationRelationshipRequest__Output>
            BatchDeleteFederationRelationshipResponse: MessageTypeDefinition<_spire_api_server_trustdomain_v1_BatchDeleteFederationRelationshipResponse, _spire_api_server_trustdomain_v1_BatchDeleteFederationRelationshipResponse__Output>
            BatchUpdateFederationRelationshipRequest: MessageTypeDefinition<_spire_api_server_trustdomain_v1_BatchUpdateFederationRelationshipRequest, _spire_api_server_trustdomain_v1_BatchUpdateFederationRelationshipRequest__Output>
            BatchUpdateFederationRelationshipResponse: MessageTypeDefinition<_spire_api_server_trustdomain_v1_BatchUpdateFederationRelationshipResponse, _spire_api_server_trustdomain_v1_BatchUpdateFederationRelationshipResponse__Output>
            GetFederationRelationshipRequest: MessageTypeDefinition<_spire_api_server_trustdomain_v1_GetFederationRelationshipRequest, _spire_api_server_trustdomain_v1_GetFederationRelationshipRequest__Output>
            ListFederationRelationshipsRequest: MessageTypeDefinition<_spire_api_server_trustdomain_v1_ListFederationRelationshipsRequest, _spire_api_server_trustdomain_v1_ListFederationRelationshipsRequest__Output>
            ListFederationRelationshipsResponse: MessageTypeDefinition<_spire_api_server_trustdomain_v1_ListFederationRelationshipsResponse, _spire_api_server_trustdomain_v1_ListFederationRelationshipsResponse__Output>
            RefreshBundleRequest: MessageTypeDefinition<_spire_api_server_trustdomain_v1_RefreshBundleRequest, _spire_api_server_trustdomain_v1_RefreshBundleRequest__Output>
            TrustDomain: SubtypeConstructor<typeof grpc.Client, _spire_api_server_trustdomain_v1_TrustDomainClient> & { service: _spire_api_server_trustdomain_v1_TrustDomainDefinition }
          }
        }
      }
      types: {
        Bundle: MessageTypeDefinition<_spire_api_types_Bundle, _spire_api_types_Bundle__Output>
        BundleMask: MessageTypeDefinition<_spire_api_types_BundleMask, _spire_api_types_BundleMask__Output>
        FederationRelationship: MessageTypeDefinition<_spire_api_types_FederationRelationship, _spire_api_types_FederationRelationship__Output>
        FederationRelationshipMask: MessageTypeDefinition<_spire_api_types_FederationRelationshipMask, _spire_api_types_FederationRelationshipMask__Output>
        HTTPSSPIFFEProfile: MessageTypeDefinition<_spire_api_types_HTTPSSPIFFEProfile, _spire_api_types_HTTPSSPIFFEProfile__Output>
        HTTPSWebProfile: MessageTypeDefinition<_spire_api_types_HTTPSWebProfile, _spire_api_types_HTTPSWebProfile__Output>
        JWTKey: MessageTypeDefinition<_spire_api_types_JWTKey, _spire_api_types_JWTKey__Output>
        PermissionDeniedDetails: MessageTypeDefinition<_spire_api_types_PermissionDeniedDetails, _spire_api_types_PermissionDeniedDetails__Output>
        Status: MessageTypeDefinition<_spire_api_types_Status, _spire_api_types_Status__Output>
        WITKey: MessageTypeDefinition<_spire_api_types_WITKey, _spire_api_types_WITKey__Output>
        X509Certificate: MessageTypeDefinition<_spire_api_types_X509Certificate, _spire_api_types_X509Certificate__Output>
      }
    }
  }
}

