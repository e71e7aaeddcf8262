// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type { WITKey as _spire_api_types_WITKey, WITKey__Output as _spire_api_types_WITKey__Output } from '../../../../../spire/api/types/WITKey.js';

export interface PublishWITAuthorityResponse {
  'wit_authorities'?: (_spire_api_types_WITKey)[];
}

export interface PublishWITAuthorityResponse__Output {
  'wit_authorities': (_spire_api_types_WITKey__Output)[];
}
