// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type { JWTKey as _spire_api_types_JWTKey, JWTKey__Output as _spire_api_types_JWTKey__Output } from '../../../../../spire/api/types/JWTKey.js';

export interface PublishJWTAuthorityResponse {
  'jwt_authorities'?: (_spire_api_types_JWTKey)[];
}

export interface PublishJWTAuthorityResponse__Output {
  'jwt_authorities': (_spire_api_types_JWTKey__Output)[];
}
