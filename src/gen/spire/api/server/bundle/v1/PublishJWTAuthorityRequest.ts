// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type { JWTKey as _spire_api_types_JWTKey, JWTKey__Output as _spire_api_types_JWTKey__Output } from '../../../../../spire/api/types/JWTKey.js';

export interface PublishJWTAuthorityRequest {
  'jwt_authority'?: (_spire_api_types_JWTKey | null);
}

export interface PublishJWTAuthorityRequest__Output {
  'jwt_authority': (_spire_api_types_JWTKey__Output | null);
}
