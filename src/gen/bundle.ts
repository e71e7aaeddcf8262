import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AppendBundleRequest as _spire_api_server_bundle_v1_AppendBundleRequest, AppendBundleRequest__Output as _spire_api_server_bundle_v1_AppendBundleRequest__Output } from './spire/api/server/bundle/v1/AppendBundleRequest.js';
import type { BatchCreateFederatedBundleRequest as _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest, BatchCreateFederatedBundleRequest__Output as _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest__Output } from './spire/api/server/bundle/v1/BatchCreateFederatedBundleRequest.js';
import type { BatchCreateFederatedBundleResponse as _spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse, BatchCreateFederatedBundleResponse__Output as _spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse__Output } from './spire/api/server/bundle/v1/BatchCreateFederatedBundleResponse.js';
import type { BatchDeleteFederatedBundleRequest as _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest, BatchDeleteFederatedBundleRequest__Output as _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest__Output } from './spire/api/server/bundle/v1/BatchDeleteFederatedBundleRequest.js';
import type { BatchDeleteFederatedBundleResponse as _spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse, BatchDeleteFederatedBundleResponse__Output as _spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse__Output } from './spire/api/server/bundle/v1/BatchDeleteFederatedBundleResponse.js';
import type { BatchSetFederatedBundleRequest as _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest, BatchSetFederatedBundleRequest__Output as _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest__Output } from './spire/api/server/bundle/v1/BatchSetFederatedBundleRequest.js';
import type { BatchSetFederatedBundleResponse as _spire_api_server_bundle_v1_BatchSetFederatedBundleResponse, BatchSetFederatedBundleResponse__Output as _spire_api_server_bundle_v1_BatchSetFederatedBundleResponse__Output } from './spire/api/server/bundle/v1/BatchSetFederatedBundleResponse.js';
import type { BatchUpdateFederatedBundleRequest as _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest, BatchUpdateFederatedBundleRequest__Output as _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest__Output } from './spire/api/server/bundle/v1/BatchUpdateFederatedBundleRequest.js';
import type { BatchUpdateFederatedBundleResponse as _spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse, BatchUpdateFederatedBundleResponse__Output as _spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse__Output } from './spire/api/server/bundle/v1/BatchUpdateFederatedBundleResponse.js';
import type { BundleClient as _spire_api_server_bundle_v1_BundleClient, BundleDefinition as _spire_api_server_bundle_v1_BundleDefinition } from './spire/api/server/bundle/v1/Bundle.js';
import type { CountBundlesRequest as _spire_api_server_bundle_v1_CountBundlesRequest, CountBundlesRequest__Output as _spire_api_server_bundle_v1_CountBundlesRequest__Output } from './spire/api/server/bundle/v1/CountBundlesRequest.js';
import type { CountBundlesResponse as _spire_api_server_bundle_v1_CountBundlesResponse, CountBundlesResponse__Output as _spire_api_server_bundle_v1_CountBundlesResponse__Output } from './spire/api/server/bundle/v1/CountBundlesResponse.js';
import type { GetBundleRequest as _spire_api_server_bundle_v1_GetBundleRequest, GetBundleRequest__Output as _spire_api_server_bundle_v1_GetBundleRequest__Output } from './spire/api/server/bundle/v1/GetBundleRequest.js';
import type { GetFederatedBundleRequest as _spire_api_server_bundle_v1_GetFederatedBundleRequest, GetFederatedBundleRequest__Output as _spire_api_server_bundle_v1_GetFederatedBundleRequest__Output } from './spire/api/server/bundle/v1/GetFederatedBundleRequest.js';
import type { ListFederatedBundlesRequest as _spire_api_server_bundle_v1_ListFederatedBundlesRequest, ListFederatedBundlesRequest__Output as _spire_api_server_bundle_v1_ListFederatedBundlesRequest__Output } from './spire/api/server/bundle/v1/ListFederatedBundlesRequest.js';
import type { ListFederatedBundlesResponse as _spire_api_server_bundle_v1_ListFederatedBundlesResponse, ListFederatedBundlesResponse__Output as _spire_api_server_bundle_v1_ListFederatedBundlesResponse__Output } from './spire/api/server/bundle/v1/ListFederatedBundlesResponse.js';
import type { PublishJWTAuthorityRequest as _spire_api_server_bundle_v1_PublishJWTAuthorityRequest, PublishJWTAuthorityRequest__Output as _spire_api_server_bundle_v1_PublishJWTAuthorityRequest__Output } from './spire/api/server/bundle/v1/PublishJWTAuthorityRequest.js';
import type { PublishJWTAuthorityResponse as _spire_api_server_bundle_v1_PublishJWTAuthorityResponse, PublishJWTAuthorityResponse__Output as _spire_api_server_bundle_v1_PublishJWTAuthorityResponse__Output } from './spire/api/server/bundle/v1/PublishJWTAuthorityResponse.js';
import type { PublishWITAuthorityRequest as _spire_api_server_bundle_v1_PublishWITAuthorityRequest, PublishWITAuthorityRequest__Output as _spire_api_server_bundle_v1_PublishWITAuthorityRequest__Output } from './spire/api/server/bundle/v1/PublishWITAuthorityRequest.js';
import type { PublishWITAuthorityResponse as _spire_api_server_bundle_v1_PublishWITAuthorityResponse, PublishWITAuthorityResponse__Output as _spire_api_server_bundle_v1_PublishWITAuthorityResponse__Output } from './spire/api/server/bundle/v1/PublishWITAuthorityResponse.js';
import type { Bundle as _spire_api_types_Bundle, Bundle__Output as _spire_api_types_Bundle__Output } from './spire/api/types/Bundle.js';
import type { BundleMask as _spire_api_types_BundleMask, BundleMask__Output as _spire_api_types_BundleMask__Output } from './spire/api/types/BundleMask.js';
import type { JWTKey as _spire_api_types_JWTKey, JWTKey__Output as _spire_api_types_JWTKey__Output } from './spire/api/types/JWTKey.js';
import type { PermissionDeniedDetails as _spire_api_types_PermissionDeniedDetails, PermissionDeniedDetails__Output as _spire_api_types_PermissionDeniedDetails__Output } from './spire/api/types/PermissionDeniedDetails.js';
import type { Status as _spire_api_types_Status, Status__Output as _spire_api_types_Status__Output } from './spire/api/types/Status.js';
import type { WITKey as _spire_api_types_WITKey, WITKey__Output as _spire_api_types_WITKey__Output } from './spire/api/types/WITKey.js';
import type { X509Certificate as _spire_api_types_X509Certificate, X509Certificate__Output as _spire_api_types_X509Certificate__Output } from './spire/api/types/X509Certificate.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  spire: {
    api: {
      server: {
        bundle: {
          v1: {
            AppendBundleRequest: MessageTypeDefinition<_spire_api_server_bundle_v1_AppendBundleRequest, _spire_api_server_bundle_v1_AppendBundleRequest__Output>
            BatchCreateFederatedBundleRequest: MessageTypeDefinition<_spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest, _spire_api_server_bundle_v1_BatchCreateFederatedBundleRequest__Output>
            BatchCreateFederatedBundleResponse: MessageTypeDefinition<_spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse, _spire_api_server_bundle_v1_BatchCreateFederatedBundleResponse__Output>
            BatchDeleteFederatedBundleRequest: MessageTypeDefinition<_spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest, _spire_api_server_bundle_v1_BatchDeleteFederatedBundleRequest__Output>
            BatchDeleteFederatedBundleResponse: MessageTypeDefinition<_spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse, _spire_api_server_bundle_v1_BatchDeleteFederatedBundleResponse__Output>
            BatchSetFederatedBundleRequest: MessageTypeDefinition<_spire_api_server_bundle_v1_BatchSetFederatedBundleRequest, _spire_api_server_bundle_v1_BatchSetFederatedBundleRequest__Output>
            BatchSetFederatedBundleResponse: MessageTypeDefinition<_spire_api_server_bundle_v1_BatchSetFederatedBundleResponse, _spire_api_server_bundle_v1_BatchSetFederatedBundleResponse__Output>
            BatchUpdateFederatedBundleRequest: MessageTypeDefinition<_spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest, _spire_api_server_bundle_v1_BatchUpdateFederatedBundleRequest__Output>
            BatchUpdateFederatedBundleResponse: MessageTypeDefinition<_spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse, _spire_api_server_bundle_v1_BatchUpdateFederatedBundleResponse__Output>
            Bundle: SubtypeConstructor<typeof grpc.Client, _spire_api_server_bundle_v1_BundleClient> & { service: _spire_api_server_bundle_v1_BundleDefinition }
            CountBundlesRequest: MessageTypeDefinition<_spire_api_server_bundle_v1_CountBundlesRequest, _spire_api_server_bundle_v1_CountBundlesRequest__Output>
            CountBundlesResponse: MessageTypeDefinition<_spire_api_server_bundle_v1_CountBundlesResponse, _spire_api_server_bundle_v1_CountBundlesResponse__Output>
            GetBundleRequest: MessageTypeDefinition<_spire_api_server_bundle_v1_GetBundleRequest, _spire_api_server_bundle_v1_GetBundleRequest__Output>
            GetFederatedBundleRequest: MessageTypeDefinition<_spire_api_server_bundle_v1_GetFederatedBundleRequest, _spire_api_server_bundle_v1_GetFederatedBundleRequest__Output>
            ListFederatedBundlesRequest: MessageTypeDefinition<_spire_api_server_bundle_v1_ListFederatedBundlesRequest, _spire_api_server_bundle_v1_ListFederatedBundlesRequest__Output>
            ListFederatedBundlesResponse: MessageTypeDefinition<_spire_api_server_bundle_v1_ListFederatedBundlesResponse, _spire_api_server_bundle_v1_ListFederatedBundlesResponse__Output>
            PublishJWTAuthorityRequest: MessageTypeDefinition<_spire_api_server_bundle_v1_PublishJWTAuthorityRequest, _spire_api_server_bundle_v1_PublishJWTAuthorityRequest__Output>
            PublishJWTAuthorityResponse: MessageTypeDefinition<_spire_api_server_bundle_v1_PublishJWTAuthorityResponse, _spire_api_server_bundle_v1_PublishJWTAuthorityResponse__Output>
            PublishWITAuthorityRequest: MessageTypeDefinition<_spire_api_server_bundle_v1_PublishWITAuthorityRequest, _spire_api_server_bundle_v1_PublishWITAuthorityRequest__Output>
            PublishWITAuthorityResponse: MessageTypeDefinition<_spire_api_server_bundle_v1_PublishWITAuthorityResponse, _spire_api_server_bundle_v1_PublishWITAuthorityResponse__Output>
          }
        }
      }
      types: {
        Bundle: MessageTypeDefinition<_spire_api_types_Bundle, _spire_api_types_Bundle__Output>
        BundleMask: MessageTypeDefinition<_spire_api_types_BundleMask, _spire_api_types_BundleMask__Output>
        JWTKey: MessageTypeDefinition<_spire_api_types_JWTKey, _spire_api_types_JWTKey__Output>
        PermissionDeniedDetails: MessageTypeDefinition<_spire_api_types_PermissionDeniedDetails, _spire_api_types_PermissionDeniedDetails__Output>
        Status: MessageTypeDefinition<_spire_api_types_Status, _spire_api_types_Status__Output>
        WITKey: MessageTypeDefinition<_spire_api_types_WITKey, _spire_api_types_WITKey__Output>
        X509Certificate: MessageTypeDefinition<_spire_api_types_X509Certificate, _spire_api_types_X509Certificate__Output>
      }
    }
  }
}

