import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { JWTBundlesRequest as _JWTBundlesRequest, JWTBundlesRequest__Output as _JWTBundlesRequest__Output } from './JWTBundlesRequest.js';
import type { JWTBundlesResponse as _JWTBundlesResponse, JWTBundlesResponse__Output as _JWTBundlesResponse__Output } from './JWTBundlesResponse.js';
import type { JWTSVID as _JWTSVID, JWTSVID__Output as _JWTSVID__Output } from './JWTSVID.js';
import type { JWTSVIDRequest as _JWTSVIDRequest, JWTSVIDRequest__Output as _JWTSVIDRequest__Output } from './JWTSVIDRequest.js';
import type { JWTSVIDResponse as _JWTSVIDResponse, JWTSVIDResponse__Output as _JWTSVIDResponse__Output } from './JWTSVIDResponse.js';
import type { SpiffeWorkloadAPIClient as _SpiffeWorkloadAPIClient, SpiffeWorkloadAPIDefinition as _SpiffeWorkloadAPIDefinition } from './SpiffeWorkloadAPI.js';
import type { ValidateJWTSVIDRequest as _ValidateJWTSVIDRequest, ValidateJWTSVIDRequest__Output as _ValidateJWTSVIDRequest__Output } from './ValidateJWTSVIDRequest.js';
import type { ValidateJWTSVIDResponse as _ValidateJWTSVIDResponse, ValidateJWTSVIDResponse__Output as _ValidateJWTSVIDResponse__Output } from './ValidateJWTSVIDResponse.js';
import type { X509BundlesRequest as _X509BundlesRequest, X509BundlesRequest__Output as _X509BundlesRequest__Output } from './X509BundlesRequest.js';
import type { X509BundlesResponse as _X509BundlesResponse, X509BundlesResponse__Output as _X509BundlesResponse__Output } from './X509BundlesResponse.js';
import type { X509SVID as _X509SVID, X509SVID__Output as _X509SVID__Output } from './X509SVID.js';
import type { X509SVIDRequest as _X509SVIDRequest, X509SVIDRequest__Output as _X509SVIDRequest__Output } from './X509SVIDRequest.js';
import type { X509SVIDResponse as _X509SVIDResponse, X509SVIDResponse__Output as _X509SVIDResponse__Output } from './X509SVIDResponse.js';
import type { ListValue as _google_protobuf_ListValue, ListValue__Output as _google_protobuf_ListValue__Output } from './google/protobuf/ListValue.js';
import type { Struct as _google_protobuf_Struct, Struct__Output as _google_protobuf_Struct__Output } from './google/protobuf/Struct.js';
import type { Value as _google_protobuf_Value, Value__Output as _google_protobuf_Value__Output } from './google/protobuf/Value.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  JWTBundlesRequest: MessageTypeDefinition<_JWTBundlesRequest, _JWTBundlesRequest__Output>
  JWTBundlesResponse: MessageTypeDefinition<_JWTBundlesResponse, _JWTBundlesResponse__Output>
  JWTSVID: MessageTypeDefinition<_JWTSVID, _JWTSVID__Output>
  JWTSVIDRequest: MessageTypeDefinition<_JWTSVIDRequest, _JWTSVIDRequest__Output>
  JWTSVIDResponse: MessageTypeDefinition<_JWTSVIDResponse, _JWTSVIDResponse__Output>
  SpiffeWorkloadAPI: SubtypeConstructor<typeof grpc.Client, _SpiffeWorkloadAPIClient> & { service: _SpiffeWorkloadAPIDefinition }
  ValidateJWTSVIDRequest: MessageTypeDefinition<_ValidateJWTSVIDRequest, _ValidateJWTSVIDRequest__Output>
  ValidateJWTSVIDResponse: MessageTypeDefinition<_ValidateJWTSVIDResponse, _ValidateJWTSVIDResponse__Output>
  X509BundlesRequest: MessageTypeDefinition<_X509BundlesRequest, _X509BundlesRequest__Output>
  X509BundlesResponse: MessageTypeDefinition<_X509BundlesResponse, _X509BundlesResponse__Output>
  X509SVID: MessageTypeDefinition<_X509SVID, _X509SVID__Output>
  X509SVIDRequest: MessageTypeDefinition<_X509SVIDRequest, _X509SVIDRequest__Output>
  X509SVIDResponse: MessageTypeDefinition<_X509SVIDResponse, _X509SVIDResponse__Output>
  google: {
    protobuf: {
      ListValue: MessageTypeDefinition<_google_protobuf_ListValue, _google_protobuf_ListValue__Output>
      NullValue: EnumTypeDefinition
      Struct: MessageTypeDefinition<_google_protobuf_Struct, _google_protobuf_Struct__Output>
      Value: MessageTypeDefinition<_google_protobuf_Value, _google_protobuf_Value__Output>
    }
  }
}

