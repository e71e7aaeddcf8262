import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { BatchNewWITSVIDRequest as _spire_api_server_svid_v1_BatchNewWITSVIDRequest, BatchNewWITSVIDRequest__Output as _spire_api_server_svid_v1_BatchNewWITSVIDRequest__Output } from './spire/api/server/svid/v1/BatchNewWITSVIDRequest.js';
import type { BatchNewWITSVIDResponse as _spire_api_server_svid_v1_BatchNewWITSVIDResponse, BatchNewWITSVIDResponse__Output as _spire_api_server_svid_v1_BatchNewWITSVIDResponse__Output } from './spire/api/server/svid/v1/BatchNewWITSVIDResponse.js';
import type { BatchNewX509SVIDRequest as _spire_api_server_svid_v1_BatchNewX509SVIDRequest, BatchNewX509SVIDRequest__Output as _spire_api_server_svid_v1_BatchNewX509SVIDRequest__Output } from './spire/api/server/svid/v1/BatchNewX509SVIDRequest.js';
import type { BatchNewX509SVIDResponse as _spire_api_server_svid_v1_BatchNewX509SVIDResponse, BatchNewX509SVIDResponse__Output as _spire_api_server_svid_v1_BatchNewX509SVIDResponse__Output } from './spire/api/server/svid/v1/BatchNewX509SVIDResponse.js';
import type { MintJWTSVIDRequest as _spire_api_server_svid_v1_MintJWTSVIDRequest, MintJWTSVIDRequest__Output as _spire_api_server_svid_v1_MintJWTSVIDRequest__Output } from './spire/api/server/svid/v1/MintJWTSVIDRequest.js';
import type { MintJWTSVIDResponse as _spire_api_server_svid_v1_MintJWTSVIDResponse, MintJWTSVIDResponse__Output as _spire_api_server_svid_v1_MintJWTSVIDResponse__Output } from './spire/api/server/svid/v1/MintJWTSVIDResponse.js';
import type { MintWITSVIDRequest as _spire_api_server_svid_v1_MintWITSVIDRequest, MintWITSVIDRequest__Output as _spire_api_server_svid_v1_MintWITSVIDRequest__Output } from './spire/api/server/svid/v1/MintWITSVIDRequest.js';
import type { MintWITSVIDResponse as _spire_api_server_svid_v1_MintWITSVIDResponse, MintWITSVIDResponse__Output as _spire_api_server_svid_v1_MintWITSVIDResponse__Output } from './spire/api/server/svid/v1/MintWITSVIDResponse.js';
import type { MintX509SVIDRequest as _spire_api_server_svid_v1_MintX509SVIDRequest, MintX509SVIDRequest__Output as _spire_api_server_svid_v1_MintX509SVIDRequest__Output } from './spire/api/server/svid/v1/MintX509SVIDRequest.js';
import type { MintX509SVIDResponse as _spire_api_server_svid_v1_MintX509SVIDResponse, MintX509SVIDResponse__Output as _spire_api_server_svid_v1_MintX509SVIDResponse__Output } from './spire/api/server/svid/v1/MintX509SVIDResponse.js';
import type { NewDownstreamX509CARequest as _spire_api_server_svid_v1_NewDownstreamX509CARequest, NewDownstreamX509CARequest__Output as _spire_api_server_svid_v1_NewDownstreamX509CARequest__Output } from './spire/api/server/svid/v1/NewDownstreamX509CARequest.js';
import type { NewDownstreamX509CAResponse as _spire_api_server_svid_v1_NewDownstreamX509CAResponse, NewDownstreamX509CAResponse__Output as _spire_api_server_svid_v1_NewDownstreamX509CAResponse__Output } from './spire/api/server/svid/v1/NewDownstreamX509CAResponse.js';
import type { NewJWTSVIDRequest as _spire_api_server_svid_v1_NewJWTSVIDRequest, NewJWTSVIDRequest__Output as _spire_api_server_svid_v1_NewJWTSVIDRequest__Output } from './spire/api/server/svid/v1/NewJWTSVIDRequest.js';
import type { NewJWTSVIDResponse as _spire_api_server_svid_v1_NewJWTSVIDResponse, NewJWTSVIDResponse__Output as _spire_api_server_svid_v1_NewJWTSVIDResponse__Output } from './spire/api/server/svid/v1/NewJWTSVIDResponse.js';
import type { NewWITSVIDParams as _spire_api_server_svid_v1_NewWITSVIDParams, NewWITSVIDParams__Output as _spire_api_server_svid_v1_NewWITSVIDParams__Output } from './spire/api/server/svid/v1/NewWITSVIDParams.js';
import type { NewX509SVIDParams as _spire_api_server_svid_v1_NewX509SVIDParams, NewX509SVIDParams__Output as _spire_api_server_svid_v1_NewX509SVIDParams__Output } from './spire/api/server/svid/v1/NewX509SVIDParams.js';
import type { SVIDClient as _spire_api_server_svid_v1_SVIDClient, SVIDDefinition as _spire_api_server_svid_v1_SVIDDefinition } from './spire/api/server/svid/v1/SVID.js';
import type { JWTSVID as _spire_api_types_JWTSVID, JWTSVID__Output as _spire_api_types_JWTSVID__Output } from './spire/api/types/JWTSVID.js';
import type { PermissionDeniedDetails as _spire_api_types_PermissionDeniedDetails, PermissionDeniedDetails__Output as _spire_api_types_PermissionDeniedDetails__Output } from './spire/api/types/PermissionDeniedDetails.js';
import type { SPIFFEID as _spire_api_types_SPIFFEID, SPIFFEID__Output as _spire_api_types_SPIFFEID__Output } from './spire/api/types/SPIFFEID.js';
import type { Status as _spire_api_types_Status, Status__Output as _spire_api_types_Status__Output } from './spire/api/types/Status.js';
import type { WITSVID as _spire_api_types_WITSVID, WITSVID__Output as _spire_api_types_WITSVID__Output } from './spire/api/types/WITSVID.js';
import type { X509SVID as _spire_api_types_X509SVID, X509SVID__Output as _spire_api_types_X509SVID__Output } from './spire/api/types/X509SVID.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  spire: {
    api: {
      server: {
        svid: {
          v1: {
            BatchNewWITSVIDRequest: MessageTypeDefinition<_spire_api_server_svid_v1_BatchNewWITSVIDRequest, _spire_api_server_svid_v1_BatchNewWITSVIDRequest__Output>
            BatchNewWITSVIDResponse: MessageTypeDefinition<_spire_api_server_svid_v1_BatchNewWITSVIDResponse, _spire_api_server_svid_v1_BatchNewWITSVIDResponse__Output>
            BatchNewX509SVIDRequest: MessageTypeDefinition<_spire_api_server_svid_v1_BatchNewX509SVIDRequest, _spire_api_server_svid_v1_BatchNewX509SVIDRequest__Output>
            BatchNewX509SVIDResponse: MessageTypeDefinition<_spire_api_server_svid_v1_BatchNewX509SVIDResponse, _spire_api_server_svid_v1_BatchNewX509SVIDResponse__Output>
            MintJWTSVIDRequest: MessageTypeDefinition<_spire_api_server_svid_v1_MintJWTSVIDRequest, _spire_api_server_svid_v1_MintJWTSVIDRequest__Output>
            MintJWTSVIDResponse: MessageTypeDefinition<_spire_api_server_svid_v1_MintJWTSVIDResponse, _spire_api_server_svid_v1_MintJWTSVIDResponse__Output>
            MintWITSVIDRequest: MessageTypeDefinition<_spire_api_server_svid_v1_MintWITSVIDRequest, _spire_api_server_svid_v1_MintWITSVIDRequest__Output>
            MintWITSVIDResponse: MessageTypeDefinition<_spire_api_server_svid_v1_MintWITSVIDResponse, _spire_api_server_svid_v1_MintWITSVIDResponse__Output>
            MintX509SVIDRequest: MessageTypeDefinition<_spire_api_server_svid_v1_MintX509SVIDRequest, _spire_api_server_svid_v1_MintX509SVIDRequest__Output>
            MintX509SVIDResponse: MessageTypeDefinition<_spire_api_server_svid_v1_MintX509SVIDResponse, _spire_api_server_svid_v1_MintX509SVIDResponse__Output>
            NewDownstreamX509CARequest: MessageTypeDefinition<_spire_api_server_svid_v1_NewDownstreamX509CARequest, _spire_api_server_svid_v1_NewDownstreamX509CARequest__Output>
            NewDownstreamX509CAResponse: MessageTypeDefinition<_spire_api_server_svid_v1_NewDownstreamX509CAResponse, _spire_api_server_svid_v1_NewDownstreamX509CAResponse__Output>
            NewJWTSVIDRequest: MessageTypeDefinition<_spire_api_server_svid_v1_NewJWTSVIDRequest, _spire_api_server_svid_v1_NewJWTSVIDRequest__Output>
            NewJWTSVIDResponse: MessageTypeDefinition<_spire_api_server_svid_v1_NewJWTSVIDResponse, _spire_api_server_svid_v1_NewJWTSVIDResponse__Output>
            NewWITSVIDParams: MessageTypeDefinition<_spire_api_server_svid_v1_NewWITSVIDParams, _spire_api_server_svid_v1_NewWITSVIDParams__Output>
            NewX509SVIDParams: MessageTypeDefinition<_spire_api_server_svid_v1_NewX509SVIDParams, _spire_api_server_svid_v1_NewX509SVIDParams__Output>
            SVID: SubtypeConstructor<typeof grpc.Client, _spire_api_server_svid_v1_SVIDClient> & { service: _spire_api_server_svid_v1_SVIDDefinition }
          }
        }
      }
      types: {
        JWTSVID: MessageTypeDefinition<_spire_api_types_JWTSVID, _spire_api_types_JWTSVID__Output>
        PermissionDeniedDetails: MessageTypeDefinition<_spire_api_types_PermissionDeniedDetails, _spire_api_types_PermissionDeniedDetails__Output>
        SPIFFEID: MessageTypeDefinition<_spire_api_types_SPIFFEID, _spire_api_types_SPIFFEID__Output>
        Status: MessageTypeDefinition<_spire_api_types_Status, _spire_api_types_Status__Output>
        WITSVID: MessageTypeDefinition<_spire_api_types_WITSVID, _spire_api_types_WITSVID__Output>
        X509SVID: MessageTypeDefinition<_spire_api_types_X509SVID, _spire_api_types_X509SVID__Output>
      }
    }
  }
}

